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

    /// Runs the child; one that crashes (dies of a signal) runs once more, logged with the head of
    /// its crash report: what it indexed is kept, so the second run goes on from there.
    private func buildInChild(
        _ executable: URL, path: String, recognizers: RecognizerSet, threads: Int, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws {
        let arguments = arguments(path: path, recognizers: recognizers, threads: threads)
        for attempt in 1...2 {
            let (status, reason, output) = try await runChild(executable, arguments: arguments, progress: progress)
            if status == 0 { return }
            let failure = "the index build (\(executable.lastPathComponent) index build) "
                + (reason == .uncaughtSignal ? "died of signal \(status)" : "exited with \(status)")
            guard reason == .uncaughtSignal, attempt == 1 else {
                throw LibraryError("\(failure): \(output.crashReport.isEmpty ? output.text : output.crashReport)")
            }
            logger.warning("\(failure); building again from where it stopped", metadata: ["crash": "\(output.crashReport)"])
        }
    }

    /// One run of the child: its exit status or signal, and what it wrote to standard error.
    private func runChild(_ executable: URL, arguments: [String], progress: @escaping @Sendable (Int, Int) -> Void) async throws
        -> (Int32, Process.TerminationReason, LastLines)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let lastLines = LastLines()
        @Sendable func consume(_ data: Data) {
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
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { consume(data) }
        }
        let child = CancellableChild(process)
        let status: Int32 = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    guard try child.start() else { throw CancellationError() }
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            child.cancel()
        }
        // What the child wrote just before it ended may not have reached the handler yet.
        errors.fileHandleForReading.readabilityHandler = nil
        consume(errors.fileHandleForReading.readDataToEndOfFile())
        try Task.checkCancellation()
        return (status, process.terminationReason, lastLines)
    }
}

/// A child process whose task may be cancelled before it starts as well as while it runs:
/// cancelled first, it never starts (a server that cannot listen would otherwise wait for a
/// whole index build to end); cancelled later, it is terminated.
private final class CancellableChild: @unchecked Sendable {
    private let lock = NSLock()
    private let process: Process
    private var cancelled = false

    init(_ process: Process) {
        self.process = process
    }

    /// Starts the process, unless it was cancelled already (then false).
    func start() throws -> Bool {
        try lock.withLock {
            guard !cancelled else { return false }
            try process.run()
            return true
        }
    }

    /// Terminates the process if it runs, and keeps it from starting if it does not yet.
    func cancel() {
        lock.withLock {
            cancelled = true
            if process.isRunning { process.terminate() }
        }
    }
}
