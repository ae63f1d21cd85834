import BreezeCore

/// A place named for a position, and how far the position is from the place's centre.
public struct PlaceMatch: Hashable, Sendable {
    public var place: Place
    /// Metres from the position to the place's centre.
    public var distance: Double
    /// The place's position in its index.
    public var index: Int
}

/// Names positions with the places index: position → "City, Country", offline, in about a microsecond.
///
/// A branch-and-bound search over the index's k-d tree finds exactly the place that `PlaceNamingRule` picks
/// among all places (not an approximation): each tree node carries the largest weight below it, which (with the
/// node's box) bounds how well anything inside could score.
public struct ReverseGeocoder: Sendable {
    public let index: PlacesIndex

    public init(index: PlacesIndex) {
        self.index = index
    }

    /// The place to name for `coordinate`; nil only for an index with no places. Far from any place (open sea,
    /// desert), the answer is still the best place, with its distance so a caller can say "near X".
    public func place(for coordinate: Coordinate) -> PlaceMatch? {
        guard let found = bestIndex(for: PlaceNamingRule.unitVector(coordinate)) else { return nil }
        return match(placeIndex: found, coordinate: coordinate)
    }

    /// The index of the place to name for `coordinate`, without making its `Place`: for callers that only need to
    /// know whether the answer changed.
    public func placeIndex(for coordinate: Coordinate) -> Int? {
        bestIndex(for: PlaceNamingRule.unitVector(coordinate))
    }

    /// The same answer found by scoring every candidate: the check for the tree search.
    public func placeByScanning(for coordinate: Coordinate) -> PlaceMatch? {
        guard let found = bestIndexByScanning(for: PlaceNamingRule.unitVector(coordinate)) else { return nil }
        return match(placeIndex: found, coordinate: coordinate)
    }

    /// True when the place at `placeIndex` is a city section: it never names a position itself.
    public func isSection(_ placeIndex: Int) -> Bool {
        guard placeIndex >= 0, placeIndex < index.count else { return false }
        guard placeIndex < index.treePoints.count else { return true }
        return index.f32(index.treePoints.offset + placeIndex * PlacesIndexFormat.treePointSize + 12) < 0
    }

    /// The place a city section names (its city), or nil for a place of its own or a section without a city.
    public func sectionCity(_ placeIndex: Int) -> Int? {
        guard isSection(placeIndex), placeIndex < index.treePoints.count else { return nil }
        let city = index.u32(index.sectionCities.offset + placeIndex * 4)
        return city == PlacesIndexFormat.noPlace ? nil : Int(city)
    }

    func match(placeIndex: Int, coordinate: Coordinate) -> PlaceMatch? {
        guard let place = index.place(at: placeIndex) else { return nil }
        return PlaceMatch(place: place, distance: coordinate.distance(to: place.coordinate), index: placeIndex)
    }

    /// The index of the best place for the unit vector `q`.
    func bestIndex(for q: SIMD3<Float>) -> Int? {
        withExtendedLifetime(index) {
            TreeView(index).bestPlace(for: q).map(Int.init)
        }
    }

    /// The same answer by scoring every point of the tree.
    func bestIndexByScanning(for q: SIMD3<Float>) -> Int? {
        withExtendedLifetime(index) {
            let tree = TreeView(index)
            var best = (key: Double.infinity, place: UInt32.max)
            for point in 0..<tree.pointCount { tree.consider(point, query: q, best: &best) }
            return best.place == .max ? nil : Int(best.place)
        }
    }
}

/// Raw pointers into the mapped tree, so the search loop reads memory directly, with no reference counting.
/// Valid only while its index is alive (callers hold it with `withExtendedLifetime`).
private struct TreeView {
    let nodes: UnsafeRawPointer
    let nodeCount: Int
    let points: UnsafeRawPointer
    let pointCount: Int
    let sectionCities: UnsafeRawPointer
    let depth: Int?
    let scales = PlaceNamingRule.Scales()

    init(_ index: PlacesIndex) {
        nodes = index.file.base + index.tree.offset
        nodeCount = index.tree.count
        points = index.file.base + index.treePoints.offset
        pointCount = index.treePoints.count
        sectionCities = index.file.base + index.sectionCities.offset
        depth = index.treeDepth
    }

