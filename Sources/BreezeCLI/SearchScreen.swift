/// Draws a `SearchView` as one write of ANSI sequences: the search line, a rule, the list (scrolled to keep the
/// selection in sight), a status line and the keys; the cursor left at the end of the query. No I/O.
package enum SearchScreen {
    static let prompt = "Search: "
    static let keys = "Up/Down move  Enter select  Ctrl-S save  Ctrl-U clear  Esc leave"

    /// The screen for `view`; with `color`, the selection in reverse video, headers in bold, online marks and
    /// notices in colour; without, plain text (the selection marked by ">").
    package static func draw(_ view: SearchView, color: Bool) -> String {
        let columns = max(view.columns, 1)
        let rows = max(view.rows, 1)
        func style(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var lines: [String] = []
        guard columns >= 20, rows >= 5 else {
            return "\u{1B}[H\u{1B}[2J" + fitted("Terminal too small", columns)
        }
        // The query's end stays in sight on a narrow terminal.
        let room = columns - prompt.count - 1
        var shown = view.query
        while DisplayWidth.columns(of: shown) > room { shown.removeFirst() }
        lines.append(style("1", prompt) + shown)
        lines.append(String(repeating: "-", count: columns))

        let height = rows - 4
        let entries = view.entries
        let selectedIndex = selectedEntryIndex(view, entries)
        let first = selectedIndex.map { $0 >= height ? $0 - height + 1 : 0 } ?? 0
        let placeWidth = columns - 2
        for (index, entry) in entries.enumerated().dropFirst(first).prefix(height) {
            let isSelected = index == selectedIndex
            let marker = isSelected ? "> " : "  "
            var text: String
            switch entry {
            case .header(let title):
                lines.append(style("1", fitted(title, columns)))
                continue
            case .here:
                text = fitted("Use current location", placeWidth)
            case .city(let city):
                text = row(city, width: placeWidth, color: color && !isSelected)
            }
            lines.append(isSelected && color ? "\u{1B}[7m" + marker + text + "\u{1B}[0m" : marker + text)
        }
        if entries.isEmpty && view.isSearching && view.resultsGeneration == view.generation {
            lines.append("  No cities.")
        }
        while lines.count < rows - 2 { lines.append("") }

        let status: String
        if let notice = view.notice {
            status = style(view.daemonGone ? "31" : "33", fitted(notice, columns))
        } else if let note = view.onlineNote {
            status = style("2", fitted(note, columns))
        } else if !view.isSearching {
            status = fitted("Type at least 2 characters to search.", columns)
        } else {
            let count = view.results.count
            let online = view.onlineResults.count
            let fromOnline = online > 0 ? " (\(online) from online search)" : ""
            status = fitted("\(count) \(count == 1 ? "city" : "cities")" + fromOnline, columns)
        }
        lines.append(status)
        lines.append(style("2", fitted(keys, columns)))

        var screen = "\u{1B}[?25l\u{1B}[H"
        screen += lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
        screen += "\u{1B}[J"
        // The cursor after the query, shown.
        screen += "\u{1B}[1;\(prompt.count + DisplayWidth.columns(of: shown) + 1)H\u{1B}[?25h"
        return screen
    }

    /// The index in `entries` of the selected one.
    static func selectedEntryIndex(_ view: SearchView, _ entries: [SearchView.Entry]) -> Int? {
        var count = -1
        for (index, entry) in entries.enumerated() {
            if case .header = entry { continue }
            count += 1
            if count == view.selection { return index }
        }
        return nil
    }

    /// A city in columns: name (and the other name a search matched), region, country, population, and "online" for
    /// a place from the online search.
    static func row(_ city: SearchView.City, width: Int, color: Bool) -> String {
        let populationWidth = 12
        let markWidth = 8
        let rest = max(width - populationWidth - markWidth, 12)
        let nameWidth = rest * 2 / 5
        let regionWidth = (rest - nameWidth) / 2
        let countryWidth = rest - nameWidth - regionWidth
        let population = city.population.map(grouped) ?? ""
        let name = city.matched.isEmpty ? city.name : city.name + " — " + city.matched
        var text = fitted(name, nameWidth) + fitted(city.region, regionWidth) + fitted(city.country, countryWidth)
        text += String(repeating: " ", count: max(populationWidth - population.count - 1, 0)) + population + " "
        let mark = city.online ? " online" : ""
        text += color && city.online ? "\u{1B}[36m" + fitted(mark, markWidth) + "\u{1B}[0m" : fitted(mark, markWidth)
        return text
    }

    /// "421,878".
    package static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }

    /// `text` cut or padded to `width` columns, a cut one ending in "…" and a space before the next column.
    package static func fitted(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        let columns = DisplayWidth.columns(of: text)
        if columns < width { return text + String(repeating: " ", count: width - columns) }
        var cut = ""
        var used = 0
        for character in text {
            let next = DisplayWidth.columns(of: String(character))
            guard used + next <= width - 2 else { break }
            cut.append(character)
            used += next
        }
        return cut + "…" + String(repeating: " ", count: width - used - 1)
    }
}
