import Foundation
import SketchwiseInstallation
import SketchwiseNN

extension RecognizerSet {
    /// Loads from `folder`, or from the bundled models of the installation (see
    /// ``InstalledResource/models``: `$SKETCHWISE_MODELS`, `PREFIX/share/sketchwise/models`, or the
    /// source tree's `Models`), with dense layers in `densePrecision`.
    public static func load(folder: String?, densePrecision: DensePrecision = .float32) throws -> RecognizerSet {
        if let folder { return try load(from: URL(fileURLWithPath: folder), densePrecision: densePrecision) }
        do {
            return try load(from: try InstalledResource.models.folder(), densePrecision: densePrecision)
        } catch let missing as MissingResource {
            throw RecognitionError("\(missing); or name the models folder (the CLI's --models DIR)")
        }
    }
}
