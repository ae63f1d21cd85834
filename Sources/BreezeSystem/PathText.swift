/// Path arithmetic on text, as `NSString.deletingLastPathComponent` does it: "/run/breeze/s.sock" → "/run/breeze",
/// "/s.sock" → "/", "/run/breeze/" → "/run", "s.sock" → "".
public func parentFolder(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "" }
    if slash == trimmed.startIndex { return "/" }
    var folder = trimmed[..<slash]
    while folder.count > 1 && folder.hasSuffix("/") { folder = folder.dropLast() }
    return String(folder)
}
