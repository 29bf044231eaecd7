import SketchwiseNN

/// One model of a models folder as the registry lists it: what it is, which files, which
/// checksum, and the roles it is active in.
public struct RegisteredModel: Sendable, Equatable, Encodable {
    /// Where a model comes from.
    public enum Source: String, Sendable, Codable {
        /// The models folder shipped with Sketchwise.
        case bundled
        /// Another models folder.
        case local
        /// Imported at install time, such as the photo model.
        case fetched
        /// Downloaded into the model store.
        case hosted
    }

    /// What a model's files are to the server now.
    public enum Status: String, Sendable, Codable {
        /// It serves under its name.
        case active
        /// A bundled model that a downloaded version replaces for now.
        case fallback
        /// The version ``ModelStore/rollback(_:)`` goes back to.
        case previous
        /// Downloaded, neither serving nor the previous version.
        case installed
    }

    /// A job a model does while it is active.
    public enum Role: String, Sendable, Codable {
        /// The raster recogniser (`raster-cnn`).
        case raster
        /// The stroke recogniser (`stroke-rnn`).
        case strokes
        /// The shortcuts' embedding (`sketch-embedding`, else `raster-cnn`).
        case embedding
        /// A member of `ensemble.json`.
        case ensemble
        /// The photo model of `POST /api/photo`.
        case photo
    }

    /// What a model reads.
    public enum Input: String, Sendable, Codable {
        /// A rendered drawing.
        case raster
        /// A stroke sequence.
        case strokes
        /// A photo.
        case image

        /// The input of a model spec's kind.
        public init(_ kind: InputSpec.Kind) {
            switch kind {
            case .raster: self = .raster
            case .strokes: self = .strokes
            case .image: self = .image
            }
        }
    }

    public let name: String
    public let version: String
    /// SHA-256 of the weights file (`<name>.safetensors`), hexadecimal.
    public let sha256: String
    /// Bytes of the spec and the weights together.
    public let size: Int
    public let input: Input
    /// The labels it answers (0 for an embedding-only model).
    public let labels: Int
    public let source: Source
    public let status: Status
    /// The roles it serves now (none unless it is ``Status/active``).
    public let roles: [Role]
}
