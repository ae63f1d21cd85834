// The standard library's own canonical decomposition (Foundation's needs ICU).
@_spi(_Unicode) import Swift

/// The folded form of a name that city search compares: lower case, no diacritics, punctuation as spaces.
///
/// The index builder and the search both use this one function, so a query and the names it should match are
/// always folded alike: "München", "MUNCHEN" and "munchen" all become "munchen"; "Saint-Étienne" becomes
/// "saint etienne"; "St. John's" becomes "st johns".
public enum SearchKey {
    /// Letters that have no canonical decomposition into a base letter plus marks.
    private static let foldedLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
        "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th",
        "ı": "i", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ĸ": "k",
    ]

    /// Folds `text` for comparison. The result has single spaces between words and none at either end.
    public static func fold(_ text: some StringProtocol) -> String {
        String(decoding: foldedBytes(text), as: UTF8.self)
    }

    /// `fold(text)` as UTF-8 bytes, as the search compares them.
    public static func foldedBytes(_ text: some StringProtocol) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false

        func emitASCII(_ byte: UInt8) {
            if pendingSpace && !out.isEmpty { out.append(0x20) }
            pendingSpace = false
            out.append(byte)
        }

        func emit(_ scalar: Unicode.Scalar) {
            if pendingSpace && !out.isEmpty { out.append(0x20) }
            pendingSpace = false
            UTF8.encode(scalar) { out.append($0) }
        }

        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(truncatingIfNeeded: scalar.value)
                switch byte {
                case 0x41...0x5A: emitASCII(byte + 0x20)
                case 0x61...0x7A, 0x30...0x39: emitASCII(byte)
                // Apostrophes and full stops join: "St. John's" is searched as "st johns".
                case 0x27, 0x2E, 0x60: continue
                default: pendingSpace = true
                }
                continue
            }
            foldNonASCII(scalar, emit: emit, space: { pendingSpace = true })
        }
        return out
    }

    private static func foldNonASCII(
        _ scalar: Unicode.Scalar, emit: (Unicode.Scalar) -> Void, space: () -> Void
    ) {
        if let replacement = foldedLetters[scalar] {
            replacement.unicodeScalars.forEach(emit)
            return
        }
        // Typographic apostrophes join words like the ASCII one.
        if scalar == "\u{2018}" || scalar == "\u{2019}" || scalar == "\u{02BC}" || scalar == "\u{02BB}" { return }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark, .format:
            return
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .dashPunctuation,
            .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation,
            .connectorPunctuation, .mathSymbol, .otherSymbol:
            space()
            return
        default:
            break
        }
        // Canonical decomposition splits "é" into "e" and a combining accent, which is then dropped.
        for part in String(scalar)._nfd {
            if part.properties.generalCategory == .nonspacingMark { continue }
            if let replacement = foldedLetters[part] {
                replacement.unicodeScalars.forEach(emit)
            } else if part.properties.changesWhenLowercased {
                for lower in part.properties.lowercaseMapping.unicodeScalars
                where lower.properties.generalCategory != .nonspacingMark {
                    emit(lower)
                }
            } else {
                emit(part)
            }
        }
    }
}
