import Foundation
import Logging
import SketchwiseLibrary
import SketchwiseModels
import SketchwiseRecognition

/// The models a running server answers with, switched without a restart: it watches the model
/// store and, when the active versions change, validates them (an invalid one is left out and
/// the bundled model serves), builds the next snapshot and swaps it in. A new raster model needs
/// its own library index: that is built by ``LibraryReindexer`` while the old snapshot serves.
package final class ServingModels: @unchecked Sendable {
    private let lock = NSLock()
    /// Nil until the library index is loaded (the server listens before that, not ready).
    private var current: ServingSnapshot?
    /// What start-up is doing, while there is no snapshot.
    private var startupStep = "loading the models"
    private var reindex: ReindexStatus?
    /// The store's active folders last acted on (switched to, or refused).
    private var seen: [String: URL]
    private var reindexTask: Task<Void, Never>?
    /// The recognisers start-up prepared (what `/api/health` lists before the index is loaded).
    package let prepared: RecognizerSet
    package let store: ModelStore?
    package let logger: Logger
    /// Makes a snapshot from recognisers and an index (the server's providers and default model).
    private let makeSnapshot: @Sendable (RecognizerSet, LibraryDatabase) throws -> ServingSnapshot
    /// The index file of a recogniser set (by its raster model).
    private let indexPath: @Sendable (RecognizerSet) -> String
    private let reindexer: LibraryReindexer

    package init(
        prepared: RecognizerSet, store: ModelStore?, reindexer: LibraryReindexer, logger: Logger,
        indexPath: @escaping @Sendable (RecognizerSet) -> String,
        makeSnapshot: @escaping @Sendable (RecognizerSet, LibraryDatabase) throws -> ServingSnapshot
    ) {
        seen = store?.activeFolders() ?? [:]
        self.prepared = prepared
        self.store = store
        self.reindexer = reindexer
        self.logger = logger
        self.indexPath = indexPath
        self.makeSnapshot = makeSnapshot
    }

    /// What answers requests now.
    /// - Throws: ``ServingNotReady`` (the server answers `503 starting`) until start-up has loaded
    ///   the library index.
    package var snapshot: ServingSnapshot {
        get throws {
            let (snapshot, step) = lock.withLock { (current, startupStep) }
            guard let snapshot else { throw ServingNotReady(step: step) }
            return snapshot
        }
    }

    /// The snapshot once the server is ready, else nil.
    package var readySnapshot: ServingSnapshot? { lock.withLock { current } }

    /// Records what start-up is doing (`GET /api/ready` tells it while not ready).
    package func startupProgress(_ step: String) { lock.withLock { startupStep = step } }

    /// Makes the server ready: requests are answered with `snapshot` from now on.
    package func start(with snapshot: ServingSnapshot) { lock.withLock { current = snapshot } }

    /// The re-index under way, if any.
    package var reindexStatus: ReindexStatus? { lock.withLock { reindex } }

    /// Checks the store every `interval` until the task is cancelled.
    package func watch(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await checkStore()
        }
        lock.withLock { reindexTask }?.cancel()
    }

    /// Switches to the store's active versions if they changed since the last check.
    package func checkStore() async {
        guard let store else { return }
        let active = store.activeFolders()
        let changed = lock.withLock { () -> Bool in
            guard active != seen else { return false }
            seen = active
            return true
        }
        guard changed, let snapshot = readySnapshot else { return }
        let validated = Self.validated(active, bundled: snapshot.recognizers.folder, logger: logger)
        let next = snapshot.recognizers.replacing(overrides: validated)
        let raster = RecognizerSet.rasterModel
        if next.folder(of: raster) == snapshot.recognizers.folder(of: raster) {
            lock.withLock { reindexTask }?.cancel()
            install(next, database: snapshot.database)
        } else {
            startReindex(for: next)
        }
    }

    /// The active versions that pass a trial load and smoke prediction; the others are logged
    /// and left out, so their bundled models serve.
    package static func validated(_ active: [String: URL], bundled: URL, logger: Logger) -> [String: URL] {
        active.filter { name, folder in
            do {
                let current = try? ModelRecognizer(contentsOf: bundled.appendingPathComponent("\(name).json"))
                try ModelValidation.check(name, in: folder, replacing: current)
                return true
            } catch {
                logger.warning("model \(name) \(folder.lastPathComponent) is not used, the bundled one serves: \(error)")
                return false
            }
        }
    }

    /// Builds the index of `next`'s raster model, then switches; a re-index already running for
    /// another model is stopped.
    private func startReindex(for next: RecognizerSet) {
        let path = indexPath(next)
        let raster = next.folder(of: RecognizerSet.rasterModel)
        let label = "\(RecognizerSet.rasterModel)@\(raster == next.folder ? "bundled" : raster.lastPathComponent)"
        logger.info("re-indexing the library for \(label) into \(path); the current index serves until it is complete")
        let task = Task {
            let started = ContinuousClock.now
            do {
                try await reindexer.build(at: path, recognizers: next, ) { [weak self] done, total in
                    self?.lock.withLock { self?.reindex = ReindexStatus(model: label, done: done, total: total) }
                }
                try Task.checkCancellation()
                logger.info("re-indexed the library for \(label) in \(ContinuousClock.now - started)")
                install(next, database: try LibraryDatabase(path: path))
            } catch is CancellationError {
                logger.info("re-index for \(label) stopped: the models changed again")
            } catch {
                logger.error("re-index for \(label) failed, the current models keep serving: \(error)")
            }
            lock.withLock { reindex = nil }
        }
        lock.withLock {
            reindexTask?.cancel()
            reindexTask = task
            reindex = ReindexStatus(model: label, done: 0, total: 0)
        }
    }

    /// Makes and swaps in the snapshot of `next`; a snapshot that cannot be made (its default
    /// recogniser does not load) is refused and the current one keeps serving.
    private func install(_ next: RecognizerSet, database: LibraryDatabase) {
        do {
            let snapshot = try makeSnapshot(next, database)
            lock.withLock { current = snapshot }
            let versions = snapshot.models.filter { $0.status == .active && $0.source == .hosted }.map { "\($0.name)@\($0.version)" }
            logger.info("switched models: \(versions.isEmpty ? "all bundled" : versions.joined(separator: ", "))")
        } catch {
            logger.error("models not switched, the current ones keep serving: \(error)")
        }
    }
}
