import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A GPS receiver on a pseudo-terminal: gpsd opens the terminal's device as it would a USB receiver, and the
/// benchmark writes NMEA epochs (GGA and RMC, as the shipped drives have them) into the other end, at its own pace.
final class Receiver {
    let device: String
    private let controller: Int32
    /// The device end kept open here too, so the terminal lives while gpsd reopens it.
    private let keeper: Int32
    /// Epochs written so far: each one is a second of receiver time later than the one before.
    private(set) var epochs = 0

    init() {
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // posix_openpt, unlockpt and ptsname, as the kernel offers them (TIOCSPTLCK and TIOCGPTN of
        // <asm-generic/ioctls.h>; Glibc's module has neither the functions nor the macros).
        guard controller >= 0, ioctl(controller, 0x4004_5431, &unlock) == 0, ioctl(controller, 0x8004_5430, &number) == 0
        else {
            fatalError("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        device = "/dev/pts/\(number)"
        keeper = open(device, O_RDWR | O_NOCTTY | O_CLOEXEC)
        var settings = termios()
        tcgetattr(keeper, &settings)
        cfmakeraw(&settings)
        tcsetattr(keeper, TCSANOW, &settings)
    }

    deinit {
        close(controller)
        close(keeper)
    }

    /// How a receiver moves from one epoch to the next.
    enum Motion {
        /// Parked in Bern (the same position every epoch, as a receiver at rest reports it).
        case stationary
        /// Driving from Adelboden towards Frutigen and beyond at 90 km/h, a new place every few epochs.
        case moving
    }

    /// Writes `count` epochs, one every `interval`, and returns when the last is written.
    func send(_ count: Int, _ motion: Motion, interval: Duration) {
        var next = ContinuousClock.now
        for _ in 0..<count {
            let (latitude, longitude): (Double, Double)
            switch motion {
            case .stationary:
                (latitude, longitude) = (46.9480, 7.4474)
            case .moving:
                // 25 m a second north-east; over a degree of latitude the road starts again from Adelboden.
                let metres = Double(epochs % 4_000) * 25
                (latitude, longitude) = (46.4929 + metres / 111_000 * 0.7, 7.5607 + metres / 76_000 * 0.7)
            }
            let bytes = Array(Self.epoch(epochs, latitude: latitude, longitude: longitude).utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { fatalError("writing the receiver: \(String(cString: strerror(errno)))") }
                written += count
            }
            epochs += 1
            next = next + interval
            let wait = ContinuousClock.now.duration(to: next)
            if wait > .zero { Thread.sleep(forTimeInterval: elapsedMilliseconds(wait) / 1000) }
        }
    }

    /// GGA and RMC for epoch `index` (receiver time 1 January 2026 plus `index` seconds).
    static func epoch(_ index: Int, latitude: Double, longitude: Double) -> String {
        let seconds = index % 86_400
        let day = 1 + index / 86_400
        let time = String(format: "%02d%02d%02d.00", seconds / 3600, seconds / 60 % 60, seconds % 60)
        let date = String(format: "%02d0126", day)
        let lat = String(format: "%02d%07.4f", Int(latitude), (latitude - Double(Int(latitude))) * 60)
        let lon = String(format: "%03d%07.4f", Int(longitude), (longitude - Double(Int(longitude))) * 60)
        let gga = "GPGGA,\(time),\(lat),N,\(lon),E,1,08,0.9,545.4,M,46.9,M,,"
        let rmc = "GPRMC,\(time),A,\(lat),N,\(lon),E,48.6,45.0,\(date),,,A"
        return sentence(gga) + sentence(rmc)
    }

    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + String(format: "*%02X\r\n", sum)
    }
}
