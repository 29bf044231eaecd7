/// Why a photo could not be used, with a message for the person who sent it.
public struct PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Not a PNG or JPEG file.
        case unsupportedFormat
        /// More bytes or pixels than the limits allow.
        case tooLarge
        /// A PNG or JPEG that cannot be decoded (cut off, corrupt, no pixels).
        case unreadable
        /// A model that does not classify photos.
        case wrongModel
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// How big a photo may be. Both are checked before any pixel is decoded.
public struct PhotoLimits: Sendable, Equatable {
    /// Bytes of the file.
    public var maximumBytes: Int
    /// Width × height as the file's header declares them.
    public var maximumPixels: Int

    public init(maximumBytes: Int = 12 << 20, maximumPixels: Int = 50_000_000) {
        self.maximumBytes = maximumBytes
        self.maximumPixels = maximumPixels
    }
}
