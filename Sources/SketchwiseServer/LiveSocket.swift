import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseRecognition
import SketchwiseScenes
import SketchwiseSuggestions
import SketchwiseTransport
import SketchwiseWork
import Synchronization

/// `/api/live`: one canvas per connection. The client sends strokes as they are drawn (or the
/// whole sketch); the server answers each state with guesses and suggestions through a
/// ``SuggestionPipeline``, so only the latest state's answer is ever sent. Every guess sent gets
/// pictures (or visibly none), so pictures are found for all of them.
struct LiveSocket: Sendable {
    /// Whether the server is ready; before that no socket opens (the route answers 503).
    let isReady: @Sendable () -> Bool
    /// The service of the models serving now (asked for each query).
    let currentService: @Sendable () -> SuggestionService
    /// What labels and tracks a scene's objects now (the default recogniser and the raster model).
    let currentSceneModels: @Sendable () throws -> (recognizer: SketchRecognizer, embedder: ModelRecognizer)
    let limits: ServerLimits
    /// Where scene detection runs.
    let work: WorkQueue
    /// The live sockets open, in total and per client.
    let admission: LiveSocketAdmission
    /// The proxies whose `X-Forwarded-For` names the client.
    let proxies: TrustedProxies
    /// Class and picture names in the language of each connection.
    let localizer: Localizer

    /// The one path that upgrades to a WebSocket.
    static let path = "/api/live"

