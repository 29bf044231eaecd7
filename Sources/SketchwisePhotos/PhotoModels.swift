import Foundation
import SketchwiseInstallation

/// Where the photo model and its label table are. The model is not in the source tree: its
/// weights are fetched and imported at install time (`scripts/fetch-photo-model.sh`).
public enum PhotoModels {
    /// The model `sketchwise photo` and the server use unless told otherwise.
    public static let defaultName = "efficientnet-lite0"

    /// `$SKETCHWISE_PHOTO_MODELS`, else the installation's `share/sketchwise/photo-models`, else
    /// `/usr/local/share/sketchwise/photo-models`.
    public static var folder: URL { InstalledResource.fetchedFolder("photo-models") }

    /// The spec of the default photo model in ``folder``.
    public static var defaultSpec: URL { folder.appendingPathComponent("\(defaultName).json") }

    /// The ImageNet → drawing class table of the installed tables (`imagenet-classes.tsv`).
    public static func labelMapping() throws -> PhotoLabelMapping {
        try PhotoLabelMapping(contentsOf: try InstalledResource.tables.folder().appendingPathComponent("imagenet-classes.tsv"))
    }
}
