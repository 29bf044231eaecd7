import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import SketchwiseLibrary
import SketchwiseModels
import SketchwisePersonal
import SketchwisePhotos
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseTransport
import SketchwiseWork

/// The web app and the HTTP/WebSocket API in one server: static files from the app folder,
/// the JSON API under `/api`, live suggestions on `/api/live`.
public struct SketchwiseServer: Sendable {
    /// Where the server listens and what it serves.
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Holds the library index (`library.sqlite`), built on first start, and, unless
        /// ``personalStore`` is set, people's shortcuts and corrections (`personal.sqlite`).
        public var dataDirectory = URL(fileURLWithPath: "out")
        /// Users, tokens, shortcuts, corrections and A/B counts (nil: `personal.sqlite` in
        /// ``dataDirectory``); replicas share one PostgreSQL store.
        public var personalStore: (any PersonalStore)?
        /// The web app (`index.html`, modules, `openapi.yaml`).
        public var webFolder: URL
        public var recognizers: RecognizerSet
        /// The model of requests that name none, and of `/api/live` (checked to load at start).
        public var defaultModel: RecognizerKind = .ensemble
        public var limits = ServerLimits()
        /// The sources to index; those not installed are left out with a warning.
        public var librarySources = Set(LibrarySource.allCases)
        public var libraryLocations = LibraryLocations()
        /// Downloaded models; the active versions that pass validation serve instead of the
        /// bundled ones, and a change while serving is switched to within ``storePollInterval``.
        public var modelStore: ModelStore?
        /// Where hosted models are listed (nil: none).
        public var manifestURL: URL?
        /// When hosted models are looked for.
        public var modelPolicy = ModelUpdatePolicy.localOnly
        /// How long a check of the manifest stays fresh (10 days).
        public var modelCheckInterval: TimeInterval = 10 * 24 * 3600
        /// The longest wait at start for hosted models (the `latest` policy's check and download,
        /// an A/B test's download): then the server listens with what is on disk, and what is
        /// still running finishes in the background.
        public var modelStartTimeout: Duration = .seconds(30)
        /// How often the model store is looked at for switched versions.
        public var storePollInterval: Duration = .seconds(2)
        /// An A/B test: a share of people (with a bearer token) get another installed version of a model.
        public var experiment: ModelExperiment?
        /// The `sketchwise` executable, which re-indexes the library for a new raster model in a
        /// child process; nil does it on a background thread of the server.
        public var indexerExecutable: URL?
        /// Where `GET /metrics` reads from (nil: no `/metrics`); see ``ServerMetrics``.
        public var metrics: ServerMetrics?
        /// The photo model's spec (`POST /api/photo`); nil, or a file that is not there, leaves
        /// photos out (the API answers `404` saying why).
        public var photoModel: URL?
        /// The proxies in front whose `X-Forwarded-For` names the client (none by default).
        public var trustedProxies = TrustedProxies.none

