import Foundation
import Hummingbird
import Logging
import NIOCore
import SketchwiseModels
import SketchwiseServer

/// Serves a folder of models as a hosted source: `GET /manifest.json` (made from the folder on
/// every request, so models dropped in appear at once) and the model files themselves.
struct ManifestServer: Sendable {
    let folder: URL
    let host: String
    let port: Int
    let logger: Logger

    init(folder: URL, host: String = "127.0.0.1", port: Int = 8081, logger: Logger = Logger(label: "sketchwise.manifest")) {
        self.folder = folder
        self.host = host
        self.port = port
        self.logger = logger
    }

    /// Serves until SIGTERM or SIGINT; `onRunning` gets the port listened on (for port 0).
    func run(onRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let router = Router()
        router.middlewares.add(ErrorMiddleware())
        let folder = folder
        router.get("manifest.json") { _, _ in
            do {
                return try json(try ModelManifest.describing(folder: folder))
            } catch {
                throw APIError(.internalError, "cannot describe \(folder.lastPathComponent): \((error as NSError).localizedDescription)")
            }
        }
        router.middlewares.add(FileMiddleware(folder.path, logger: logger))
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "sketchwise-models"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        try await application.runService()
    }
}
