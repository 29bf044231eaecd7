import ArgumentParser
import Foundation
import Logging
import SketchwiseInstallation
import SketchwiseLibrary
import SketchwiseModels
import SketchwisePhotos
import SketchwisePostgres
import SketchwiseRecognition
import SketchwiseServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the drawing web app and the HTTP/WebSocket API.",
        discussion: """
            On start the suggestion library is indexed into DIR/library.sqlite if it is missing or \
            out of date (progress in the log). Then http://HOST:PORT/ serves the app and /api the API \
            (described at /api/openapi.yaml). SIGTERM or SIGINT stop the server after the requests in \
            flight. $SKETCHWISE_IMAGE_SEARCH_ENDPOINT adds a Bing-v7-style web image search. Models \
            activated in the model store (`sketchwise models download|use|rollback`) are switched to \
            within seconds, without a restart; a new raster model is re-indexed in a child process \
            while the old index serves.
            """
    )

    @Option(
        help: ArgumentHelp(
            "A settings file of lines SKETCHWISE_NAME=VALUE, one per option --NAME (default: $SKETCHWISE_CONFIG). Every option can also be set in the environment as SKETCHWISE_NAME; the command line wins over the environment, which wins over the file.",
            valueName: "file"))
    var config: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(help: "The folder for the library index (and personal.sqlite, unless --database says otherwise).")
    var dataDir = "out"

    @OptionGroup var database: DatabaseOption

    @Option(help: "The web app folder (default: $SKETCHWISE_WEB, the installation's share/sketchwise/web, or the source tree's).")
    var webDir: String?

    @Option(
        help:
            "The photo model's spec for POST /api/photo (default: efficientnet-lite0.json in $SKETCHWISE_PHOTO_MODELS, the installation's share/sketchwise/photo-models or /usr/local/share/sketchwise/photo-models, where scripts/fetch-photo-model.sh puts it)."
    )
    var photoModel: String?

    @Option(
        help: "Comma-separated library sources: \(LibrarySource.names) (default: every one installed).",
        transform: { try LibrarySource.list($0) })
    var sources: Set<LibrarySource> = Set(LibrarySource.allCases)

    @OptionGroup var modelOptions: ModelOptions

    @OptionGroup(title: "Connections") var connectionOptions: ConnectionOptions

    @OptionGroup(title: "Requests") var requestOptions: RequestOptions

    @OptionGroup(title: "Personal quotas") var quotaOptions: QuotaOptions

    @Option(help: ArgumentHelp("The model of requests that name none (and of /api/live): \(ModelOptions.modelHelp)."))
    var model: RecognizerKind = .ensemble

    @Option(help: "The hosted models' manifest URL (default: $SKETCHWISE_MODEL_MANIFEST).")
    var manifest: String?

    @Option(
        help:
            "When hosted models are looked for: local (never), background (serve what is on disk, download newer versions in the background when the last check is stale), latest (check before serving)."
    )
    var modelUpdates: ModelUpdatePolicy = .localThenUpdate

    @Option(help: "Days a check of the manifest stays fresh.")
    var modelCheckDays: Double = 10

    @Option(
        help:
            "Seconds the server waits at start for hosted models (--model-updates latest, --ab-test) before it listens with what is on disk; what is still running then finishes in the background."
    )
    var modelStartTimeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "An A/B test: NAME@VERSION[:PERCENT] gives that installed version of a model to PERCENT % of people (50 by default; by their user, so only requests with a bearer token), the others keep the active one. /api/models counts each arm's suggestions answered and accepted.",
            valueName: "name@version[:percent]"))
    var abTest: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    @Option(help: "Log lines as text, or as JSON objects (time, level, label, message, source, metadata) for log collectors.")
    var logFormat: LogFormat = .text

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0…65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        if let abTest { _ = try ModelExperiment(parsing: abTest) }
        guard modelCheckDays >= 0 else { throw ValidationError("--model-check-days must not be negative") }
        guard modelStartTimeout > 0, modelStartTimeout <= 3600 else {
            throw ValidationError("--model-start-timeout must be within 0…3600 seconds")
        }
        if let manifest, URL(string: manifest)?.scheme == nil {
            throw ValidationError("--manifest must be a URL, e.g. http://127.0.0.1:8081/manifest.json")
        }
    }

    func run() async throws {
        let metrics = ServerMetrics.bootstrap()
        if logFormat == .json { LoggingSystem.bootstrap { JSONLogHandler(label: $0) } }
        var logger = Logger(label: "sketchwise")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        do {
            try await serve(metrics: metrics, logger: logger)
        } catch where logFormat == .json {
            // A JSON log stays JSON to its last line: why the server stopped is an entry of its own.
            logger.critical("sketchwise serve stopped: \(error)")
            throw ExitCode.failure
        }
    }

    /// Checks the settings, then serves until SIGTERM or SIGINT.
    private func serve(metrics: ServerMetrics, logger: Logger) async throws {
        let location = try database.location(fallback: URL(fileURLWithPath: dataDir).appendingPathComponent("personal.sqlite").path)
        let web = try webDir.map { URL(fileURLWithPath: $0) } ?? InstalledResource.web.folder()
        guard FileManager.default.fileExists(atPath: web.appendingPathComponent("index.html").path) else {
            throw ValidationError("no web app (index.html) in \(web.path)")
        }
        var configuration = SketchwiseServer.Configuration(
            webFolder: web, recognizers: try RecognizerSet.load(folder: modelOptions.models, densePrecision: modelOptions.densePrecision))
        let modelStore = modelOptions.store(dataDirectory: dataDir)
        try checkModelIsOnDisk(in: configuration.recognizers, store: modelStore)
        configuration.modelStore = modelStore
        configuration.manifestURL = manifest.flatMap(URL.init(string:)) ?? ModelManager.environmentManifestURL
        configuration.modelPolicy = modelUpdates
        configuration.modelCheckInterval = modelCheckDays * 24 * 3600
        configuration.modelStartTimeout = .milliseconds(Int64(modelStartTimeout * 1000))
        configuration.indexerExecutable = Bundle.main.executableURL
        configuration.metrics = metrics
        configuration.experiment = try abTest.map(ModelExperiment.init(parsing:))
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = URL(fileURLWithPath: dataDir)
        configuration.librarySources = sources
        configuration.photoModel = photoModel.map { URL(fileURLWithPath: $0) } ?? PhotoModels.defaultSpec
        configuration.defaultModel = model
        configuration.limits = requestOptions.applied(to: connectionOptions.applied(to: configuration.limits))
        configuration.limits = quotaOptions.applied(to: configuration.limits)
        configuration.trustedProxies = connectionOptions.trustedProxies
        logger.info("personal database: \(location.description)")
        try await location.withStore(logger: logger) { store in
            configuration.personalStore = store
            try await SketchwiseServer(configuration: configuration, logger: logger).run()
        }
    }

    /// Refuses a `--model` name that is neither a role nor a model of the folder or the store now,
    /// which would otherwise be found only once the library index is built (minutes on a first start).
    private func checkModelIsOnDisk(in recognizers: RecognizerSet, store: ModelStore) throws {
        guard !RecognizerKind.roles.contains(model), !recognizers.has(model), store.versions(of: model.rawValue).isEmpty else { return }
        throw ValidationError(
            "--model \(model.rawValue): no \(model.fileName) in \(recognizers.folder.path) and no downloaded version (sketchwise models list names the models)"
        )
    }
}