        public init(webFolder: URL, recognizers: RecognizerSet) {
            self.webFolder = webFolder
            self.recognizers = recognizers
        }
    }

    public let configuration: Configuration
    public let logger: Logger
    /// Runs recognition, embedding and rendering for the requests (``ServerLimits/workerThreads``
    /// threads, ``ServerLimits/queueLength`` waiting).
    public let work: WorkQueue

    public init(configuration: Configuration, logger: Logger = Logger(label: "sketchwise")) {
        self.configuration = configuration
        self.logger = logger
        work = WorkQueue(
            threads: configuration.limits.workerThreads, queueLimit: configuration.limits.queueLength,
            queueLimitPerClient: configuration.limits.queueLengthPerClient)
    }

    /// Makes NIO's event loops (which the server's connections use) run every Swift task too, so
    /// that a request is read, answered and written on one thread instead of hopping between
    /// NIO's threads and Swift's cooperative pool (a fifth more requests per second in fast mode,
    /// `bench/load.sh --model raster`). Call it first thing in `main`, once, before any task runs;
    /// it returns false when the hook could not be installed (the server works either way).
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Picks the models (looking for hosted ones first under the `latest` policy) and starts
    /// listening: `/api/health` answers at once, `/api/ready` and the API once the library index
    /// is up to date (built on first start). Serves until SIGTERM or SIGINT, finishing the
    /// requests in flight. Meanwhile it switches to versions activated in the model store and,
    /// under the `background` policy, downloads newer ones when stale.
    public func run() async throws {
        let recognizers = try await prepareModels()
        let serving = ServingModels(
            prepared: recognizers, store: configuration.modelStore, reindexer: reindexer, logger: logger,
            indexPath: { indexPath($0) }, makeSnapshot: { try snapshot(recognizers: $0, database: $1) })
        let application = try makeApplication(serving: serving)
        defer { work.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.runService() }
            group.addTask {
                let database = try await prepareLibrary(recognizers: recognizers) { serving.startupProgress($0) }
                let initial = try await work.run { try snapshot(recognizers: recognizers, database: database) }
                for broken in initial.broken { logger.warning("model \(broken.name) is broken: \(broken.problem)") }
                serving.start(with: initial)
                logger.info("ready: the library index is loaded")
                await withTaskGroup(of: Void.self) { background in
                    background.addTask { await serving.watch(every: configuration.storePollInterval) }
                    if configuration.modelPolicy == .localThenUpdate, let manager = modelManager(recognizers) {
                        background.addTask { await refresh(manager, names: Self.modelNames(recognizers), policy: .localThenUpdate) }
                    }
                }
            }
            // The server stopped (SIGTERM, SIGINT) or start-up failed: either ends the other.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The manager of hosted models, when a store and a manifest are configured.
    func modelManager(_ recognizers: RecognizerSet) -> ModelManager? {
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
    static func modelNames(_ recognizers: RecognizerSet) -> [String] {
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
    public func prepareModels() async throws -> RecognizerSet {
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
    func indexPath(_ recognizers: RecognizerSet) -> String {
        let raster = RecognizerSet.rasterModel
        let name = recognizers.overrides[raster].map { "library-\(raster)-\($0.lastPathComponent).sqlite" } ?? "library.sqlite"
        return configuration.dataDirectory.appendingPathComponent(name).path
    }

    /// The index in the data folder for the raster model of `recognizers`, built or brought up to
    /// date with progress in the log. A missing index is built in a child process when
    /// ``Configuration/indexerExecutable`` is set, so the server never holds the build's memory;
    /// an existing one is checked for changed pictures here.
    public func prepareLibrary(recognizers: RecognizerSet, step: @escaping @Sendable (String) -> Void = { _ in }) async throws
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
    var reindexer: LibraryReindexer {
        LibraryReindexer(
            executable: configuration.indexerExecutable, sources: configuration.libraryLocations.installed(configuration.librarySources),
            locations: configuration.libraryLocations, logger: logger)
    }

    /// Recognisers and an index made into what answers requests: the library (and web image
    /// search) providers and the default model's suggestion service.
    func snapshot(recognizers: RecognizerSet, database: LibraryDatabase) throws -> ServingSnapshot {
        let library = try LibraryProvider(database: database)
        let logger = logger
        Task.detached(priority: .utility) {
            let start = ContinuousClock.now
            library.finder.warmUp(threads: 1)
            logger.info("found the library candidates of every class in \(ContinuousClock.now - start)")
        }
        let service = try SuggestionService.composed(
            library: library, web: WebImageSearchConfiguration.fromEnvironment(), recognizers: recognizers,
            model: configuration.defaultModel, work: work)
        let registry = try ModelRegistry(
            folder: recognizers.folder, store: configuration.modelStore, fetched: configuration.photoModel?.deletingLastPathComponent()
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

    /// The application answering with what `serving` holds (503 `starting` until it has a snapshot).
    func makeApplication(serving: ServingModels) throws -> some ApplicationProtocol {
        if let web = WebImageSearchConfiguration.fromEnvironment() {
            logger.info("web image search enabled", metadata: ["endpoint": "\(web.endpoint)"])
        }
        let recognizers = serving.prepared
        let limits = configuration.limits

        let router = Router(context: SketchwiseRequestContext.self, options: .autoGenerateHeadEndpoints)
        let clients = ClientConnections()
        router.middlewares.add(ClientAddressMiddleware(proxies: configuration.trustedProxies, clients: clients, limits: limits))
        let liveSockets = LiveSocketAdmission(total: limits.maximumLiveSockets, perClient: limits.maximumLiveSocketsPerClient)
        if configuration.metrics != nil { router.middlewares.add(RequestMetricsMiddleware()) }
        router.middlewares.add(ErrorMiddleware())
        router.middlewares.add(UnservedMethodMiddleware())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(ControlCharacterPathMiddleware())
        router.middlewares.add(FileMiddleware(configuration.webFolder.path, searchForIndexHtml: true, logger: logger))
        let personalStore =
            try configuration.personalStore
            ?? SQLitePersonalStore(path: configuration.dataDirectory.appendingPathComponent("personal.sqlite").path)
        let shortcuts = PersonalShortcuts(
            store: personalStore, embedder: try recognizers.shortcutEmbedding, work: work, limits: limits.shortcuts)
        logger.info("personal shortcuts ready", metadata: ["embedding": "\(shortcuts.embedderIdentity)"])
        APIRoutes(
            serving: serving, limits: limits, openAPI: configuration.webFolder.appendingPathComponent("openapi.yaml"), work: work,
            personal: PersonalRoutes(shortcuts: shortcuts, limits: limits, experiment: configuration.experiment),
            photos: PhotoRoutes(photos: loadPhotoModel(), serving: serving, limits: limits, work: work),
            metrics: configuration.metrics
        ).add(to: router)

        let live = LiveSocket(
            isReady: { serving.readySnapshot != nil },
            // Only asked for on sockets opened once ready (``LiveSocket/upgrade(_:)``), and a
            // ready server never loses its snapshot.
            currentService: { serving.readySnapshot!.service },
            currentSceneModels: {
                let snapshot = try serving.snapshot; return (snapshot.service.recognizer, try snapshot.recognizers.raster)
            },
            limits: limits, work: work, admission: liveSockets, proxies: configuration.trustedProxies)
        var applicationConfiguration = ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "sketchwise",
            availableConnectionsDelegate: LoggedConnectionLimit(limit: limits.maximumConnections, logger: logger)
        )
        applicationConfiguration.backlog = 1024
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)),
            ws: .init(maxFrameSize: limits.maximumMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)), validateUTF8: true)
        )
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channelConfiguration) { head, channel, _ in
                        live.upgrade(head, channel: channel)
                    },
                    limits: limits.connection, clients: clients, proxies: configuration.trustedProxies, webSocket: live.endpoint
                )
            },
            configuration: applicationConfiguration,
            onServerRunning: { channel in
                logger.info(
                    "Sketchwise is listening on http://\(channel.localAddress?.ipAddress ?? "?"):\(channel.localAddress?.port ?? 0)")
            },
            logger: logger
        )
        return application
    }
}

extension SketchwiseServer {
    /// The photo model and its label table, or why photos are left out (logged).
    func loadPhotoModel() -> PhotoModelState {
        guard let spec = configuration.photoModel else { return .unavailable("no photo model is configured") }
        guard FileManager.default.fileExists(atPath: spec.path) else {
            logger.warning("photos left out: no photo model at \(spec.path) (scripts/fetch-photo-model.sh installs it)")
            return .unavailable("the photo model is not installed (scripts/fetch-photo-model.sh installs it)")
        }
        do {
            let state = PhotoModelState.ready(try PhotoClassifier(contentsOf: spec), try PhotoModels.labelMapping())
            logger.info("photos ready", metadata: ["model": "\(spec.path)"])
            return state
        } catch {
            logger.error("photos left out: the photo model \(spec.path) does not load: \(error)")
            return .unavailable("the photo model does not load")
        }
    }
}
