import Foundation
import Logging
import SketchwiseLibrary
import SketchwiseModels
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseWork

/// How a server's models and library index are chosen, built and kept up to date: hosted models
/// looked for at start (the `latest` policy, an A/B test's version), the library index for the
/// raster model, the snapshots requests are answered with (``ServingSnapshot``), and while serving
/// the switch to versions activated in the store (``ServingModels``) and background downloads.
package struct ModelServing: Sendable {
    /// What the server was told about its models and library (`sketchwise serve`'s options).
    package struct Configuration: Sendable {
        /// The bundled models.
        package var recognizers: RecognizerSet
        /// The model of requests that name none, and of `/api/live`.
        package var defaultModel: RecognizerKind
        /// Holds the library indexes (`library.sqlite`, and one per downloaded raster model).
        package var dataDirectory: URL
        package var librarySources: Set<LibrarySource>
        package var libraryLocations: LibraryLocations
        /// Downloaded models; their active versions that pass validation serve.
        package var modelStore: ModelStore?
        /// Where hosted models are listed (nil: none).
        package var manifestURL: URL?
        package var modelPolicy: ModelUpdatePolicy
        /// How long a check of the manifest stays fresh.
        package var modelCheckInterval: TimeInterval
        /// The longest wait at start for hosted models.
        package var modelStartTimeout: Duration
        /// How often the model store is looked at for switched versions.
        package var storePollInterval: Duration
        /// An A/B test: a share of people get another installed version of a model.
        package var experiment: ModelExperiment?
        /// The `sketchwise` executable, which re-indexes the library in a child process; nil does
        /// it on a background thread.
        package var indexerExecutable: URL?
        /// The folder of fetched models (the photo model's), which the registry lists too.
        package var fetchedModels: URL?

        package init(
            recognizers: RecognizerSet, defaultModel: RecognizerKind, dataDirectory: URL, librarySources: Set<LibrarySource>,
            libraryLocations: LibraryLocations, modelStore: ModelStore?, manifestURL: URL?, modelPolicy: ModelUpdatePolicy,
            modelCheckInterval: TimeInterval, modelStartTimeout: Duration, storePollInterval: Duration, experiment: ModelExperiment?,
            indexerExecutable: URL?, fetchedModels: URL?
        ) {
            self.recognizers = recognizers
            self.defaultModel = defaultModel
            self.dataDirectory = dataDirectory
            self.librarySources = librarySources
            self.libraryLocations = libraryLocations
            self.modelStore = modelStore
            self.manifestURL = manifestURL
            self.modelPolicy = modelPolicy
            self.modelCheckInterval = modelCheckInterval
            self.modelStartTimeout = modelStartTimeout
            self.storePollInterval = storePollInterval
            self.experiment = experiment
            self.indexerExecutable = indexerExecutable
            self.fetchedModels = fetchedModels
        }
    }

    package let configuration: Configuration
    /// Where the library index is checked and snapshots' services run their work.
    package let work: WorkQueue
    package let logger: Logger

    package init(configuration: Configuration, work: WorkQueue, logger: Logger) {
        self.configuration = configuration
        self.work = work
        self.logger = logger
    }

    /// The models that answer, switched while serving; requests get `503 starting` until
    /// ``ServingModels/start(with:)``.
    package func servingModels(prepared recognizers: RecognizerSet) -> ServingModels {
        ServingModels(
            prepared: recognizers, store: configuration.modelStore, reindexer: reindexer, logger: logger,
            indexPath: { indexPath($0) }, makeSnapshot: { try snapshot(recognizers: $0, database: $1) })
    }

    /// Once the server is ready: switches to versions activated in the model store and, under
    /// the `background` policy, downloads newer ones when stale; until the task is cancelled.
    package func keepUpToDate(_ serving: ServingModels, recognizers: RecognizerSet) async {
        await withTaskGroup(of: Void.self) { background in
            background.addTask { await serving.watch(every: configuration.storePollInterval) }
            if configuration.modelPolicy == .localThenUpdate, let manager = modelManager(recognizers) {
                background.addTask { await refresh(manager, names: Self.modelNames(recognizers), policy: .localThenUpdate) }
            }
        }
    }

    /// The manager of hosted models, when a store and a manifest are configured.
    package func modelManager(_ recognizers: RecognizerSet) -> ModelManager? {
        guard let store = configuration.modelStore, let manifest = configuration.manifestURL else { return nil }
        let logger = logger
        return ModelManager(store: store, bundled: recognizers.folder, manifestURL: manifest) { event in
            switch event {
            case let .began(name, version, bytes): logger.info("downloading model \(name) \(version) (\(bytes) bytes)")
            case let .progress(name, received, total): logger.debug("model \(name): \(received)/\(total) bytes")
            case let .retrying(name, attempt, reason): logger.warning("model \(name): retry \(attempt) after: \(reason)")
            case let .succeeded(name, version): logger.info("model \(name) \(version) is installed and active")
            case let .failed(name, reason): logger.warning("model \(name) not downloaded, what was serving still serves: \(reason)")
            }
        }
    }

    /// Every model name the server may use: the bundled folder's and the store's.
    package static func modelNames(_ recognizers: RecognizerSet) -> [String] {
        let bundled = ((try? FileManager.default.contentsOfDirectory(atPath: recognizers.folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") && $0 != "ensemble.json" }.map { String($0.dropLast(5)) }
        return Array(Set(bundled)).sorted()
    }

    /// Asks the manifest for newer versions as `policy` says (each transfer within its deadline).
    private func refresh(_ manager: ModelManager, names: [String], policy: ModelUpdatePolicy) async {
        await manager.configure(stalenessInterval: configuration.modelCheckInterval)
        let work = work
        let conditions = DownloadConditions(isIdle: { work.waitingCount == 0 })
        for (name, outcome) in await manager.refresh(names, policy: policy, conditions: conditions) {
            if case let .success(installed?) = outcome {
                logger.info("model \(name): \(installed.version) downloaded (\(policy.rawValue) policy)")
            }
        }
    }

    /// The bundled models with the model store's active versions in their place (those that
    /// pass validation; the others are logged and the bundled ones serve). Under the `latest`
    /// policy the manifest is asked first.
    package func prepareModels() async throws -> RecognizerSet {
        let bundled = configuration.recognizers
        guard let store = configuration.modelStore else { return bundled }
        for removed in store.recover() { logger.warning("model store: removed \(removed), left by an interrupted download") }
        let latest = configuration.modelPolicy == .latest
        let experiment = configuration.experiment.flatMap { store.versions(of: $0.model).contains($0.version) ? nil : $0 }
        if latest || experiment != nil, let manager = modelManager(bundled) {
            // Bounded, so that a stuck host never keeps the server from listening.
            let names = Self.modelNames(bundled), wait = configuration.modelStartTimeout
            let finished = await ModelManager.run(
                {
                    if latest { await refresh(manager, names: names, policy: .latest) }
                    if let experiment { _ = try? await manager.download(experiment.model, version: experiment.version, activate: false) }
                }, waitingAtMost: wait)
            if !finished {
                logger.warning(
                    "hosted models: not done after \(wait); serving what is on disk, a newer version is switched to once downloaded")
            }
        }
        let overrides = ServingModels.validated(store.activeFolders(), bundled: bundled.folder, logger: logger)
        for (name, folder) in overrides.sorted(by: { $0.key < $1.key }) {
            logger.info("model \(name): downloaded version \(folder.lastPathComponent) serves")
        }
        return bundled.replacing(overrides: overrides)
    }

    /// The index file of a recogniser set: `library.sqlite` for the bundled raster model,
    /// `library-raster-cnn-<version>.sqlite` for a downloaded one.
    package func indexPath(_ recognizers: RecognizerSet) -> String {
        let raster = RecognizerSet.rasterModel
        let name = recognizers.overrides[raster].map { "library-\(raster)-\($0.lastPathComponent).sqlite" } ?? "library.sqlite"
        return configuration.dataDirectory.appendingPathComponent(name).path
    }

    /// The index in the data folder for the raster model of `recognizers`, built or brought up to
    /// date with progress in the log. A missing index is built in a child process when
    /// ``Configuration/indexerExecutable`` is set, so the server never holds the build's memory;
    /// an existing one is checked for changed pictures here.
    package func prepareLibrary(recognizers: RecognizerSet, step: @escaping @Sendable (String) -> Void = { _ in }) async throws
        -> LibraryDatabase
    {
        let path = indexPath(recognizers)
        let locations = configuration.libraryLocations
        let sources = locations.installed(configuration.librarySources)
        for missing in configuration.librarySources.subtracting(sources).sorted(by: { $0.rawValue < $1.rawValue }) {
            logger.warning(
                "library source \(missing.rawValue) left out: \(locations.location(of: missing).path) is missing (install \(missing.package) with scripts/install-deps.sh)"
            )
        }
        let threads = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        let logger = logger
        let lastLogged = LockedValue(-1)
        let log: @Sendable (Int, Int) -> Void = { done, total in
            let percent = total == 0 ? 100 : 100 * done / total
            step("indexing the library: \(done)/\(total)")
            if lastLogged.exchange(percent) / 10 != percent / 10 || done == total {
                logger.info("indexing the library: \(done)/\(total) (\(percent)%)")
            }
        }
        if configuration.indexerExecutable != nil, !FileManager.default.fileExists(atPath: path) {
            logger.info("building the library index in a child process", metadata: ["db": "\(path)"])
            try await reindexer.build(at: path, recognizers: recognizers, threads: threads, progress: log)
            logger.info("library ready")
            return try LibraryDatabase(path: path)
        }
        step("checking the library index")
        var builder = IndexBuilder(sources: sources, locations: locations)
        builder.threads = threads
        logger.info("checking the library index", metadata: ["db": "\(path)"])
        let database = try LibraryDatabase(path: path)
        // On a worker thread: the event loops meanwhile answer /api/health and /api/ready.
        let report = try await work.run { [builder] in
            try builder.build(into: database, embedder: try PictureEmbedder(recognizer: try recognizers.raster)) { log($0.done, $0.total) }
        }
        logger.info("library ready", metadata: ["summary": "\(report.summary.replacingOccurrences(of: "\n", with: "; "))"])
        return database
    }

    /// Builds indexes for raster models other than the one the server started with.
    package var reindexer: LibraryReindexer {
        LibraryReindexer(
            executable: configuration.indexerExecutable, sources: configuration.libraryLocations.installed(configuration.librarySources),
            locations: configuration.libraryLocations, logger: logger)
    }

    /// Recognisers and an index made into what answers requests: the library (and web image
    /// search) providers and the default model's suggestion service.
    package func snapshot(recognizers: RecognizerSet, database: LibraryDatabase) throws -> ServingSnapshot {
        let library = try LibraryProvider(database: database)
        let logger = logger
        // On a thread of its own, not in a task: the server runs Swift tasks on its event loops
        // (`runTasksOnEventLoops`), and a minute of work there would stall that loop's connections.
        let warmUp = Thread {
            let start = ContinuousClock.now
            library.finder.warmUp(threads: 1)
            logger.info("found the library candidates of every class in \(ContinuousClock.now - start)")
        }
        warmUp.qualityOfService = .utility
        warmUp.start()
        let service = try SuggestionService.composed(
            library: library, web: WebImageSearchConfiguration.fromEnvironment(), recognizers: recognizers,
            model: configuration.defaultModel, work: work)
        let registry = try ModelRegistry(
            folder: recognizers.folder, store: configuration.modelStore, fetched: configuration.fetchedModels
        ).models(overrides: recognizers.overrides)
        return ServingSnapshot(
            recognizers: recognizers, service: service, database: database, images: PictureImages(database: database),
            libraryItems: try database.itemCounts().values.reduce(0, +), models: registry.models, broken: registry.broken,
            treatment: treatment(of: recognizers, service: service))
    }

    /// The treatment arm of the configured A/B test: the recognisers with the experiment's version
    /// in place. Nil (everyone gets the control) when that version is not installed or not valid.
    private func treatment(of recognizers: RecognizerSet, service: SuggestionService) -> ServingSnapshot.Treatment? {
        guard let experiment = configuration.experiment, let store = configuration.modelStore else { return nil }
        let folder = store.folder(of: experiment.model, version: experiment.version)
        let valid = ServingModels.validated([experiment.model: folder], bundled: recognizers.folder, logger: logger)
        guard !valid.isEmpty else {
            logger.warning(
                "A/B test \(experiment.name) not running: that version is not installed or not valid (sketchwise models download \(experiment.name) --no-activate)"
            )
            return nil
        }
        do {
            let variant = recognizers.replacing(overrides: recognizers.overrides.merging(valid) { $1 })
            return .init(
                experiment: experiment, recognizers: variant,
                service: service.answering(with: try variant.recognizer(configuration.defaultModel)))
        } catch {
            logger.warning("A/B test \(experiment.name) not running: \(error)")
            return nil
        }
    }
}