    @inline(__always) private func f32(_ base: UnsafeRawPointer, _ offset: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    func bestPlace(for q: SIMD3<Float>) -> UInt32? {
        var best = (key: Double.infinity, place: UInt32.max)
        guard let depth else { return nil }  // a damaged file: the tree does not fit its points
        if depth == 0 {
            for point in 0..<pointCount { consider(point, query: q, best: &best) }
            return best.place == .max ? nil : best.place
        }
        // Entries are (node, bound); the depth of the tree bounds the stack (one pending sibling a level).
        return withUnsafeTemporaryAllocation(of: (node: Int, bound: Double).self, capacity: 64) { stack in
            stack[0] = (0, -.infinity)
            var top = 1
            while top > 0 {
                top -= 1
                let (node, nodeBound) = stack[top]
                if nodeBound > best.key { continue }
                let level = Int.bitWidth - 1 - (node + 1).leadingZeroBitCount
                let at = node * PlacesIndexFormat.treeNodeSize
                let leftBound = bound(summaryAt: at, query: q)
                let rightBound = bound(summaryAt: at + PlacesIndexFormat.treeNodeSize / 2, query: q)
                let leftChild = 2 * node + 1
                let nearer = leftBound <= rightBound ? (leftChild, leftBound) : (leftChild + 1, rightBound)
                let farther = leftBound <= rightBound ? (leftChild + 1, rightBound) : (leftChild, leftBound)
                if level + 1 == depth {
                    // Children are leaves: scan the nearer one first, then the other if it can still win.
                    if nearer.1 <= best.key { scanLeaf(nearer.0, depth: depth, query: q, best: &best) }
                    if farther.1 <= best.key { scanLeaf(farther.0, depth: depth, query: q, best: &best) }
                } else if top + 2 <= 64 {
                    // Push the less promising child first so the better one is searched first.
                    if farther.1 <= best.key {
                        stack[top] = farther
                        top += 1
                    }
                    if nearer.1 <= best.key {
                        stack[top] = nearer
                        top += 1
                    }
                }
            }
            return best.place == .max ? nil : best.place
        }
    }

    @inline(__always)
    private func scanLeaf(_ node: Int, depth: Int, query q: SIMD3<Float>, best: inout (key: Double, place: UInt32)) {
        let position = node + 1 - (1 << depth)
        let low = TreeBuilder.firstPoint(level: depth, position: position, count: pointCount)
        let high = TreeBuilder.firstPoint(level: depth, position: position + 1, count: pointCount)
        var point = low
        while point < high {
            consider(point, query: q, best: &best)
            point += 1
        }
    }

    @inline(__always)
    func consider(_ point: Int, query q: SIMD3<Float>, best: inout (key: Double, place: UInt32)) {
        let at = point * PlacesIndexFormat.treePointSize
        let dx = f32(points, at) - q.x
        let dy = f32(points, at + 4) - q.y
        let dz = f32(points, at + 8) - q.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        let weight = f32(points, at + 12)
        let key = PlaceNamingRule.key(chord: chord, weight: abs(weight), scales: scales)
        guard key <= best.key else { return }
        // The i-th point is place i; a section (negative weight) names its city.
        let place =
            weight < 0
            ? UInt32(littleEndian: sectionCities.loadUnaligned(fromByteOffset: point * 4, as: UInt32.self))
            : UInt32(point)
        if key < best.key || place < best.place {
            best = (key, place)
        }
    }

    /// The smallest key any point in a child's box could have. Scalar on purpose: SIMD3's `pointwiseMax` is not
    /// inlined here and cost a fifth of the search.
    @inline(__always)
    private func bound(summaryAt at: Int, query q: SIMD3<Float>) -> Double {
        let gx = max(0, max(f32(nodes, at) - q.x, q.x - f32(nodes, at + 12)))
        let gy = max(0, max(f32(nodes, at + 4) - q.y, q.y - f32(nodes, at + 16)))
        let gz = max(0, max(f32(nodes, at + 8) - q.z, q.z - f32(nodes, at + 20)))
        let chord = (gx * gx + gy * gy + gz * gz).squareRoot()
        return PlaceNamingRule.bound(chord: chord, maxWeight: f32(nodes, at + 24), scales: scales)
    }
}