    /// Whether a handshake request upgrades: only for ``path`` (any query), once ready, and while
    /// ``admission`` has a slot for the client (held until the connection closes). A handshake
    /// that does not upgrade reaches the `GET /api/live` route, which says why. The upgrade goes
    /// through a plain closure rather than hummingbird-websocket's router, whose request context
    /// holds itself through its handler box (a reference cycle in 2.8.1 that kept about 1 KB per
    /// connection for ever).
    func upgrade(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        guard isReady(), head.path?.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == Substring(Self.path)
        else {
            return .dontUpgrade
        }
        let client = proxies.client(
            peer: channel.remoteAddress?.ipAddress ?? "unknown", forwardedFor: head.headerFields[values: .forwardedFor])
        guard admission.admit(client) else { return .dontUpgrade }
        channel.closeFuture.whenComplete { [admission] _ in admission.release(client) }
        let lang = head.path.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "lang" }?.value }
        let locale = LanguagePreference.locale(lang: lang, acceptLanguage: head.headerFields[.acceptLanguage])
        return .upgrade([:]) { inbound, outbound, context in
            try await WorkQueue.$client.withValue(client) {
                try await serve(inbound: inbound, outbound: outbound, locale: locale, logger: context.logger)
            }
        }
    }

    /// The endpoint, refusing handshakes before the upgrader while the server starts
    /// (`503 starting`), when the client's or the server's live sockets are all in use, and past
    /// the server's pace of new ones (`503 busy`, `Retry-After`). A client that asks again at once after
    /// ``LiveSocketAdmission/perClient`` such refusals has its connections closed unread until its
    /// `Retry-After` has passed (unless it is a trusted proxy, which speaks for others).
    var endpoint: WebSocketEndpoint {
        WebSocketEndpoint(path: Self.path) { [self] head, peer in
            guard isReady() else { return APIError.starting("the library index is loading").pipelineRefusal }
            let client = proxies.client(peer: peer?.ipAddress ?? "unknown", forwardedFor: head.headers["x-forwarded-for"])
            guard let refusal = admission.refusal(for: client) else { return nil }
            var error = APIError(.busy, "\(refusal.reason); try again later")
            error.headers[.retryAfter] = ClientRateLimiter.retryAfter(refusal.retryAfter)
            return error.pipelineRefusal
        } turnsAway: { [admission, proxies] peer in
            guard let address = peer?.ipAddress, !proxies.contains(address) else { return false }
            return admission.ignoresRetryAfter(address)
        }
    }

    /// Serves one connection until the client closes it.
    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, locale: AppLocale, logger: Logger) async throws {
        let pipeline = SuggestionPipeline(currentService: currentService, timeout: limits.requestTimeout)
        let scenes = ScenePipeline(makeDetector: sceneDetector) { [work, limits] detector, sketch in
            try await work.run(deadline: limits.requestDeadline) { try detector.detect(sketch) }
        }
        let language = SessionLanguage(locale)
        let activity = LastActivity()
        let idleWatch = Task { try await closeWhenIdle(outbound, activity: activity) }
        defer { idleWatch.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in pipeline.updates {
                    let text: String
                    switch update.outcome {
                    case let .success(result):
                        let names = LocalizedNames(localizer: localizer, locale: language.locale)
                        text = SuggestBody(result, names: names, type: .result, seq: update.query).json.text
                    case let .failure(error):
                        let apiError = APIError(work: error) ?? APIError(.internalError, "the server failed to answer")
                        if apiError.code == .internalError { logger.error("live query failed", metadata: ["error": "\(error)"]) }
                        text = try Self.encode(SocketErrorBody(seq: update.query, error: apiError.body.error))
                    }
                    try await outbound.write(.text(text))
                }
            }
            group.addTask {
                for await update in scenes.updates {
                    let names = LocalizedNames(localizer: localizer, locale: language.locale)
                    try await outbound.write(.text(Self.sceneMessage(update, names: names, logger: logger)))
                }
            }
            defer { group.cancelAll() }
            var session = LiveSession(input: SketchInput(limits: limits), rate: RateLimiter(perSecond: limits.messagesPerSecond))
            do {
                for try await message in inbound.messages(maxSize: limits.maximumMessageBytes) {
                    activity.touch()
                    guard case let .text(text) = message else {
                        let error = APIError(.badRequest, "messages are JSON text; a binary message is not read")
                        try await outbound.write(.text(Self.encode(SocketErrorBody(seq: nil, error: error.body.error))))
                        continue
                    }
                    let data = Data(text.utf8)
                    do {
                        if let (seq, sketch) = try session.receive(data) {
                            if let chosen = session.locale { language.locale = chosen }
                            await pipeline.submit(sketch, query: seq, labels: pipeline.service.guessCount, style: session.style)
                            if session.scene {
                                await scenes.submit(sketch, seq: seq)
                            } else {
                                await scenes.reset()
                            }
                        }
                    } catch let error as LiveSession.Refusal {
                        try await outbound.write(.text(Self.encode(SocketErrorBody(seq: error.seq, error: error.error.body.error))))
                    }
                }
            } catch {
                // The WebSocket layer closes with the code its error carries: 1009 for a message
                // over the limit, 1007 for text that is not UTF-8, 1002 for a protocol error.
                logger.info("live connection ended", metadata: ["reason": "\(error)"])
                await pipeline.finish()
                await scenes.finish()
                group.cancelAll()
                throw error
            }
            await pipeline.finish()
            await scenes.finish()
            try await group.waitForAll()
        }
    }

    /// Closes the socket (code 1001, going away) once no message has come for
    /// ``ServerLimits/liveIdleTimeout``; ends when the task is cancelled.
    private func closeWhenIdle(_ outbound: WebSocketOutboundWriter, activity: LastActivity) async throws {
        let timeout = limits.liveIdleTimeout
        while true {
            let idle = ContinuousClock.now - activity.last
            guard idle < timeout else {
                try await outbound.close(.goingAway, reason: "no message for \(Int(timeout.inSeconds)) s")
                return
            }
            try await Task.sleep(for: timeout - idle)
        }
    }

    /// A stream-mode scene detector over the models serving now.
    private func sceneDetector() throws -> SceneDetector {
        let (recognizer, embedder) = try currentSceneModels()
        return try SceneDetector(options: .init(mode: .stream), recognizer: recognizer, embedder: embedder)
    }

    /// `{"type": "scene", "seq", "objects"}` for one state of the canvas, or the error message.
    private static func sceneMessage(_ update: ScenePipeline.Update, names: LocalizedNames, logger: Logger) throws -> String {
        switch update.outcome {
        case let .success(objects):
            return try encode(SceneMessage(seq: update.seq, objects: names.objects(objects)))
        case let .failure(error):
            let apiError = APIError(work: error) ?? APIError(.internalError, "the server failed to find the scene's objects")
            if apiError.code == .internalError { logger.error("live scene failed", metadata: ["error": "\(error)"]) }
            return try encode(SocketErrorBody(seq: update.seq, error: apiError.body.error))
        }
    }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try jsonData(value), as: UTF8.self)
    }
}

/// The sketch of one connection and what its messages do to it.
struct LiveSession {
    /// A message that is refused, with the error to send back.
    struct Refusal: Error {
        var seq: UInt64?
        var error: APIError
    }

