extension ProcessEnvironment {
    /// Environment variables by name: the process's own, each read when it is asked for, or a fixed set (a test's).
    ///
    /// Read a name at a time rather than copied whole: a short-lived program such as breezectl reads a handful of
    /// names, and building a dictionary of the whole environment cost it more than all of them.
    public struct Variables: Sendable, ExpressibleByDictionaryLiteral {
        /// nil: the process's environment.
        private let fixed: [String: String]?

        /// The process's environment (`getenv`), read as each name is asked for.
        public static let process = Variables(fixed: nil)

        private init(fixed: [String: String]?) {
            self.fixed = fixed
        }

        /// Exactly `variables`, whatever the process's environment holds.
        public init(_ variables: [String: String]) {
            fixed = variables
        }

        /// Exactly these variables; of a name given twice, the first.
        public init(dictionaryLiteral elements: (String, String)...) {
            fixed = Dictionary(elements, uniquingKeysWith: { first, _ in first })
        }

        /// The variable `name`, or nil when it is not set.
        public subscript(name: String) -> String? {
            if let fixed { return fixed[name] }
            return ProcessEnvironment.variable(name)
        }
    }
}
