/// Why the library or its index cannot be used: a clear message for people.
public struct LibraryError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
