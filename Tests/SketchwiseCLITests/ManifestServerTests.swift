import Foundation
import SketchwiseModels
import SketchwiseTestSupport
import Testing
@testable import sketchwise

/// `sketchwise models serve`'s ``ManifestServer`` on a real local port, with the model manager
/// downloading from it (the faults are tested end to end in Tests/Browser/test_models.py).
@Suite struct ManifestServerTests {
    static let bundled = TestModels.bundled

    @Test func theManagerDownloadsFromServeManifestWithEventsAndStaleness() async throws {
        let hosted = try TestModels.hostedRaster(version: "2.0.0")
        let port = LockedPort()
        let server = Task { try await ManifestServer(folder: hosted.url, port: 0).run { port.set($0) } }
        defer { server.cancel() }
        while port.value == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let root = TemporaryFolder()
        let events = EventLog()
        let manager = ModelManager(
            store: ModelStore(folder: root.url), bundled: Self.bundled,
            manifestURL: URL(string: "http://127.0.0.1:\(port.value)/manifest.json")
        ) { events.add($0) }

        let installed = try await manager.download("raster-cnn")
        #expect(installed.version == "2.0.0" && installed.transferred)
        let log = events.all
        #expect(log.first.map { if case .began = $0 { true } else { false } } == true)
        #expect(log.last == .succeeded(name: "raster-cnn", version: "2.0.0"))
        let received = log.compactMap { if case let .progress(_, received, _) = $0 { received } else { nil } }
        #expect(received == received.sorted() && !received.isEmpty)
        #expect(await manager.servingVersion(of: "raster-cnn") == "2.0.0")

        // Just checked: the background policy asks nothing; latest asks and finds nothing newer.
        #expect(await manager.isStale("raster-cnn") == false)
        #expect(await manager.refresh(["raster-cnn"], policy: .localThenUpdate).isEmpty)
        let latest = await manager.refresh(["raster-cnn"], policy: .latest)
        #expect(latest.count == 1 && (try? latest[0].outcome.get()) == .some(nil))
        // Ten days on, the check is stale again.
        #expect(await manager.isStale("raster-cnn", now: Date().addingTimeInterval(10 * 24 * 3600 + 1)))

        // Outside the allowed hours nothing starts.
        let hour = Calendar.current.component(.hour, from: Date())
        let elsewhere = hour < 23 ? hour + 1..<24 : 0..<23  // a Range cannot wrap past midnight
        let conditions = DownloadConditions(allowedHours: elsewhere)
        await #expect(throws: ModelLifecycleError.self) { try await manager.download("raster-cnn", conditions: conditions) }
    }
}

private final class LockedPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0
    var value: Int { lock.withLock { port } }
    func set(_ value: Int) { lock.withLock { port = value } }
}

private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ModelDownloadEvent] = []
    var all: [ModelDownloadEvent] { lock.withLock { events } }
    func add(_ event: ModelDownloadEvent) { lock.withLock { events.append(event) } }
}
