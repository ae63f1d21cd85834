/// Breeze's version, written here and nowhere else: breezed, breezectl and the socket's `VERSION` read it from here;
/// `scripts/version` reads it for the Makefile (the man pages' headers), make-deb (the package's name, checked against
/// the changelog's top entry) and check-deb.
public enum Release {
    public static let version = "0.1.0"
}
