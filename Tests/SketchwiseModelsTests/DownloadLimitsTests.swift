import Foundation
import SketchwiseModels
import SketchwiseTestSupport
import Testing

/// Downloads against hostile hosts (issue 34): sizes that do not fit, a host that trickles, one
/// that never answers, a body without end. Every one ends with a clear error, within its
/// deadline, having read no more than the declared size.
@Suite struct DownloadLimitsTests {
    static let zeros = String(repeating: "0", count: 64)

    /// A manifest of model `m` 2.0: spec `m.json` and weights `m.safetensors` of these sizes.
    static func manifest(specSize: Int, specSHA256: String = zeros, weightsSize: Int) -> Data {
        Data(
            """
            {"models": [{"name": "m", "version": "2.0", "url": "m.safetensors", "sha256": "\(zeros)", "size": \(weightsSize),
                         "spec": {"url": "m.json", "sha256": "\(specSHA256)", "size": \(specSize)}}]}
            """.utf8)
    }

    /// A manager of an empty store, reading the manifest of `server`, with no retries.
    static func manager(_ server: FaultyHTTPServer, store: TemporaryFolder) async -> ModelManager {
        let manager = ModelManager(
            store: ModelStore(folder: store.url), bundled: ModelLifecycleTests.bundled, manifestURL: server.url("manifest.json"))
        await manager.configure(retries: 0)
        return manager
    }

    /// Runs `body`, which must throw; returns what it threw and the seconds it took.
    static func failure(_ body: () async throws -> Void) async -> (error: (any Error)?, seconds: Double) {
        let start = ContinuousClock.now
        do {
            try await body()
            return (nil, 0)
        } catch {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            return (error, Double(seconds) + Double(attoseconds) / 1e18)
        }
    }

    @Test func aSizeOfTwoToTheSixtyThirdIsRefusedBeforeAnyTransfer() async throws {
        let file = ModelManifest.Entry.File(url: "w", sha256: Self.zeros, size: .max)
        #expect(ModelManifest.Entry(name: "m", version: "1", weights: file, spec: file).totalSize == .max, "saturates, never traps")
        let huge = Self.manifest(specSize: 10, weightsSize: .max)
        #expect(throws: ModelLifecycleError.self) { try ModelManifest(data: huge) }
        let server = try FaultyHTTPServer { path, send in
            _ = send(
                path == "manifest.json" ? FaultyHTTPServer.ok(length: huge.count) + huge : FaultyHTTPServer.ok(length: 1) + Data("x".utf8))
        }
        defer { server.close() }
        let store = TemporaryFolder()
        let manager = await Self.manager(server, store: store)
        let (error, _) = await Self.failure { _ = try await manager.download("m") }
        #expect(
            "\(error.map { "\($0)" } ?? "none")".contains("over the 4294967296 (4 GiB) a model file may have"),
            "\(String(describing: error))")
        #expect(server.hits("m.json") == 0 && server.hits("m.safetensors") == 0)
    }

    @Test func aContentLengthOverTheDeclaredSizeIsRefusedBeforeTheBody() async throws {
        let manifest = Self.manifest(specSize: 1000, weightsSize: 1000)
        let server = try FaultyHTTPServer { path, send in
            guard path == "manifest.json" else {
                _ = send(Data("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n".utf8) + Data(count: 4096))
                return
            }
            _ = send(FaultyHTTPServer.ok(length: manifest.count) + manifest)
        }
        defer { server.close() }
        let store = TemporaryFolder()
        // The error says why it stopped; no bound on the time, since the suite shares the cores.
        let (error, _) = await Self.failure { _ = try await Self.manager(server, store: store).download("m") }
        #expect(error as? ModelLifecycleError == .tooLarge(name: "m.json", bytes: .max, limit: 1000))
    }

    @Test func aTricklingHostIsGivenUpAtTheDeadline() async throws {
        // A byte every 0.2 s: enough to pass the stall check, never enough to finish.
        let manifest = Self.manifest(specSize: 100, weightsSize: 100)
        let server = try FaultyHTTPServer { path, send in
            guard path == "manifest.json" else {
                guard send(FaultyHTTPServer.ok(length: 100)) else { return }
                while send(Data("x".utf8)) { Thread.sleep(forTimeInterval: 0.2) }
                return
            }
            _ = send(FaultyHTTPServer.ok(length: manifest.count) + manifest)
        }
        defer { server.close() }
        let store = TemporaryFolder()
        let manager = await Self.manager(server, store: store)
        await manager.configure(retries: 3, deadline: 1.5)
        let (error, seconds) = await Self.failure { _ = try await manager.download("m") }
        guard case .deadlineExceeded(_, 1.5)? = error as? ModelLifecycleError else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(seconds >= 1.4, "given up before its deadline, after \(seconds) s")
        #expect(server.hits("m.json") == 1, "a deadline is not retried")
    }

    @Test func anEndlessBodyIsCutAtTheDeclaredSize() async throws {
        let spec = Data("{}".utf8)
        let folder = TemporaryFolder()
        let specFile = folder.url.appendingPathComponent("m.json")
        try spec.write(to: specFile)
        let declared = 4 << 20
        let manifest = Self.manifest(specSize: spec.count, specSHA256: try ModelRegistry.sha256(of: specFile), weightsSize: declared)
        let server = try FaultyHTTPServer { path, send in
            switch path {
            case "manifest.json": _ = send(FaultyHTTPServer.ok(length: manifest.count) + manifest)
            case "m.json": _ = send(FaultyHTTPServer.ok(length: spec.count) + spec)
            default:
                // No Content-Length, and bytes for as long as the client reads them.
                let chunk = Data(count: 65536)
                guard send(FaultyHTTPServer.ok()) else { return }
                while send(chunk) {}
            }
        }
        defer { server.close() }
        let store = TemporaryFolder()
        let (error, _) = await Self.failure { _ = try await Self.manager(server, store: store).download("m") }
        guard case let .tooLarge(name, bytes, limit)? = error as? ModelLifecycleError else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(name == "m.safetensors" && bytes > declared && limit == declared)
        // What the client took is the declared size plus what the kernel buffers on loopback.
        #expect(server.bytesSent < declared + (32 << 20), "\(server.bytesSent) bytes were read")
        #expect(ModelStore(folder: store.url).versions(of: "m").isEmpty)
    }

    @Test func aStuckManifestHostIsGivenUpAndHoldsNoCallerLonger() async throws {
        let server = try FaultyHTTPServer { _, _ in Thread.sleep(forTimeInterval: 8) }
        defer { server.close() }
        let store = TemporaryFolder()
        let manager = await Self.manager(server, store: store)
        await manager.configure(retries: 3, manifestDeadline: 1)
        let (error, seconds) = await Self.failure { _ = try await manager.manifest() }
        #expect(error as? ModelLifecycleError == .deadlineExceeded(url: server.url("manifest.json").absoluteString, seconds: 1))
        #expect(seconds >= 0.9, "given up before its deadline, after \(seconds) s")

        // What the server does at start: it waits for the check at most 300 ms. Given 30 s, the
        // check cannot end before the host's 8 s of silence, so the wait ends first even where a
        // loaded machine wakes the 300 ms timer seconds late (a bound on wall time would fail there).
        await manager.configure(manifestDeadline: 30)
        let finished = await ModelManager.run({ _ = try? await manager.manifest() }, waitingAtMost: .milliseconds(300))
        #expect(!finished)
        #expect(await ModelManager.run({}, waitingAtMost: .seconds(5)))
    }
}
