import Foundation

/// scikit-image's sample photos (chelsea.png is a cat, coffee.png a cup of coffee…), which
/// `scripts/install-deps.sh --test` unpacks from its PyPI wheel: `$SKETCHWISE_TEST_PHOTOS`, else
/// `/usr/local/share/sketchwise/test-photos/scikit-image`. Tests that need them are skipped, with
/// a message, when they are absent; so are those that need the photo model, which
/// `scripts/fetch-photo-model.sh` installs.
public enum SamplePhotos {
    public static let folder: URL = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["SKETCHWISE_TEST_PHOTOS"]
            ?? "/usr/local/share/sketchwise/test-photos/scikit-image")

    /// The photo `name` (`chelsea.png`).
    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: url("chelsea.png").path) }

    public static var skipMessage: String {
        "skipped: scikit-image's sample photos not found at \(folder.path) (scripts/install-deps.sh --test installs them)"
    }
}
