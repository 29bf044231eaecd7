import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseModels
import SketchwisePersonal
import SketchwisePhotos
import SketchwiseRecognition
import SketchwiseServing
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
        /// Class and picture names in the languages the API speaks (nil: the bundled tables).
        public var localizer: Localizer?

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
        let models = models
        let recognizers = try await models.prepareModels()
        let serving = models.servingModels(prepared: recognizers)
        let application = try makeApplication(serving: serving)
        defer { work.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await application.runService()
                } catch let error as IOError where error.errnoCode == EADDRINUSE {
                    throw AddressInUse(host: configuration.host, port: configuration.port)
                }
            }
            group.addTask {
                let initial: ServingSnapshot
                do {
                    let database = try await models.prepareLibrary(recognizers: recognizers) { serving.startupProgress($0) }
                    initial = try await work.run { try models.snapshot(recognizers: recognizers, database: database) }
                } catch {
                    // Said first, before the listener's own messages as it shuts down.
                    if !Task.isCancelled { logger.error("start-up failed, stopping: \(error)") }
                    throw error
                }
                for broken in initial.broken { logger.warning("model \(broken.name) is broken: \(broken.problem)") }
                serving.start(with: initial)
                logger.info("ready: the library index is loaded")
                await models.keepUpToDate(serving, recognizers: recognizers)
            }
            // The server stopped (SIGTERM, SIGINT) or start-up failed: either ends the other.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The server cannot listen: another process has its address.
    struct AddressInUse: Error, CustomStringConvertible {
        let host: String
        let port: Int
        var description: String {
            "cannot listen on \(host):\(port): another process is listening there (another sketchwise serve? choose --port)"
        }
    }

    /// The model lifecycle (``ModelServing``) of this configuration.
    var models: ModelServing {
        ModelServing(
            configuration: ModelServing.Configuration(
                recognizers: configuration.recognizers, defaultModel: configuration.defaultModel,
                dataDirectory: configuration.dataDirectory, librarySources: configuration.librarySources,
                libraryLocations: configuration.libraryLocations, modelStore: configuration.modelStore,
                manifestURL: configuration.manifestURL, modelPolicy: configuration.modelPolicy,
                modelCheckInterval: configuration.modelCheckInterval, modelStartTimeout: configuration.modelStartTimeout,
                storePollInterval: configuration.storePollInterval, experiment: configuration.experiment,
                indexerExecutable: configuration.indexerExecutable, fetchedModels: configuration.photoModel?.deletingLastPathComponent()),
            work: work, logger: logger)
    }

    /// The bundled models with the model store's active versions in their place (those that
    /// pass validation; the others are logged and the bundled ones serve). Under the `latest`
    /// policy the manifest is asked first.
    public func prepareModels() async throws -> RecognizerSet {
        try await models.prepareModels()
    }

    /// The index in the data folder for the raster model of `recognizers`, built or brought up to
    /// date with progress in the log (``ModelServing/prepareLibrary(recognizers:step:)``).
    public func prepareLibrary(recognizers: RecognizerSet, step: @escaping @Sendable (String) -> Void = { _ in }) async throws
        -> LibraryDatabase
    {
        try await models.prepareLibrary(recognizers: recognizers, step: step)
    }

    /// The names of the class-name tables that ship; without them (logged) every class is named in English.
    private func bundledLocalizer() -> Localizer {
        do {
            return Localizer(classNames: try ClassNames.bundled())
        } catch {
            logger.warning("class names are in English only", metadata: ["error": "\(error)"])
            return Localizer(classNames: ClassNames(tables: [:]))
        }
    }

    /// The application answering with what `serving` holds (503 `starting` until it has a snapshot).
    func makeApplication(serving: ServingModels) throws -> Application<RouterResponder<SketchwiseRequestContext>> {
        if let web = WebImageSearchConfiguration.fromEnvironment() {
            logger.info("web image search enabled", metadata: ["endpoint": "\(web.endpoint)"])
        }
        let recognizers = serving.prepared
        let limits = configuration.limits

        let router = Router(context: SketchwiseRequestContext.self, options: .autoGenerateHeadEndpoints)
        let clients = ClientConnections()
        router.middlewares.add(ClientAddressMiddleware(proxies: configuration.trustedProxies, clients: clients, limits: limits))
        let liveSockets = LiveSocketAdmission(
            total: limits.maximumLiveSockets, perClient: limits.maximumLiveSocketsPerClient, perSecond: limits.newLiveSocketsPerSecond)
        if configuration.metrics != nil { router.middlewares.add(RequestMetricsMiddleware()) }
        router.middlewares.add(ErrorMiddleware())
        router.middlewares.add(UnservedMethodMiddleware())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(ControlCharacterPathMiddleware())
        router.middlewares.add(FileMiddleware(configuration.webFolder.path, searchForIndexHtml: true, logger: logger))
        let personalStore =
            try configuration.personalStore
            ?? SQLitePersonalStore(path: configuration.dataDirectory.appendingPathComponent("personal.sqlite").path)
        let shortcuts = try PersonalShortcuts(
            store: personalStore, embedder: try recognizers.shortcutEmbedding, work: work, limits: limits.shortcuts)
        logger.info("personal shortcuts ready", metadata: ["embedding": "\(shortcuts.embedderIdentity)"])
        let localizer = configuration.localizer ?? bundledLocalizer()
        APIRoutes(
            serving: serving, limits: limits, openAPI: configuration.webFolder.appendingPathComponent("openapi.yaml"), work: work,
            personal: PersonalRoutes(
                shortcuts: shortcuts, limits: limits, experiment: configuration.experiment, serving: serving, localizer: localizer),
            photos: PhotoRoutes(photos: loadPhotoModel(), serving: serving, limits: limits, work: work, localizer: localizer),
            metrics: configuration.metrics, localizer: localizer
        ).add(to: router)
        WebAppManifest(webFolder: configuration.webFolder).add(to: router)

        let live = LiveSocket(
            isReady: { serving.readySnapshot != nil },
            // Only asked for on sockets opened once ready (``LiveSocket/upgrade(_:)``), and a
            // ready server never loses its snapshot.
            currentService: { serving.readySnapshot!.service },
            currentSceneModels: {
                let snapshot = try serving.snapshot; return (snapshot.service.recognizer, try snapshot.recognizers.raster)
            },
            limits: limits, work: work, admission: liveSockets, proxies: configuration.trustedProxies, localizer: localizer)
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
