import Foundation
import SketchwiseModels
import SketchwiseTestSupport
import Testing

/// The manifest, the model store and A/B arms (the manager against `sketchwise models serve` is
/// in SketchwiseCLITests, the faults end to end in Tests/Browser/test_models.py).
@Suite struct ModelLifecycleTests {
    static let bundled = TestModels.bundled

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
            let source = try TestModels.hostedRaster(version: version)
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
        #expect(!store.canRollBack("raster-cnn"))
        // The bundled model chosen over a version: a rollback goes back to that version.
        try store.activate("raster-cnn", version: "3.0.0")
        try store.deactivate("raster-cnn")
        #expect(store.canRollBack("raster-cnn"))
        #expect(try store.rollback("raster-cnn") == "3.0.0")
        try store.deactivate("raster-cnn")
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
}
