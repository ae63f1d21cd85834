import BreezeCore
import BreezePlaces
import BreezeProtocol
import BreezeTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Benchmarks the places index: load time, memory, reverse lookups, search latency. Run in release mode:
//     swift run -c release places-bench [path/to/places.bin]
// Prints numbers; asserts nothing. Compare figures from one run: the machines are shared and noisy.

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

// `places-bench --dump-search [index]`: prints every search query below with the places it finds (GeoNames ids, best
// first), plus every one-slip variant of the first 200 whole names and some with other limits and a region, instead
// of timings: run before and after a change to the search and compare the outputs (they must be identical).
// `places-bench --search-queries FILE [index]`: searches each line of FILE (limit 10) and prints the GeoNames ids found,
// best first, space-separated, one line a query (for scripts/analysis/search-evaluation.py), instead of benchmarking.
// It uses the search's public interface only, so this file builds in an older tree for the evaluation's old figures.
// `places-bench --name-points FILE [index]`: names each "latitude longitude" line of FILE and prints the GeoNames id
// of the place named, one a line (for scripts/analysis/naming-evaluation.py), instead of benchmarking.
var arguments = Array(CommandLine.arguments.dropFirst())
var pointsToName: String?
var queriesToSearch: String?
let dumpSearch = arguments.first == "--dump-search"
if dumpSearch { arguments.removeFirst() }
if arguments.first == "--name-points", arguments.count >= 2 {
    pointsToName = arguments[1]
    arguments.removeFirst(2)
}
if arguments.first == "--search-queries", arguments.count >= 2 {
    queriesToSearch = arguments[1]
    arguments.removeFirst(2)
}
let path = arguments.first ?? PlacesIndexLocation.find() ?? "data/places.bin"
/// Runs `body` on each line of the file at `path` (without its newline); exits when the file cannot be opened.
func forEachLine(of path: String, _ body: (String) -> Void) {
    guard let file = fopen(path, "r") else {
        print("places-bench: cannot open \(path)")
        exit(1)
    }
    var buffer: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&buffer, &capacity, file) > 0, let buffer {
        body(String(String(cString: buffer).split(separator: "\n", omittingEmptySubsequences: false)[0]))
    }
    free(buffer)
    fclose(file)
}
if let queriesToSearch {
    let search = CitySearch(index: try PlacesIndex(path: path))
    forEachLine(of: queriesToSearch) { query in
        print(search.search(query, limit: 10).map { String($0.place.id) }.joined(separator: " "))
    }
    exit(0)
}
if let pointsToName {
    let geocoder = ReverseGeocoder(index: try PlacesIndex(path: path))
    forEachLine(of: pointsToName) { line in
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        guard numbers.count == 2 else { return }
        print(geocoder.place(for: Coordinate(latitude: numbers[0], longitude: numbers[1]))?.place.id ?? -1)
    }
    exit(0)
}
print("places index: \(path)")

// Load: the first open (cold in this process) and the median of 200 more.
let rssBefore = ProcessMemory.residentBytes()
var start = now()
let index = try PlacesIndex(path: path)
let firstLoad = now() - start
let rssAfterLoad = ProcessMemory.residentBytes()
var loads: [Double] = []
for _ in 0..<200 {
    start = now()
    let again = try PlacesIndex(path: path)
    loads.append(now() - start)
    _ = again.count
}
loads.sort()
print(
    String(
        format: "load: first %.3f ms, median of 200 %.3f ms (%d places)",
        firstLoad * 1000, percentile(loads, 0.5) * 1000, index.count))
print(String(format: "resident memory added by load: %.2f MB", Double(rssAfterLoad - rssBefore) / 1e6))

