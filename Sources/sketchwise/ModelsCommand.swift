import ArgumentParser
import Foundation
import Logging
import SketchwiseModels
import SketchwisePhotos
import SketchwiseRecognition
import SketchwiseServer

struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "The models: bundled, downloaded from a hosted manifest, which version serves, rollback.",
        subcommands: [
            ModelsListCommand.self, ModelsDownloadCommand.self, ModelsUseCommand.self, ModelsRollbackCommand.self,
            ModelsDeleteCommand.self, ModelsServeManifestCommand.self,
        ]
    )
}

struct ModelsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every model: version, SHA-256 of its weights, size, input, labels, source, status and active roles.",
        discussion:
            "Sources: bundled (the models folder), hosted (downloaded into the model store). A downloaded version that is active serves instead of the bundled model of its name. Roles: raster (raster-cnn), strokes (stroke-rnn), embedding (the shortcut embedding: sketch-embedding, else raster-cnn), ensemble (the members of ensemble.json). A model whose files cannot be read is listed as broken, with why."
    )

    @OptionGroup var modelOptions: ModelFolderOptions

    @Flag(help: "Print one JSON object: {\"models\": […], \"broken\": […]}.")
    var json = false

    func run() throws {
        let store = modelOptions.recoveredStore()
        let registry = try modelOptions.registry(store: store)
        let (models, broken) = try registry.models()
        if json {
            struct Listing: Encodable { let models: [RegisteredModel]; let broken: [BrokenModel] }
            try printJSON(Listing(models: models, broken: broken))
            return
        }
        print(
            "models in \(registry.folder.path) (\(registry.folderSource.rawValue)), \(PhotoModels.folder.path) (fetched) and \(store.folder.path) (hosted):"
        )
        for model in models {
            let roles = model.roles.isEmpty ? "-" : model.roles.map(\.rawValue).joined(separator: ",")
            let columns = [
                model.name.padded(18), model.version.padded(7), model.source.rawValue.padded(8), model.status.rawValue.padded(9),
                model.input.rawValue.padded(8), "\(model.labels) labels".padded(11), "\(model.size) B".padded(11),
                "sha256 \(model.sha256.prefix(12))…", "roles: \(roles)",
            ]
            print("  " + columns.joined(separator: " "))
        }
        for model in broken { print("  \(model.name): broken: \(model.problem)") }
    }
}

struct ModelsDownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a hosted model, verify and validate it, install it and make it active.",
        discussion: """
            The manifest (JSON: {"models": [{"name", "version", "url", "sha256", "size", "spec": {"url", \
            "sha256", "size"}, "minimumSketchwiseVersion"}]}) names the files. Both are checked against \
            their SHA-256, loaded and given a smoke prediction before the new version is installed \
            (staging folder, then one rename) and activated; the version it replaces is kept for \
            `models rollback`. Network faults and server errors are retried with back-off, within the \
            deadlines; a body is cut off at its declared size. Exits 1, \
            saying why, when the model is refused; what served before still serves. A running server \
            switches to the new version within seconds.
            """
    )

    @Argument(help: "NAME or NAME@VERSION (default: the newest version this Sketchwise can run).")
    var model: String

    @Option(help: "The manifest URL (default: $SKETCHWISE_MODEL_MANIFEST).")
    var manifest: String?

    @Option(help: "Refuse models larger than this many bytes (a manifest may declare at most 4 GiB a file).")
    var maxBytes = 256 << 20

    @Option(help: "Only download within these hours of the day, local time: FROM-TO, e.g. 1-5 or 22-6.")
    var hours: String?

    @Option(help: "Retries of transient faults (network, timeout, HTTP 5xx), with doubling back-off.")
    var retries = 3

    @Option(help: "Seconds in which less than a byte a second arrives before a transfer is given up.")
    var timeout: Double = 30

    @Option(help: "Seconds the model's files may take in all, retries included.")
    var deadline: Double = 900

    @Option(help: "Seconds the manifest may take in all, retries included.")
    var manifestDeadline: Double = 30

    @Flag(help: "Install without making it the active version.")
    var noActivate = false

    @OptionGroup var modelOptions: ModelFolderOptions

    func validate() throws {
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be within 0…10") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        for (name, seconds) in [("--timeout", timeout), ("--deadline", deadline), ("--manifest-deadline", manifestDeadline)] {
            guard seconds > 0, seconds <= 7 * 24 * 3600 else { throw ValidationError("\(name) must be within 0…604800 seconds (a week)") }
        }
        _ = try parsedHours()
    }

    func parsedHours() throws -> Range<Int>? {
        guard let hours else { return nil }
        let parts = hours.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy((0...24).contains), parts[0] != parts[1] else {
            throw ValidationError("--hours takes FROM-TO, two different hours within 0…24, e.g. 1-5")
        }
        return Range(uncheckedBounds: (parts[0], parts[1]))
    }

    func run() async throws {
        let (name, version) = try ModelReference.parse(model)
        guard let url = manifest.flatMap(URL.init(string:)) ?? ModelManager.environmentManifestURL else {
            throw ValidationError("\(ModelLifecycleError.noManifest)")
        }
        let bundled = try RecognizerSet.load(folder: modelOptions.models).folder
        let store = modelOptions.recoveredStore()
        let manager = ModelManager(store: store, bundled: bundled, manifestURL: url) { event in
            switch event {
            case let .began(name, version, bytes): StandardError.print("downloading \(name) \(version) (\(bytes) bytes)")
            case let .progress(_, received, total):
                StandardError.progress("\(received)/\(total) bytes (\(100 * received / max(total, 1))%)")
            case let .retrying(_, attempt, reason): StandardError.print("\nretry \(attempt): \(reason)")
            case .succeeded, .failed: StandardError.progress("")
            }
        }
        await manager.configure(retries: retries, timeout: timeout, deadline: deadline, manifestDeadline: manifestDeadline)
        do {
            let installed = try await manager.download(
                name, version: version, conditions: DownloadConditions(maximumBytes: maxBytes, allowedHours: try parsedHours()),
                activate: !noActivate)
            let state = noActivate ? "installed (not active)" : "installed and active"
            print(
                "\(installed.name) \(installed.version) \(state)\(installed.transferred ? "" : ", already downloaded") in \(installed.folder.path)"
            )
        } catch {
            StandardError.print("refused \(model): \(error)")
            throw ExitCode.failure
        }
    }
}

