import Foundation

/// The downloaded models on disk, beside (never instead of) the bundled ones:
///
///     STORE/<name>/<version>/<name>.json, <name>.safetensors, origin.json
///     STORE/<name>/state.json        {"active": "2", "previous": "1", "checkedAt": …}
///     STORE/<name>/.staging-<uuid>/  a download in progress (removed by recover())
///
/// A version appears only by renaming a complete, verified staging folder, and the state file is
/// replaced atomically, so a crash at any point leaves either the old state or the new one.
/// No active version means the bundled model serves.
public struct ModelStore: Sendable {
    public let folder: URL

    /// What the store knows of one model name.
    public struct State: Sendable, Equatable, Codable {
        /// The version that serves; nil: the bundled model.
        public var active: String?
        /// The version that served before `active`, kept for ``ModelStore/rollback(_:)``.
        public var previous: String?
        /// When the manifest was last asked about this model.
        public var checkedAt: Date?

        public init(active: String? = nil, previous: String? = nil, checkedAt: Date? = nil) {
            self.active = active
            self.previous = previous
            self.checkedAt = checkedAt
        }
    }

    /// Where an installed version came from.
    public struct Origin: Sendable, Equatable, Codable {
        public var url: String
        public var sha256: String
        public var installedAt: Date

        public init(url: String, sha256: String, installedAt: Date) {
            self.url = url
            self.sha256 = sha256
            self.installedAt = installedAt
        }
    }

    public init(folder: URL) {
        self.folder = folder
    }

    /// The store of `$SKETCHWISE_MODEL_STORE`, else `DATA/models` for the server's data folder.
    public static func forDataDirectory(_ data: URL) -> ModelStore {
        if let override = ProcessInfo.processInfo.environment["SKETCHWISE_MODEL_STORE"], !override.isEmpty {
            return ModelStore(folder: URL(fileURLWithPath: override))
        }
        return ModelStore(folder: data.appendingPathComponent("models"))
    }

