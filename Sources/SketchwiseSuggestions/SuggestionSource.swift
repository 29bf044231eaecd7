import SketchwiseLibrary

/// Where a suggested picture comes from: a source of the local library, or the web image search.
/// Written as one string, the library source's name (`clipart`, `emoji`, `openmoji`, `lucide`, `tabler`, `doodle`)
/// or `web`.
public enum SuggestionSource: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    /// A picture of the library's index.
    case library(LibrarySource)
    /// A picture found by the web image search (``WebImageSearchProvider``).
    case web

    /// `web`, the one source outside the library.
    private static let webName = "web"

    public init?(rawValue: String) {
        if rawValue == Self.webName {
            self = .web
        } else if let source = LibrarySource(rawValue: rawValue) {
            self = .library(source)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case let .library(source): source.rawValue
        case .web: Self.webName
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let source = Self(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown picture source '\(name)'"))
        }
        self = source
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