// Reverse lookups over the whole sphere (uniform), then near places (within 5 km of a random place).
let geocoder = ReverseGeocoder(index: index)
var random = SplitMix64(seed: 42)
let total = 1_000_000
var points: [Coordinate] = []
points.reserveCapacity(total)
for _ in 0..<total {
    let z = Double.random(in: -1...1, using: &random)
    let longitude = Double.random(in: -180..<180, using: &random)
    points.append(Coordinate(latitude: asin(z) * 180 / .pi, longitude: longitude))
}
var checksum = 0
start = now()
for point in points { checksum &+= geocoder.place(for: point)?.index ?? 0 }
let sphere = now() - start
print(
    String(
        format: "reverse, uniform over the sphere: %.0f lookups/s, %.3f µs each (checksum %d)",
        Double(total) / sphere, sphere / Double(total) * 1e6, checksum))
let rssAfterSphere = ProcessMemory.residentBytes()

var nearPoints: [Coordinate] = []
nearPoints.reserveCapacity(total)
for _ in 0..<total {
    let place = index.place(at: Int.random(in: 0..<index.count, using: &random))!
    nearPoints.append(
        place.coordinate.destination(
            distance: Double.random(in: 0...5000, using: &random), bearing: Double.random(in: 0..<360, using: &random)))
}
start = now()
for point in nearPoints { checksum &+= geocoder.place(for: point)?.index ?? 0 }
let near = now() - start
print(
    String(
        format: "reverse, within 5 km of places: %.0f lookups/s, %.3f µs each (checksum %d)",
        Double(total) / near, near / Double(total) * 1e6, checksum))
start = now()
for point in nearPoints { checksum &+= geocoder.placeIndex(for: point) ?? 0 }
let nearIndexOnly = now() - start
print(
    String(
        format: "reverse, within 5 km of places, index only (no Place made): %.3f µs each (checksum %d)",
        nearIndexOnly / Double(total) * 1e6, checksum))
print(
    String(
        format: "resident memory after 3,000,000 lookups: %.2f MB above start (index pages touched)",
        Double(ProcessMemory.residentBytes() - rssBefore) / 1e6))
_ = rssAfterSphere

// Search: 1,000 queries of 2–5 letters, each a prefix of a random place's name, so most find something.
let search = CitySearch(index: index)
var queries: [String] = []
while queries.count < 1000 {
    let name = index.place(at: Int.random(in: 0..<index.count, using: &random))!.name
    let length = Int.random(in: 2...5, using: &random)
    let prefix = String(name.prefix(length))
    if prefix.count == length { queries.append(prefix) }
}
/// Prints `query`, `limit` and the GeoNames ids of what the search finds.
func dump(_ query: String, limit: Int = 10) {
    let ids = search.search(query, limit: limit).map { "\($0.place.id)\($0.matchedAlternateName ? "a" : "")" }
    print("\(query)\t\(limit)\t" + ids.joined(separator: " "))
}
/// Runs `queries` three times (the first warms the pages) and prints the last pass's median, p99 and max.
func measure(_ label: String, _ queries: [String]) {
    if dumpSearch {
        print("search, \(label):")
        queries.forEach { dump($0) }
        return
    }
    var latencies: [Double] = []
    var found = 0
    for _ in 0..<3 {
        latencies.removeAll(keepingCapacity: true)
        for query in queries {
            let start = now()
            let results = search.search(query)
            latencies.append(now() - start)
            found += results.count
        }
    }
    latencies.sort()
    print(
        "search, \(label): "
            + String(
                format: "median %.1f µs, p99 %.1f µs, max %.1f µs (%d found)",
                percentile(latencies, 0.5) * 1e6, percentile(latencies, 0.99) * 1e6,
                latencies.last! * 1e6, found / 3))
}
measure("1,000 queries of 2–5 letters", queries)
for length in 2...5 {
    measure(
        "the \(queries.filter { $0.count == length }.count) of \(length) letters",
        queries.filter { $0.count == length })
}