    /// Whether `text` may name a model or a version: letters, digits, `.`, `_`, `-`, not
    /// starting with `.`, at most 100 characters.
    public static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 100 && !text.hasPrefix(".")
            && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
    }

    /// The names with anything in the store.
    public func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter(Self.isPlainName).sorted()
    }

    /// The installed versions of `name`, oldest first.
    public func versions(of name: String) -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(name).path)) ?? []
        return all.filter { Self.isPlainName($0) && isInstalled(name, $0) }.sorted { ModelManifest.compare($0, $1) == .orderedAscending }
    }

    /// The folder holding `<name>.json` and `<name>.safetensors` of one version.
    public func folder(of name: String, version: String) -> URL {
        folder.appendingPathComponent(name).appendingPathComponent(version)
    }

    func isInstalled(_ name: String, _ version: String) -> Bool {
        let versionFolder = folder(of: name, version: version)
        return ["json", "safetensors"].allSatisfy {
            FileManager.default.fileExists(atPath: versionFolder.appendingPathComponent("\(name).\($0)").path)
        }
    }

    /// The state of `name` (empty when the store has none, or its state file is unreadable).
    public func state(of name: String) -> State {
        guard let data = try? Data(contentsOf: stateFile(name)) else { return State() }
        return (try? Self.decoder.decode(State.self, from: data)) ?? State()
    }

    /// Where an installed version came from, when recorded.
    public func origin(of name: String, version: String) -> Origin? {
        guard let data = try? Data(contentsOf: folder(of: name, version: version).appendingPathComponent("origin.json")) else { return nil }
        return try? Self.decoder.decode(Origin.self, from: data)
    }

    /// The folder of the active version of `name`, if one is active and installed.
    public func activeFolder(of name: String) -> URL? {
        guard let version = state(of: name).active, isInstalled(name, version) else { return nil }
        return folder(of: name, version: version)
    }

    /// Every name with an active installed version → that version's folder: what
    /// `RecognizerSet` takes as its overrides.
    public func activeFolders() -> [String: URL] {
        Dictionary(uniqueKeysWithValues: names().compactMap { name in activeFolder(of: name).map { (name, $0) } })
    }

    /// A new empty staging folder for a download of `name`.
    public func makeStagingFolder(for name: String) throws -> URL {
        let staging = stagingPath(for: name)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw ModelLifecycleError.writeFailed("\(staging.path): \((error as NSError).localizedDescription)")
        }
        return staging
    }

    /// Moves a complete staging folder into place as `version` of `name` (one rename) and
    /// records its origin. An installed copy of the same version is replaced.
    public func install(_ staging: URL, name: String, version: String, origin: Origin) throws {
        let target = folder(of: name, version: version)
        do {
            try Self.encoder.encode(origin).write(to: staging.appendingPathComponent("origin.json"), options: .atomic)
            if FileManager.default.fileExists(atPath: target.path) {
                // Out of the way first, by rename, so the version is never half there.
                let old = stagingPath(for: name)
                try FileManager.default.moveItem(at: target, to: old)
                try FileManager.default.moveItem(at: staging, to: target)
                try? FileManager.default.removeItem(at: old)
            } else {
                try FileManager.default.moveItem(at: staging, to: target)
            }
        } catch {
            throw ModelLifecycleError.writeFailed("\(target.path): \((error as NSError).localizedDescription)")
        }
    }

    /// Makes `version` of `name` the active one; the one it replaces becomes `previous`.
    public func activate(_ name: String, version: String) throws {
        guard isInstalled(name, version) else { throw ModelLifecycleError.notInstalled("\(name)@\(version)") }
        try update(name) { state in
            guard state.active != version else { return }
            state.previous = state.active
            state.active = version
        }
    }

    /// Makes the bundled model of `name` serve again; the version active until now becomes `previous`.
    public func deactivate(_ name: String) throws {
        try update(name) { state in
            guard let active = state.active else { return }
            state.previous = active
            state.active = nil
        }
    }

    /// Goes back to the previous version of `name` (also from the bundled model, when it was chosen
    /// over a version), or to the bundled model when there is none; returns the version now active
    /// (nil: bundled).
    @discardableResult
    public func rollback(_ name: String) throws -> String? {
        var now: String?
        try update(name) { state in
            let previous = installedPrevious(name, state)
            guard state.active != nil || previous != nil else { return }
            state.active = previous
            state.previous = nil
            now = previous
        }
        return now
    }

    /// Whether ``rollback(_:)`` would change what serves: a downloaded version serves, or the
    /// bundled model does and the version before it is still installed.
    public func canRollBack(_ name: String) -> Bool {
        let state = state(of: name)
        return state.active != nil || installedPrevious(name, state) != nil
    }

    /// The state's previous version, while it is installed.
    private func installedPrevious(_ name: String, _ state: State) -> String? {
        state.previous.flatMap { isInstalled(name, $0) ? $0 : nil }
    }

    /// Removes every downloaded version of `name`; the bundled model serves again.
    public func delete(_ name: String) throws {
        let named = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: named.path) else { throw ModelLifecycleError.notInstalled(name) }
        // Deactivate first, so a crash part-way through leaves the bundled model serving.
        try update(name) { $0 = State(checkedAt: $0.checkedAt) }
        do {
            try FileManager.default.removeItem(at: named)
        } catch {
            throw ModelLifecycleError.writeFailed("\(named.path): \((error as NSError).localizedDescription)")
        }
    }

    /// Records that the manifest was asked about `name` at `date`.
    public func markChecked(_ name: String, at date: Date = Date()) throws {
        try update(name) { $0.checkedAt = date }
    }

    /// Removes installed versions of `name` other than the active and the previous one.
    public func prune(_ name: String) {
        let state = state(of: name)
        for version in versions(of: name) where version != state.active && version != state.previous {
            try? FileManager.default.removeItem(at: folder(of: name, version: version))
        }
    }

    /// Clears what an interrupted download or install left: staging folders of processes that
    /// are gone, and an active version whose folder is gone. Returns what it removed, for the log.
    @discardableResult
    public func recover() -> [String] {
        var removed: [String] = []
        for name in names() {
            let named = folder.appendingPathComponent(name)
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: named.path)) ?? [] where Self.isAbandonedStaging(entry) {
                if (try? FileManager.default.removeItem(at: named.appendingPathComponent(entry))) != nil {
                    removed.append("\(name)/\(entry)")
                }
            }
            let state = state(of: name)
            if let active = state.active, !isInstalled(name, active) {
                try? update(name) { $0.active = nil }
                removed.append("\(name)@\(active) (missing, the bundled model serves)")
            }
        }
        return removed
    }

    /// Runs `body` holding the download lock of `name` (`STORE/<name>/.lock`, an advisory
    /// `flock`), so two processes never download the same model at once: the second waits,
    /// then finds the version installed. The lock goes with the process if it dies.
    public func whileLocked<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let named = folder.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: named, withIntermediateDirectories: true)
        let path = named.appendingPathComponent(".lock").path
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        guard descriptor >= 0 else { throw ModelLifecycleError.writeFailed("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw ModelLifecycleError.writeFailed("cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }

    /// A new staging path of this process: `STORE/<name>/.staging-<pid>-<uuid>`.
    private func stagingPath(for name: String) -> URL {
        folder.appendingPathComponent(name).appendingPathComponent(
            ".staging-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    }

    /// Whether `entry` is a staging folder whose process (`.staging-<pid>-<uuid>`) is gone.
    static func isAbandonedStaging(_ entry: String) -> Bool {
        guard entry.hasPrefix(".staging-") else { return false }
        let parts = entry.dropFirst(".staging-".count).split(separator: "-", maxSplits: 1)
        guard let pid = parts.first.flatMap({ Int32($0) }) else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Rewrites the state file of `name` atomically (temporary file, then rename).
    private func update(_ name: String, _ change: (inout State) -> Void) throws {
        var state = state(of: name)
        change(&state)
        let file = stateFile(name)
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.encoder.encode(state).write(to: file, options: .atomic)
        } catch {
            throw ModelLifecycleError.writeFailed("\(file.path): \((error as NSError).localizedDescription)")
        }
    }

    private func stateFile(_ name: String) -> URL {
        folder.appendingPathComponent(name).appendingPathComponent("state.json")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
