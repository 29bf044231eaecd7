import Foundation

extension RecognizerSet {
    /// Where the bundled models are looked for, in order: `$SKETCHWISE_MODELS`, `./Models`, and
    /// `Models` beside the package the executable was built in (`.build/<config>/sketchwise`).
    public static var defaultFolders: [URL] {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["SKETCHWISE_MODELS"] {
            folders.append(URL(fileURLWithPath: override))
        }
        folders.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Models"))
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            folders.append(folder.appendingPathComponent("Models"))
        }
        return folders
    }

    /// Loads from `folder`, or from the first of ``defaultFolders`` that holds `ensemble.json`.
    public static func load(folder: String?) throws -> RecognizerSet {
        if let folder { return try load(from: URL(fileURLWithPath: folder)) }
        guard let found = defaultFolders.first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("ensemble.json").path) }) else {
            throw RecognitionError("no models found in \(defaultFolders.map(\.path).joined(separator: ", ")); pass --models DIR or set SKETCHWISE_MODELS")
        }
        return try load(from: found)
    }
}
