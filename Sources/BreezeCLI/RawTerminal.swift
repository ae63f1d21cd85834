import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal in raw mode on the alternate screen, for the interactive search: keys arrive one by one, unechoed,
/// Ctrl-C as a byte rather than a signal; `restore` puts back the settings it found, exactly, and the screen.
final class RawTerminal {
    /// Where keys come from and where the screen goes.
    let input: Int32 = 0
    let output: Int32 = 1
    private let original: termios
    private var restored = false

    /// Saves the terminal's settings, then switches to raw mode and the alternate screen. Wraps `tcgetattr` and
    /// `tcsetattr`.
    init() throws(CLIError) {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else {
            throw CLIError(.failure, "cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        original = settings
        var raw = settings
        // As cfmakeraw, but output processing kept: the screen is written with "\r\n" anyway, and a message
        // printed after leaving still gets its carriage returns.
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON | INLCR | IGNCR)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        guard retryingOnInterrupt({ tcsetattr(input, TCSAFLUSH, &raw) }) == 0 else {
            throw CLIError(.failure, "cannot put the terminal in raw mode: \(String(cString: strerror(errno)))")
        }
        // The alternate screen, cleared: what was on the terminal comes back on leaving.
        write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J")
    }

    deinit {
        restore()
    }

    /// Leaves the alternate screen and puts back the settings found at the start; once, whatever calls it first.
    func restore() {
        guard !restored else { return }
        restored = true
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        var settings = original
        _ = retryingOnInterrupt { tcsetattr(input, TCSADRAIN, &settings) }
    }

    /// The terminal's size in columns and rows (80 × 24 when it does not say). Wraps the `TIOCGWINSZ` ioctl.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Writes all of `text`.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = retryingOnInterrupt {
                bytes[written...].withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            }
            guard count > 0 else { return }
            written += count
        }
    }
}
