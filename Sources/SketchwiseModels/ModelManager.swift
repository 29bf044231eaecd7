import Foundation
import SketchwiseNN
import SketchwiseRecognition

/// When a download may run (ML Kit's download conditions).
public struct DownloadConditions: Sendable {
    /// Largest model (weights and spec together) accepted, in bytes.
    public var maximumBytes = 256 << 20
    /// Hours of the day (local time, 0–23) in which downloads may start; `22..<6` wraps past
    /// midnight. Nil: any time.
    public var allowedHours: Range<Int>?
    /// Asked before a download starts; false postpones it (for example while the server is busy).
    public var isIdle: (@Sendable () -> Bool)?

    public init(maximumBytes: Int = 256 << 20, allowedHours: Range<Int>? = nil, isIdle: (@Sendable () -> Bool)? = nil) {
        self.maximumBytes = maximumBytes
        self.allowedHours = allowedHours
        self.isIdle = isIdle
    }

    /// Why a download may not start at `date`; nil when it may.
    func unmet(at date: Date) -> String? {
        if let hours = allowedHours {
            let hour = Calendar.current.component(.hour, from: date)
            let inside = hours.lowerBound <= hours.upperBound ? hours.contains(hour) : (hour >= hours.lowerBound || hour < hours.upperBound)
            if !inside { return "downloads are allowed from \(hours.lowerBound):00 to \(hours.upperBound):00, it is \(hour):xx" }
        }
        if let isIdle, !isIdle() { return "not idle" }
        return nil
    }
}

/// What a download reports as it goes (the seed's notifications).
public enum ModelDownloadEvent: Sendable, Equatable {
    case began(name: String, version: String, bytes: Int)
    case progress(name: String, received: Int, total: Int)
    case retrying(name: String, attempt: Int, reason: String)
    case succeeded(name: String, version: String)
    case failed(name: String, reason: String)
}

/// When hosted models are looked for (Firebase's model download policies).
public enum ModelUpdatePolicy: String, Sendable, CaseIterable {
    /// Only what is on disk: the active downloaded version, else the bundled model.
    case localOnly = "local"
    /// Serve what is on disk now; when the last check is stale, download a newer version in the
    /// background and switch to it once it has passed validation.
    case localThenUpdate = "background"
    /// Check and download before serving; on failure serve what is on disk.
    case latest
}

