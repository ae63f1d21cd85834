import BreezeCore
import BreezeGPSD

/// gpsd's byte stream: split into lines as the connection does, each line through one fix filter, as a session
/// would see them. Every fix that comes out must be a position on the Earth with sane fields.
enum GPSDFuzzing {
    static func feed(_ bytes: [UInt8]) {
        var framer = GPSDLineFramer()
        var filter = FixFilter()
        for line in framer.append(bytes) {
            guard case .fix(let fix)? = filter.event(forLine: line, source: .gpsd) else { continue }
            let latitude = fix.coordinate.latitude
            let longitude = fix.coordinate.longitude
            guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
                fix.horizontalAccuracy.map({ $0.isFinite && $0 >= 0 }) ?? true
            else { fatalError("an impossible fix got through: \(fix)") }
        }
    }
}
