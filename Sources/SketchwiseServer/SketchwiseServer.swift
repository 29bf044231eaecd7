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
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseWork

/// The web app and the HTTP/WebSocket API in one server: static files from the app folder,
/// the JSON API under `/api`, live suggestions on `/api/live`.
public struct SketchwiseServer: Sendable {
    /// Where the server listens and what it serves.
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Holds the library index (`library.sqlite`), built on first start, and people's
        /// shortcuts and corrections (`personal.sqlite`).
        public var dataDirectory = URL(fileURLWithPath: "out")
        /// The web app (`index.html`, modules, `openapi.yaml`).
        public var webFolder: URL
        public var recognizers: RecognizerSet
        /// The model of requests that name none, and of `/api/live` (checked to load at start).
        public var defaultModel: RecognizerKind = .ensemble
        public var limits = ServerLimits()
        /// The sources to index; those not installed are left out with a warning.
        public var librarySources = Set(LibrarySource.allCases)
        public var libraryLocations = LibraryLocations()

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
        work = WorkQueue(threads: configuration.limits.workerThreads, queueLimit: configuration.limits.queueLength)
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

    /// Brings the library index up to date (building it on first start), then serves until
    /// SIGTERM or SIGINT, finishing the requests in flight.
    public func run() async throws {
        let database = try prepareLibrary()
        let application = try makeApplication(database: database)
        defer { work.close() }
        try await application.runService()
    }

    /// The index in the data folder, built or brought up to date with progress in the log.
    public func prepareLibrary() throws -> LibraryDatabase {
        let path = configuration.dataDirectory.appendingPathComponent("library.sqlite").path
        let database = try LibraryDatabase(path: path)
        let locations = configuration.libraryLocations
        let sources = locations.installed(configuration.librarySources)
        for missing in configuration.librarySources.subtracting(sources).sorted(by: { $0.rawValue < $1.rawValue }) {
            logger.warning("library source \(missing.rawValue) left out: \(locations.location(of: missing).path) is missing (install \(missing.package) with scripts/install-deps.sh)")
        }
        var builder = IndexBuilder(sources: sources, locations: locations)
        builder.threads = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        logger.info("checking the library index", metadata: ["db": "\(path)"])
        var lastLogged = -1
        let report = try builder.build(into: database, embedder: try PictureEmbedder(recognizer: try configuration.recognizers.raster)) { progress in
            let percent = progress.total == 0 ? 100 : 100 * progress.done / progress.total
            if percent / 10 != lastLogged / 10 || progress.done == progress.total {
                lastLogged = percent
                logger.info("indexing the library: \(progress.done)/\(progress.total) (\(percent)%)")
            }
        }
        logger.info("library ready", metadata: ["summary": "\(report.summary.replacingOccurrences(of: "\n", with: "; "))"])
        return database
    }

    /// The application over a prepared index.
    public func makeApplication(database: LibraryDatabase) throws -> some ApplicationProtocol {
        let recognizers = configuration.recognizers
        let library = try LibraryProvider(database: database)
        let logger = logger
        Task.detached(priority: .utility) {
            let start = ContinuousClock.now
            library.finder.warmUp(threads: 1)
            logger.info("found the library candidates of every class in \(ContinuousClock.now - start)")
        }
        var providers: [any SuggestionProvider] = [library]
        if let web = WebImageSearchConfiguration.fromEnvironment() {
            logger.info("web image search enabled", metadata: ["endpoint": "\(web.endpoint)"])
            providers.append(WebImageSearchProvider(configuration: web, embedder: try PictureEmbedder(recognizer: try recognizers.raster)))
        }
        let service = SuggestionService(recognizer: try recognizers.recognizer(configuration.defaultModel), providers: providers, work: work)
        let items = try database.itemCounts().values.reduce(0, +)
        let limits = configuration.limits

        let router = Router()
        router.middlewares.add(ErrorMiddleware())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(ControlCharacterPathMiddleware())
        router.middlewares.add(FileMiddleware(configuration.webFolder.path, searchForIndexHtml: true, logger: logger))
        let personalStore = try SQLitePersonalStore(path: configuration.dataDirectory.appendingPathComponent("personal.sqlite").path)
        let shortcuts = PersonalShortcuts(store: personalStore, embedder: try recognizers.shortcutEmbedding)
        logger.info("personal shortcuts ready", metadata: ["embedding": "\(shortcuts.embedderIdentity)", "db": "\(personalStore.path)"])
        let registry = try ModelRegistry(folder: recognizers.folder).models()
        for broken in registry.broken { logger.warning("model \(broken.name) is broken: \(broken.problem)") }
        APIRoutes(
            recognizers: recognizers, service: service, images: PictureImages(database: database), libraryItems: items,
            limits: limits, openAPI: configuration.webFolder.appendingPathComponent("openapi.yaml"), work: work,
            personal: PersonalRoutes(shortcuts: shortcuts, limits: limits, work: work),
            models: ModelListBody(models: registry.models, broken: registry.broken)
        ).add(to: router)

        let live = LiveSocket(service: service, limits: limits)
        var applicationConfiguration = ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "sketchwise",
            availableConnectionsDelegate: LoggedConnectionLimit(limit: limits.maximumConnections, logger: logger)
        )
        applicationConfiguration.backlog = 1024
        let clients = ClientConnections()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)),
            ws: .init(maxFrameSize: limits.maximumMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)), validateUTF8: true)
        )
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedChildChannel(
                    inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channelConfiguration) { head, _, _ in
                        live.upgrade(head)
                    },
                    limits: limits, clients: clients, webSocketPath: LiveSocket.path
                )
            },
            configuration: applicationConfiguration,
            onServerRunning: { channel in
                logger.info("Sketchwise is listening on http://\(channel.localAddress?.ipAddress ?? "?"):\(channel.localAddress?.port ?? 0)")
            },
            logger: logger
        )
    }

    /// Where the web app is looked for, in order: `$SKETCHWISE_WEB`, `Sources/SketchwiseServer/Web`
    /// under the working folder, and under the package the executable was built in.
    public static var defaultWebFolders: [URL] {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["SKETCHWISE_WEB"] { folders.append(URL(fileURLWithPath: override)) }
        let relative = "Sources/SketchwiseServer/Web"
        folders.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative))
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            folders.append(folder.appendingPathComponent(relative))
        }
        return folders
    }
}
