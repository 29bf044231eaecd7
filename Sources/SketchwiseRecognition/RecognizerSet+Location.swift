import Foundation
import SketchwiseInstallation

extension RecognizerSet {
    /// Loads from `folder`, or from the bundled models of the installation (see
    /// ``InstalledResource/models``: `$SKETCHWISE_MODELS`, `PREFIX/share/sketchwise/models`, or the
    /// source tree's `Models`).
    public static func load(folder: String?) throws -> RecognizerSet {
        if let folder { return try load(from: URL(fileURLWithPath: folder)) }
        do {
            return try load(from: try InstalledResource.models.folder())
        } catch let missing as MissingResource {
            throw RecognitionError("\(missing); or pass --models DIR")
        }
    }
}
