/// A failure message short enough to read in a CI log: how many there were and the last few, each cut short.
public func summary<Element>(_ items: some Collection<Element>, last: Int = 4) -> String {
    let shown = items.suffix(last).map { shortened(String(describing: $0), to: 200) }
    return "\(items.count) in all" + (shown.isEmpty ? "" : ", the last: " + shown.joined(separator: "; "))
}

/// `text` cut to at most `limit` characters, saying how much was left out.
public func shortened(_ text: String, to limit: Int = 600) -> String {
    guard text.count > limit else { return text }
    return text.prefix(limit) + "… (\(text.count - limit) more characters)"
}
