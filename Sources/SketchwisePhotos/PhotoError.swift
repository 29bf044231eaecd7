/// Why a photo could not be used, with a message for the person who sent it.
public struct PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Not a PNG or JPEG file, or a JPEG of a kind photos are not (arithmetic-coded, lossless).
        case unsupportedFormat
        /// More bytes, pixels, scans or decoding memory than the limits allow, a side too long or
        /// a shape too elongated (see ``PhotoLimits``), or a decode stopped at its deadline.
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
