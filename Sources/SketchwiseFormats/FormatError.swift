import SketchwiseCore

/// A problem with an input file, with where it was found.
public struct FormatError: Error, Sendable, CustomStringConvertible, Equatable {
    /// File path (or a name standing for the input).
    public var file: String
    /// 1-based line (ndjson, Omniglot text) or record number, when it applies.
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
