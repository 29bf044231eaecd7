import Foundation
import Logging
import SketchwiseLibrary
import SketchwiseRecognition

/// Builds a library index for a raster model away from the server's own memory: in a child
/// `sketchwise index build` process when the executable is known, else on a background thread
/// with one worker. The index being replaced keeps serving until the new one is complete.
package struct LibraryReindexer: Sendable {
    /// The `sketchwise` executable; nil builds in this process.
    let executable: URL?
    let sources: Set<LibrarySource>
    let locations: LibraryLocations
    let logger: Logger

    /// Builds or updates the index at `path` with the raster model of `recognizers` on `threads`
    /// threads, calling `progress(done, total)` as pictures are embedded. Cancelling the task
    /// stops the child.
    package func build(
        at path: String, recognizers: RecognizerSet, threads: Int = 1, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws {
        if let executable {
            try await buildInChild(executable, path: path, recognizers: recognizers, threads: threads, progress: progress)
        } else {
            try await Task.detached(priority: .background) {
                var builder = IndexBuilder(sources: sources, locations: locations)
                builder.threads = threads
                let embedder = try PictureEmbedder(recognizer: try recognizers.raster)
                _ = try builder.build(into: try LibraryDatabase(path: path), embedder: embedder) { progress($0.done, $0.total) }
            }.value
        }
    }

    /// The command line of the child: the folder of exactly the raster model `recognizers` use
    /// (bundled or a downloaded version), and the server's library sources.
    func arguments(path: String, recognizers: RecognizerSet, threads: Int) -> [String] {
        ["index", "build", "--db", path, "--models", recognizers.folder(of: RecognizerSet.rasterModel).path, "--no-model-store",
         "--threads", "\(threads)", "--sources", sources.map(\.rawValue).sorted().joined(separator: ","),
         "--clipart-dir", locations.clipartFolder.path, "--emoji-font", locations.emojiFont.path,
         "--openmoji-dir", locations.openmojiFolder.path, "--lucide-dir", locations.lucideFolder.path,
         "--tabler-dir", locations.tablerFolder.path, "--doodle-dir", locations.doodleFolder.path]
    }

    private func buildInChild(
        _ executable: URL, path: String, recognizers: RecognizerSet, threads: Int, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments(path: path, recognizers: recognizers, threads: threads)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let lastLines = LastLines()
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: " ")
                if parts.count == 2, parts[0] == "indexed" {
                    let numbers = parts[1].split(separator: "/").compactMap { Int($0) }
                    if numbers.count == 2 { progress(numbers[0], numbers[1]) }
                } else {
                    lastLines.add(String(line))
                }
            }
        }
        let status: Int32 = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            if process.isRunning { process.terminate() }
        }
        errors.fileHandleForReading.readabilityHandler = nil
        try Task.checkCancellation()
        guard status == 0 else {
            throw LibraryError("the index build (\(executable.lastPathComponent) index build) exited with \(status): \(lastLines.text)")
        }
    }
}
