import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SketchwiseRecognition
import SketchwiseServing
import SketchwiseTestSupport
import SketchwiseWork
import Testing
@testable import SketchwiseServer

/// The routes in process, through Hummingbird's test client (no socket, no connection pipeline),
/// on a server whose library index is not loaded yet: what answers while it starts, and the
/// errors that need no models. The real binary over HTTP is tested in Tests/Browser/test_api.py.
@Suite struct RouteTests {
    /// Runs `body` against the application of a server on the bundled models, with a fresh data
    /// folder, that has not started serving.
    static func withStartingServer(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let data = TemporaryFolder()
        let root = SharedData.packageRoot
        var configuration = SketchwiseServer.Configuration(
            webFolder: root.appendingPathComponent("Sources/SketchwiseServer/Web"),
            recognizers: try RecognizerSet.load(from: root.appendingPathComponent("Models")))
        configuration.dataDirectory = data.url
        let server = SketchwiseServer(configuration: configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        defer { server.work.close() }
        let application = try server.makeApplication(serving: server.models.servingModels(prepared: configuration.recognizers))
        try await application.test(.router, body)
    }

    /// The `code` of a JSON error body; nil when the body is not one.
    static func errorCode(_ response: TestResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func healthAnswersWhileTheServerStarts() async throws {
        try await Self.withStartingServer { client in
            try await client.execute(uri: "/api/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#""status":"starting""#))
            }
        }
    }

    @Test func limitsAreTheServersOwn() async throws {
        try await Self.withStartingServer { client in
            try await client.execute(uri: "/api/limits", method: .get) { response in
                #expect(response.status == .ok)
                let limits = try JSONDecoder().decode(LimitsBody.self, from: Data(response.body.readableBytesView))
                let defaults = ServerLimits()
                #expect(limits.strokes == defaults.maximumStrokes && limits.points == defaults.maximumPoints)
                #expect(limits.messageBytes == defaults.maximumMessageBytes && limits.messagesPerSecond == defaults.messagesPerSecond)
            }
        }
    }

    @Test func readyIsServiceUnavailableWithRetryAfterWhileTheServerStarts() async throws {
        try await Self.withStartingServer { client in
            try await client.execute(uri: "/api/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(Self.errorCode(response) == "starting")
                #expect(response.headers[.retryAfter] == "5")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            }
        }
    }

    @Test func aSuggestionWithoutStrokesIsABadRequest() async throws {
        try await Self.withStartingServer { client in
            for body in [#"{"labels": 3}"#, "not JSON", #"{"strokes": [[[1, 2], [3]]]}"#] {
                try await client.execute(
                    uri: "/api/suggest", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    #expect(Self.errorCode(response) == "bad_request", "\(body)")
                }
            }
        }
    }

    @Test func unknownPathsMethodsAndControlCharactersAreJSONErrors() async throws {
        try await Self.withStartingServer { client in
            try await client.execute(uri: "/api/nothing", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(Self.errorCode(response) == "not_found")
            }
            try await client.execute(uri: "/app.js%00.png", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("nothing at /app.js%00.png"))
            }
            try await client.execute(uri: "/api/classify", method: .delete) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
                #expect(Self.errorCode(response) == "method_not_allowed")
            }
            try await client.execute(uri: "/api/health", method: .trace) { response in
                #expect(response.status == .notImplemented)
                #expect(Self.errorCode(response) == "not_implemented")
            }
        }
    }

    /// The web app's manifest speaks the language asked for (issue 41): `lang` first, then
    /// `Accept-Language`, else English; its description is the catalog's.
    @Test func theManifestSpeaksTheLanguageAskedFor() async throws {
        let catalogs = SharedData.packageRoot.appendingPathComponent("Sources/SketchwiseServer/Web/locales")
        @Sendable func description(_ tag: String) throws -> String? {
            let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: catalogs.appendingPathComponent("\(tag).json")))
            return (catalog as? [String: Any])?["app.description"] as? String
        }
        try await Self.withStartingServer { client in
            let asked: [(uri: String, acceptLanguage: String?, tag: String, dir: String)] = [
                ("/manifest.webmanifest?lang=fr", "he", "fr", "ltr"), ("/manifest.webmanifest", "he-IL, en;q=0.5", "he", "rtl"),
                ("/manifest.webmanifest?lang=xx", nil, "en", "ltr"), ("/manifest.webmanifest?lang=zh-Hans", nil, "zh-Hans", "ltr"),
            ]
            for (uri, acceptLanguage, tag, dir) in asked {
                let headers: HTTPFields = acceptLanguage.map { [.acceptLanguage: $0] } ?? [:]
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/manifest+json; charset=utf-8")
                    let manifest = try #require(
                        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                    #expect(manifest["lang"] as? String == tag && manifest["dir"] as? String == dir, "\(uri)")
                    #expect(manifest["description"] as? String == (try description(tag)), "\(uri)")
                    #expect(manifest["name"] as? String == "Sketchwise" && (manifest["icons"] as? [Any])?.count == 2)
                }
            }
        }
    }
}
