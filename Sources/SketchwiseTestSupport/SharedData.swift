import Foundation

/// The project's shared data folder (`../shared/data` beside the package, or
/// `$SKETCHWISE_SHARED_DATA`). Tests that need it are skipped, with a message, when it is absent.
public enum SharedData {
    /// The package root, found from this file's location.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["SKETCHWISE_SHARED_DATA"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    }()

    /// Whether the Quick, Draw! data is there.
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: quickDraw("categories.txt").path)
    }

    /// Why data tests were skipped, for the test report.
    public static var skipMessage: String {
        "skipped: shared data not found at \(root.path) (set SKETCHWISE_SHARED_DATA or place ../shared/data beside the package)"
    }

    public static func quickDraw(_ relative: String) -> URL {
        root.appendingPathComponent("quickdraw").appendingPathComponent(relative)
    }

    public static func omniglot(_ relative: String) -> URL {
        root.appendingPathComponent("omniglot").appendingPathComponent(relative)
    }
}

/// A fresh temporary folder, removed when the value is released.
public final class TemporaryFolder: Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sketchwise-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