    let input: SketchInput
    var rate: RateLimiter
    private(set) var strokes: [Stroke] = []
    /// The pictures' style, set by any message's `"style"` and kept for the next ones.
    private(set) var style: PictureStyle?
    /// Whether each state's objects are sent too (`"scene": true` in any message, kept until false).
    private(set) var scene = false
    /// The answers' language, set by any message's `"lang"` and kept for the next ones (nil: the
    /// handshake's `lang` or `Accept-Language`). A tag Sketchwise does not speak leaves it as it was.
    private(set) var locale: AppLocale?
    private var lastSeq: UInt64?

    init(input: SketchInput, rate: RateLimiter) {
        self.input = input
        self.rate = rate
    }

    /// Applies one message; returns the sketch to answer and its number.
    /// - Throws: ``Refusal`` for a message over the rate, one that is not understood, or one
    ///   that would break the limits (the sketch is then unchanged).
    mutating func receive(_ data: Data, now: ContinuousClock.Instant = .now) throws(Refusal) -> (UInt64, StrokeSketch)? {
        let object: [String: JSONValue]
        do { object = try input.object(data) } catch { throw Refusal(seq: nil, error: error) }
        var seq: UInt64?
        if case let .number(n)? = object["seq"], n >= 0, n == n.rounded(), n < 9e15 { seq = UInt64(n) }
        guard rate.allow(now: now) else {
            throw Refusal(seq: seq, error: APIError(.rateLimited, "more than \(Int(rate.perSecond)) messages per second"))
        }
        guard let seq else { throw Refusal(seq: nil, error: APIError(.badRequest, "\"seq\" must be a whole number ≥ 0")) }
        if let lastSeq, seq <= lastSeq {
            throw Refusal(seq: seq, error: APIError(.badRequest, "\"seq\" \(seq) is not above the last one, \(lastSeq)"))
        }
        var next = strokes
        var nextStyle = style
        var nextScene = scene
        var nextLocale = locale
        do {
            nextStyle = try input.style(object) ?? style
            switch object["lang"] {
            case nil, .null?: break
            case let .string(tag)? where tag.count <= 35: nextLocale = AppLocale(tag: tag) ?? locale
            default: throw APIError(.badRequest, LocalizedNames.badTag)
            }
            switch object["scene"] {
            case nil, .null?: break
            case let .bool(on)?: nextScene = on
            default: throw APIError(.badRequest, "\"scene\" must be true or false")
            }
            guard case let .string(name)? = object["type"], let type = LiveInboundType(rawValue: name) else {
                throw APIError(.badRequest, "\"type\" must be \(LiveInboundType.choices)")
            }
            switch type {
            case .stroke:
                guard let stroke = object["stroke"] else { throw APIError(.badRequest, "a stroke message needs \"stroke\"") }
                next += try input.strokes([stroke])
            case .undo: next = Array(next.dropLast())
            case .clear: next = []
            case .sketch: next = try input.sketch(object).strokes
            }
            try input.checkLimits(next)
        } catch let error as APIError {
            throw Refusal(seq: seq, error: error)
        } catch {
            throw Refusal(seq: seq, error: APIError(.badRequest, "\(error)"))
        }
        strokes = next
        style = nextStyle
        scene = nextScene
        locale = nextLocale
        lastSeq = seq
        return (seq, StrokeSketch(strokes: strokes))
    }
}

/// The language a connection's answers are written in, shared by the task that reads its
/// messages and the one that writes its answers.
final class SessionLanguage: Sendable {
    private let current: Mutex<AppLocale>

    init(_ locale: AppLocale) {
        current = Mutex(locale)
    }

    var locale: AppLocale {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// A token bucket: `perSecond` messages a second, with bursts of up to one second's worth.
struct RateLimiter {
    let perSecond: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(perSecond: Double) {
        self.perSecond = perSecond
        tokens = perSecond
    }

    mutating func allow(now: ContinuousClock.Instant) -> Bool {
        if let last {
            tokens = min(perSecond, tokens + (now - last).inSeconds * perSecond)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// When a live socket last received a message. Thread-safe.
final class LastActivity: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var last: ContinuousClock.Instant { instant.withLock { $0 } }

    func touch() { instant.withLock { $0 = .now } }
}