/// `NAME` or `NAME@VERSION` on the command line.
enum ModelReference {
    static func parse(_ text: String, versionRequired: Bool = false) throws -> (name: String, version: String?) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard ModelStore.isPlainName(parts[0]), parts.count == 1 || ModelStore.isPlainName(parts[1]), !versionRequired || parts.count == 2
        else {
            throw ValidationError(
                versionRequired ? "expected NAME@VERSION, e.g. raster-cnn@2.0.0" : "expected NAME or NAME@VERSION, e.g. raster-cnn@2.0.0")
        }
        return (parts[0], parts.count == 2 ? parts[1] : nil)
    }
}

struct ModelsUseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use",
        abstract: "Make an installed version the active one, after a trial load and smoke prediction.",
        discussion: "NAME@bundled goes back to the bundled model."
    )

    @Argument(help: "NAME@VERSION")
    var model: String

    @OptionGroup var modelOptions: ModelFolderOptions

    func run() throws {
        let (name, version) = try ModelReference.parse(model, versionRequired: true)
        let store = modelOptions.recoveredStore()
        do {
            if version == "bundled" {
                try store.deactivate(name)
                print("\(name): the bundled model is active")
                return
            }
            guard let version, store.versions(of: name).contains(version) else {
                let bundled = try modelOptions.registry(store: store).models().models.first { $0.name == name && $0.source != .hosted }?.version
                if let bundled, bundled == version {
                    try store.deactivate(name)
                    print("\(name) \(bundled), the bundled model, is active")
                    return
                }
                let installed = store.versions(of: name).joined(separator: ", ")
                let fallback = bundled.map { "; bundled: \($0), as \(name)@bundled" } ?? ""
                throw ModelLifecycleError.notInstalled("\(model) (installed: \(installed.isEmpty ? "none" : installed)\(fallback))")
            }
            try ModelValidation.check(name, in: store.folder(of: name, version: version))
            try store.activate(name, version: version)
            print("\(name) \(version) is active")
        } catch {
            StandardError.print("refused \(model): \(error)")
            throw ExitCode.failure
        }
    }
}

struct ModelsRollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Go back to the version active before the current one (or to the bundled model)."
    )

    @Argument(help: "The model's name.")
    var name: String

    @OptionGroup var modelOptions: ModelFolderOptions

    func run() throws {
        let store = modelOptions.recoveredStore()
        guard store.canRollBack(name) else {
            StandardError.print("\(name): the bundled model is already active; nothing to roll back")
            throw ExitCode.failure
        }
        let now = try store.rollback(name)
        print("\(name): \(now.map { "version \($0)" } ?? "the bundled model") is active")
    }
}

struct ModelsDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every downloaded version of a model; the bundled one serves again."
    )

    @Argument(help: "The model's name.")
    var name: String

    @OptionGroup var modelOptions: ModelFolderOptions

    func run() throws {
        do {
            try modelOptions.recoveredStore().delete(name)
            print("\(name): downloaded versions deleted; the bundled model is active")
        } catch {
            StandardError.print("\(name): \(error)")
            throw ExitCode.failure
        }
    }
}

struct ModelsServeManifestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-manifest",
        abstract: "Serve a folder of models (NAME.safetensors + NAME.json) and a generated /manifest.json over HTTP.",
        discussion:
            "A hosted source for tests and small deployments: point `models download --manifest` or $SKETCHWISE_MODEL_MANIFEST at http://HOST:PORT/manifest.json."
    )

    @Argument(help: "The folder of models.")
    var folder: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed on start).")
    var port = 8081

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0…65535") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("\(folder): no such folder")
        }
    }

    func run() async throws {
        let models = try ModelManifest.describing(folder: URL(fileURLWithPath: folder)).models.count
        var logger = Logger(label: "sketchwise.manifest")
        logger.logLevel = .warning
        let host = host
        try await ManifestServer(folder: URL(fileURLWithPath: folder), host: host, port: port, logger: logger).run { port in
            FileHandle.standardOutput.write(Data("serving \(models) models: http://\(host):\(port)/manifest.json\n".utf8))
        }
    }
}

extension String {
    /// The string padded with spaces to `width` characters (longer ones are kept whole).
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