// Whole names of towns of 15,000 people or more, in ASCII letters, 6 letters or longer: as typed, with one slip
// (a letter left out, changed, added, or two swapped), and strings that name nothing.
var names: [String] = []
while names.count < 1000 {
    let place = index.place(at: Int.random(in: 0..<index.count, using: &random))!
    let folded = SearchKey.fold(place.name)
    if place.population >= 15_000, folded.count >= 6, folded.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) {
        names.append(folded)
    }
}
let letters = Array("abcdefghijklmnopqrstuvwxyz")
let slipped = names.map { name -> String in
    var characters = Array(name)
    let at = Int.random(in: 1..<(characters.count - 1), using: &random)
    switch Int.random(in: 0..<4, using: &random) {
    case 0: characters.remove(at: at)
    case 1: characters[at] = letters.filter { $0 != characters[at] }.randomElement(using: &random)!
    case 2: characters.insert(letters.randomElement(using: &random)!, at: at)
    default: characters.swapAt(at, at + 1)
    }
    return String(characters)
}
let nonsense = (0..<1000).map { _ in
    String((0..<Int.random(in: 6...10, using: &random)).map { _ in letters.randomElement(using: &random)! })
}
measure("1,000 whole names of 6+ letters", names)
measure("the same names with one slip", slipped)
measure("1,000 strings of 6–10 random letters", nonsense)
if !dumpSearch {
    // The first slip search of an opened index builds its filter of key starts: its one-time cost, as a user sees it.
    let fresh = CitySearch(index: try PlacesIndex(path: path))
    start = now()
    _ = fresh.search(slipped[0])
    let first = now() - start
    start = now()
    _ = fresh.search(slipped[0])
    print(
        String(
            format: "search, first slipped name on a newly opened index: %.2f ms, then %.1f µs",
            first * 1000, (now() - start) * 1e6))

    // A search answered as the daemon answers it on its socket: the request line read, the search, the PLACES line
    // written. Each part timed alone as well (medians of 20,000 after as many to warm up).
    let line = #"{"command":"search","query":"bern","id":7}"#
    func median(_ body: () throws -> Int) rethrows -> Double {
        var times: [Double] = []
        var checksum = 0
        for pass in 0..<2 {
            times.removeAll(keepingCapacity: true)
            for _ in 0..<20_000 {
                let start = now()
                checksum &+= try body()
                times.append(now() - start)
            }
            if pass == 0 { checksum = 0 }
        }
        times.sort()
        precondition(checksum != 0)
        return percentile(times, 0.5) * 1e6
    }
    let request = try ProtocolRequest.parse(line)
    let found = search.search("bern").map(\.place)
    let extra: [(String, JSONValue)] = [("query", .string("bern")), ("online", .string("off"))]
    let whole = try median {
        let request = try ProtocolRequest.parse(line)
        let query = try request.string("query")
        let places = search.search(query, limit: try request.integer("limit", default: 10, in: 1...50)).map(\.place)
        return ProtocolMessage.reply(ProtocolMessage.places(places, extra: extra), id: request.id).encodedLine().count
    }
    let parsing = try median { try ProtocolRequest.parse(line).id == nil ? 0 : 1 }
    let searching = median { search.search("bern").count }
    let encoding = median {
        ProtocolMessage.reply(ProtocolMessage.places(found, extra: extra), id: request.id).encodedLine().count
    }
    print(
        String(
            format: "search answer for \"bern\", as the socket gives it: %.2f µs (request read %.2f, search %.2f, "
                + "line written %.2f)", whole, parsing, searching, encoding))
}

if dumpSearch {
    print("every one-slip variant of 200 whole names:")
    for name in names.prefix(200) {
        let characters = Array(name)
        var variants: [String] = []
        for at in 0...characters.count {
            for letter in [" "] + letters {
                var added = characters
                added.insert(letter, at: at)
                variants.append(String(added))
                if at < characters.count, letter != characters[at] {
                    var changed = characters
                    changed[at] = letter
                    variants.append(String(changed))
                }
            }
            guard at < characters.count else { continue }
            var dropped = characters
            dropped.remove(at: at)
            variants.append(String(dropped))
            if at + 1 < characters.count {
                var swapped = characters
                swapped.swapAt(at, at + 1)
                variants.append(String(swapped))
            }
        }
        variants.forEach { dump($0) }
    }
    print("slipped names with other limits, and narrowed by a region or country:")
    for (number, query) in slipped.enumerated() {
        dump(query, limit: [1, 3, 24, 25, 60][number % 5])
        dump(query + ", " + ["us", "de", "fr", "california", "i"][number % 5])
    }
}
