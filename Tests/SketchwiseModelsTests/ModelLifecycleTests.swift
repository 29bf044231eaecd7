import Foundation
import SketchwiseModels
import SketchwiseServer
import SketchwiseTestSupport
import Testing

/// The manifest, the model store and A/B arms; and the manager against a real local HTTP server
/// (the faults are tested end to end in Tests/Browser/test_models.py).
@Suite struct ModelLifecycleTests {
    static let bundled = SharedData.packageRoot.appendingPathComponent("Models")

    /// A folder holding raster-cnn under another version, like a hosted source.
    static func hostedFolder(version: String) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        var spec =
            try JSONSerialization.jsonObject(with: Data(contentsOf: bundled.appendingPathComponent("raster-cnn.json"))) as! [String: Any]
        spec["version"] = version
        try JSONSerialization.data(withJSONObject: spec).write(to: folder.url.appendingPathComponent("raster-cnn.json"))
        try FileManager.default.copyItem(
            at: bundled.appendingPathComponent("raster-cnn.safetensors"), to: folder.url.appendingPathComponent("raster-cnn.safetensors"))
        return folder
    }

    @Test func versionsCompareNumberByNumber() {
        #expect(ModelManifest.compare("1.10", "1.9") == .orderedDescending)
        #expect(ModelManifest.compare("2", "2.0.0") == .orderedSame)
        #expect(ModelManifest.compare("1.0.0", "1.0.1") == .orderedAscending)
    }

    @Test func theManifestPicksTheNewestRunnableVersion() throws {
        let file = ModelManifest.Entry.File(url: "w", sha256: String(repeating: "a", count: 64), size: 1)
        let manifest = ModelManifest(models: [
            .init(name: "m", version: "1.2", weights: file, spec: file),
            .init(name: "m", version: "1.10", weights: file, spec: file, minimumSketchwiseVersion: "0.1"),
            .init(name: "m", version: "9.0", weights: file, spec: file, minimumSketchwiseVersion: "99"),
        ])
        #expect(try manifest.entry(named: "m").version == "1.10")
        #expect(try manifest.entry(named: "m", version: "1.2").version == "1.2")
        #expect(throws: ModelLifecycleError.needsNewerSketchwise("m", "99")) { try manifest.entry(named: "m", version: "9.0") }
        #expect(throws: ModelLifecycleError.notInManifest("x")) { try manifest.entry(named: "x") }
        let data = try JSONEncoder().encode(manifest)
        #expect(try ModelManifest(data: data) == manifest)
    }

    @Test func aMalformedManifestSaysWhatIsWrong() {
        for (text, expected) in [
            ("[1, 2]", "wrong type"), ("{\"models\": [{\"name\": \"m\"}]}", "missing \"version\""), ("{", "not JSON"),
            (
                "{\"models\": [{\"name\": \"m\", \"version\": \"1\", \"url\": \"u\", \"sha256\": \"xyz\", \"size\": 1, \"spec\": {\"url\": \"s\", \"sha256\": \"xyz\", \"size\": 1}}]}",
                "64 hexadecimal"
            ),
        ] {
            do {
                _ = try ModelManifest(data: Data(text.utf8))
                Issue.record("\(text) was accepted")
            } catch {
                #expect("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    @Test func theStoreInstallsActivatesRollsBackAndDeletes() throws {
        let root = TemporaryFolder()
        let store = ModelStore(folder: root.url)
        for version in ["2.0.0", "3.0.0"] {
            let source = try Self.hostedFolder(version: version)
            let staging = try store.makeStagingFolder(for: "raster-cnn")
            for ext in ["json", "safetensors"] {
                try FileManager.default.copyItem(
                    at: source.url.appendingPathComponent("raster-cnn.\(ext)"), to: staging.appendingPathComponent("raster-cnn.\(ext)"))
            }
            try store.install(staging, name: "raster-cnn", version: version, origin: .init(url: "u", sha256: "s", installedAt: Date()))
            try store.activate("raster-cnn", version: version)
        }
        #expect(store.versions(of: "raster-cnn") == ["2.0.0", "3.0.0"])
        #expect(store.state(of: "raster-cnn").active == "3.0.0" && store.state(of: "raster-cnn").previous == "2.0.0")
        #expect(store.activeFolders() == ["raster-cnn": store.folder(of: "raster-cnn", version: "3.0.0")])
        #expect(try store.rollback("raster-cnn") == "2.0.0")
        #expect(try store.rollback("raster-cnn") == nil, "the second rollback goes back to the bundled model")
        #expect(store.activeFolders().isEmpty)
        #expect(throws: ModelLifecycleError.notInstalled("raster-cnn@4")) { try store.activate("raster-cnn", version: "4") }
        try store.delete("raster-cnn")
        #expect(store.names().isEmpty)
    }

    @Test func recoveryClearsWhatADeadProcessLeft() throws {
        let root = TemporaryFolder()
        let store = ModelStore(folder: root.url)
        let dead = root.url.appendingPathComponent("raster-cnn/.staging-2147483000-abc")
        let mine = try store.makeStagingFolder(for: "raster-cnn")
        try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: true)
        try Data("{\"active\": \"5.0\"}".utf8).write(to: root.url.appendingPathComponent("raster-cnn/state.json"))
        let removed = store.recover()
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: mine.path), "a live process's staging folder stays")
        #expect(store.state(of: "raster-cnn").active == nil, "an active version whose folder is gone is dropped")
        #expect(removed.count == 2)
    }

    @Test func armsAreStableAndSplitByPercent() throws {
        let experiment = try ModelExperiment(parsing: "raster-cnn-lite@2.0.0:30")
        let arms = (1...2000).map { experiment.arm(ofUser: Int64($0)) }
        #expect(arms == (1...2000).map { experiment.arm(ofUser: Int64($0)) })
        let share = Double(arms.filter { $0 == .treatment }.count) / 2000
        #expect(abs(share - 0.3) < 0.04, "treatment share \(share)")
        #expect(throws: ModelLifecycleError.self) { try ModelExperiment(parsing: "raster-cnn@2.0.0") }
        #expect(throws: ModelLifecycleError.self) { try ModelExperiment(parsing: "x@1:101") }
        #expect(try ModelExperiment(parsing: "x@1").percent == 50)
    }

    @Test func theManagerDownloadsFromServeManifestWithEventsAndStaleness() async throws {
        let hosted = try Self.hostedFolder(version: "2.0.0")
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
