import Foundation
import Logging
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

@testable import SketchwiseServing

/// The child index build as the server runs it, with a script in place of `sketchwise`: a child
/// that crashes once is run again, one that keeps crashing or fails is reported with its reason,
/// and a cancelled build stops its child or never starts it.
@Suite struct LibraryReindexerTests {
    let folder = TemporaryFolder()
    let models = RecognizerSet(folder: SharedData.packageRoot.appendingPathComponent("Models"))
    /// The index the reindexer builds.
    var database: String { folder.url.appendingPathComponent("library.sqlite").path }

    /// A reindexer whose child is a shell script: `body` runs after the script notes its run in `runs`.
    func reindexer(_ body: String) throws -> (LibraryReindexer, runs: URL) {
        let runs = folder.url.appendingPathComponent("runs"), script = folder.url.appendingPathComponent("child.sh")
        try "#!/bin/sh\necho run >> '\(runs.path)'\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let reindexer = LibraryReindexer(
            executable: script, sources: [.doodle], locations: LibraryLocations(), logger: Logger(label: "test"))
        return (reindexer, runs)
    }

    func runCount(_ runs: URL) throws -> Int { try String(contentsOf: runs, encoding: .utf8).split(separator: "\n").count }

    /// Script lines that write the head of a Swift crash report and the library list, then crash.
    let crash = """
        echo 'indexed 1/2' >&2
        echo '*** Program crashed: Bad pointer dereference at 0x0000000000000008 ***' >&2
        echo 'Thread 1 crashed:' >&2
        echo '0 0x00007f81 in rsvg_handle_render_document at librsvg' >&2
        for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "0x7f8100$i libfoo.so" >&2; done
        kill -SEGV $$
        """

    @Test func aChildThatCrashesOnceIsRunAgainAndGoesOn() async throws {
        let marker = folder.url.appendingPathComponent("crashed-once").path
        let (reindexer, runs) = try reindexer("[ -e '\(marker)' ] && exit 0\ntouch '\(marker)'\n\(crash)")
        let done = ProgressCounter()
        try await reindexer.build(at: database, recognizers: models) { n, _ in done.add(n) }
        #expect(try runCount(runs) == 2)
        #expect(done.total == 1, "the crashed run's progress was passed on")
    }

    @Test func aChildThatKeepsCrashingIsReportedWithTheHeadOfItsCrash() async throws {
        let (reindexer, runs) = try reindexer(crash)
        let error = await #expect(throws: LibraryError.self) {
            try await reindexer.build(at: database, recognizers: models) { _, _ in }
        }
        let message = try #require(error).description
        #expect(message.contains("died of signal 11"), "\(message)")
        #expect(message.contains("Program crashed: Bad pointer dereference"), "\(message)")
        #expect(message.contains("rsvg_handle_render_document"), "the crashed thread's frames: \(message)")
        #expect(try runCount(runs) == 2, "run twice, then reported")
    }

    @Test func aChildThatFailsIsReportedWithoutARetry() async throws {
        let (reindexer, runs) = try reindexer("echo 'no such model' >&2\nexit 3")
        let error = await #expect(throws: LibraryError.self) {
            try await reindexer.build(at: database, recognizers: models) { _, _ in }
        }
        let message = try #require(error).description
        #expect(message.contains("exited with 3") && message.contains("no such model"), "\(message)")
        #expect(try runCount(runs) == 1)
    }

    @Test func aBuildCancelledBeforeItsChildStartsNeverStartsIt() async throws {
        let (reindexer, runs) = try reindexer("sleep 30")
        let build = Task {
            // Cancelled while it waits here, before the child is started.
            while !Task.isCancelled { await Task.yield() }
            try await reindexer.build(at: database, recognizers: models) { _, _ in }
        }
        build.cancel()
        await #expect(throws: CancellationError.self) { try await build.value }
        #expect(!FileManager.default.fileExists(atPath: runs.path), "the child ran")
    }

    @Test func aBuildCancelledWhileItsChildRunsStopsIt() async throws {
        let marker = { (name: String) in self.folder.url.appendingPathComponent(name).path }
        // The child notes that it started, then that it was stopped or that it ran to its end.
        let (reindexer, _) = try reindexer(
            """
            trap 'kill $!; touch "\(marker("stopped"))"; exit 1' TERM
            touch "\(marker("started"))"
            sleep 30 & wait $!
            touch "\(marker("ended"))"
            """)
        let build = Task { try await reindexer.build(at: database, recognizers: models) { _, _ in } }
        while !FileManager.default.fileExists(atPath: marker("started")) { try await Task.sleep(for: .milliseconds(10)) }
        build.cancel()
        await #expect(throws: CancellationError.self) { try await build.value }
        #expect(FileManager.default.fileExists(atPath: marker("stopped")))
        #expect(!FileManager.default.fileExists(atPath: marker("ended")))
    }
}

/// Progress calls counted from the child's reading thread.
private final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ done: Int) { lock.withLock { count += done } }
    var total: Int { lock.withLock { count } }
}