/// Downloads hosted models into a ``ModelStore``: conditions, progress, retries with back-off,
/// SHA-256 verification, a trial load and smoke prediction, an atomic install that keeps the
/// previous version, and at most one transfer per model at a time.
public actor ModelManager {
    public let store: ModelStore
    /// The bundled models folder: what serves when the store has nothing active.
    public let bundled: URL
    public let manifestURL: URL?
    /// Attempts after the first for transient faults (network, timeouts, HTTP 5xx).
    public var retries = 3
    /// Wait before the first retry; doubled for each next one.
    public var backoff: Duration = .milliseconds(500)
    /// Seconds in which less than a byte a second arrives before a transfer is given up.
    public var timeout: TimeInterval = 30
    /// Seconds the files of one model may take in all, retries included (15 minutes: 256 MiB at
    /// 300 kB/s).
    public var deadline: TimeInterval = 900
    /// Seconds the manifest may take in all, retries included.
    public var manifestDeadline: TimeInterval = 30
    /// How long a check of the manifest stays fresh.
    public var stalenessInterval: TimeInterval = 10 * 24 * 3600
    private let onEvent: @Sendable (ModelDownloadEvent) -> Void
    private var inFlight: [String: Task<Installed, any Error>] = [:]

    /// A version installed (and activated, when asked) by ``download(_:version:conditions:activate:)``.
    public struct Installed: Sendable, Equatable {
        public var name: String
        public var version: String
        public var folder: URL
        /// False when that version was already installed and nothing was transferred.
        public var transferred: Bool
    }

    public init(store: ModelStore, bundled: URL, manifestURL: URL?, onEvent: @escaping @Sendable (ModelDownloadEvent) -> Void = { _ in }) {
        self.store = store
        self.bundled = bundled
        self.manifestURL = manifestURL
        self.onEvent = onEvent
    }

    /// The manifest URL of `$SKETCHWISE_MODEL_MANIFEST`, if set.
    public static var environmentManifestURL: URL? {
        ProcessInfo.processInfo.environment["SKETCHWISE_MODEL_MANIFEST"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// Changes the retry and timeout settings (tests and the CLI's options); retries are kept
    /// within 0…10.
    public func configure(
        retries: Int? = nil, backoff: Duration? = nil, timeout: TimeInterval? = nil, deadline: TimeInterval? = nil,
        manifestDeadline: TimeInterval? = nil, stalenessInterval: TimeInterval? = nil
    ) {
        if let retries { self.retries = min(max(retries, 0), 10) }
        if let backoff { self.backoff = backoff }
        if let timeout { self.timeout = timeout }
        if let deadline { self.deadline = deadline }
        if let manifestDeadline { self.manifestDeadline = manifestDeadline }
        if let stalenessInterval { self.stalenessInterval = stalenessInterval }
    }

    /// The manifest, fetched now (with retries, all within ``manifestDeadline``).
    public func manifest() async throws -> ModelManifest {
        guard let manifestURL else { throw ModelLifecycleError.noManifest }
        let fetcher = ModelFetcher(timeout: timeout)
        let deadline = ModelFetcher.Deadline(seconds: manifestDeadline)
        let data = try await withRetries("manifest", until: deadline) {
            try await fetcher.data(from: manifestURL, limit: ModelManifest.maximumManifestSize, deadline: deadline)
        }
        return try ModelManifest(data: data)
    }

    /// Downloads `name` (the newest runnable version, or `version`), verifies, validates and
    /// installs it, and makes it the active version unless `activate` is false. A second call
    /// for the same name while one runs waits for that one: one transfer.
    /// - Throws: ``ModelLifecycleError`` saying why the model was refused; what served before
    ///   still serves.
    @discardableResult
    public func download(_ name: String, version: String? = nil, conditions: DownloadConditions = .init(), activate: Bool = true)
        async throws -> Installed
    {
        if let running = inFlight[name] { return try await running.value }
        let task = Task {
            try await self.store.whileLocked(name) {
                try await self.transfer(name, version: version, conditions: conditions, activate: activate)
            }
        }
        inFlight[name] = task
        defer { inFlight[name] = nil }
        return try await task.value
    }

    /// Whether the manifest should be asked about `name` again.
    public func isStale(_ name: String, now: Date = Date()) -> Bool {
        guard let checked = store.state(of: name).checkedAt else { return true }
        return now.timeIntervalSince(checked) >= stalenessInterval
    }

    /// Looks for newer versions of `names` as `policy` says: never (local), when the last check
    /// is stale (background), or always (latest). Downloads and activates each newer version;
    /// returns what was installed and what failed. Failures leave what served before.
    public func refresh(_ names: [String], policy: ModelUpdatePolicy, conditions: DownloadConditions = .init(), now: Date = Date()) async
        -> [(name: String, outcome: Result<Installed?, any Error>)]
    {
        guard policy != .localOnly, manifestURL != nil else { return [] }
        let due = names.filter { policy == .latest || isStale($0, now: now) }
        guard !due.isEmpty else { return [] }
        let manifest: ModelManifest
        do {
            manifest = try await self.manifest()
        } catch {
            onEvent(.failed(name: "manifest", reason: "\(error)"))
            return due.map { ($0, .failure(error)) }
        }
        var outcomes: [(name: String, outcome: Result<Installed?, any Error>)] = []
        for name in due where manifest.models.contains(where: { $0.name == name }) {
            do {
                let entry = try manifest.entry(named: name)
                try? store.markChecked(name, at: now)
                guard ModelManifest.compare(entry.version, servingVersion(of: name) ?? "0") == .orderedDescending else {
                    outcomes.append((name, .success(nil)))
                    continue
                }
                outcomes.append((name, .success(try await download(name, version: entry.version, conditions: conditions))))
            } catch {
                outcomes.append((name, .failure(error)))
            }
        }
        return outcomes
    }

    /// Runs `work` in a task of its own and waits for it at most `limit`: true when it finished
    /// in time. Work still running then goes on in the background (each of its transfers has a
    /// deadline), so a stuck host delays the caller by `limit` at most.
    public nonisolated static func run(_ work: @escaping @Sendable () async -> Void, waitingAtMost limit: Duration) async -> Bool {
        let (finished, signal) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingOldest(1))
        Task {
            await work()
            signal.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            signal.yield(false)
        }
        defer { timer.cancel() }
        for await done in finished { return done }
        return false
    }

    /// The version serving under `name`: the store's active one, else the bundled model's.
    public func servingVersion(of name: String) -> String? {
        if let active = store.state(of: name).active { return active }
        let spec = bundled.appendingPathComponent("\(name).json")
        struct Versioned: Decodable { let version: String }
        return (try? Data(contentsOf: spec)).flatMap { try? JSONDecoder().decode(Versioned.self, from: $0).version }
    }

    private func transfer(_ name: String, version: String?, conditions: DownloadConditions, activate: Bool) async throws -> Installed {
        do {
            if let reason = conditions.unmet(at: Date()) { throw ModelLifecycleError.conditionsNotMet(reason) }
            let entry = try await manifest().entry(named: name, version: version)
            guard entry.totalSize <= conditions.maximumBytes else {
                throw ModelLifecycleError.tooLarge(name: name, bytes: entry.totalSize, limit: conditions.maximumBytes)
            }
            let installed: Installed
            if store.versions(of: name).contains(entry.version), store.origin(of: name, version: entry.version)?.sha256 == entry.sha256 {
                installed = Installed(
                    name: name, version: entry.version, folder: store.folder(of: name, version: entry.version), transferred: false)
            } else {
                installed = try await fetchAndInstall(entry)
            }
            if activate {
                try store.activate(name, version: entry.version)
                store.prune(name)
            }
            try? store.markChecked(name)
            onEvent(.succeeded(name: name, version: entry.version))
            return installed
        } catch {
            onEvent(.failed(name: name, reason: "\(error)"))
            throw error
        }
    }

    /// Fetches both files into a staging folder, verifies and validates them, then installs.
    private func fetchAndInstall(_ entry: ModelManifest.Entry) async throws -> Installed {
        guard let manifestURL else { throw ModelLifecycleError.noManifest }
        let name = entry.name
        let staging = try store.makeStagingFolder(for: name)
        var installed = false
        defer { if !installed { try? FileManager.default.removeItem(at: staging) } }
        onEvent(.began(name: name, version: entry.version, bytes: entry.totalSize))
        let fetcher = ModelFetcher(timeout: timeout)
        let deadline = ModelFetcher.Deadline(seconds: self.deadline)
        var done = 0
        for (file, ext) in [(entry.spec, "json"), (entry.weights, "safetensors")] {
            guard let url = URL(string: file.url, relativeTo: manifestURL)?.absoluteURL else {
                throw ModelLifecycleError.malformedManifest("\(name): \(file.url) is not a URL")
            }
            // A manifest from the network names files on the network: a file: URL there would have
            // the server read its own files for whoever wrote the manifest.
            guard manifestURL.isFileURL || ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ModelLifecycleError.malformedManifest(
                    "\(name): \(file.url) is not an http or https URL, as a hosted manifest's files must be")
            }
            let target = staging.appendingPathComponent("\(name).\(ext)")
            let (offset, total, onEvent) = (done, entry.totalSize, onEvent)
            let fetched = try await withRetries(name, until: deadline) {
                try await fetcher.fetch(url, to: target, limit: file.size, deadline: deadline) { received, _ in
                    onEvent(.progress(name: name, received: offset + received, total: total))
                }
            }
            guard fetched.bytes == file.size else {
                throw ModelLifecycleError.truncated(url: url.absoluteString, received: fetched.bytes, expected: file.size)
            }
            guard fetched.sha256 == file.sha256.lowercased() else {
                throw ModelLifecycleError.checksumMismatch(
                    file: url.lastPathComponent, expected: file.sha256.lowercased(), actual: fetched.sha256)
            }
            done += fetched.bytes
        }
        let current = (store.activeFolder(of: name) ?? bundled).appendingPathComponent("\(name).json")
        let validated = try ModelValidation.check(name, in: staging, replacing: try? ModelRecognizer(contentsOf: current))
        guard validated.model.spec.version == entry.version else {
            throw ModelLifecycleError.invalidModel("its spec says version \(validated.model.spec.version), the manifest \(entry.version)")
        }
        try store.install(
            staging, name: name, version: entry.version,
            origin: .init(url: entry.url, sha256: entry.sha256.lowercased(), installedAt: Date()))
        installed = true
        return Installed(name: name, version: entry.version, folder: store.folder(of: name, version: entry.version), transferred: true)
    }

    /// Runs `body`, again after a back-off (doubling) while it fails with a transient fault and
    /// the next attempt would start before `deadline`.
    private func withRetries<T: Sendable>(_ name: String, until deadline: ModelFetcher.Deadline, _ body: @Sendable () async throws -> T)
        async throws -> T
    {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as ModelLifecycleError where error.isTransient && attempt < retries {
                attempt += 1
                let wait = backoff * (1 << min(attempt - 1, 16))
                guard ContinuousClock.now.advanced(by: wait) < deadline.instant else { throw error }
                onEvent(.retrying(name: name, attempt: attempt, reason: "\(error)"))
                try await Task.sleep(for: wait)
            }
        }
    }
}
