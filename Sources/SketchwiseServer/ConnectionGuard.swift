import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Closes connections that hold the server without asking it anything: one that sends nothing,
/// one whose request headers trickle in (slow loris), one whose body never ends, one left idle
/// between requests. It sits first in every connection's pipeline and sees raw bytes, so it also
/// covers connections whose request never gets far enough for Hummingbird's own idle handler
/// (which starts after a complete request head). A connection upgraded to a WebSocket (`101`) is
/// left to its pings and message limits, with a ``ClientFrameMaskCheck`` behind the guard.
///
/// The timers, in ``ServerLimits``:
/// - no request under way: ``ServerLimits/idleTimeout`` (``ServerLimits/headerTimeout`` before the first byte);
/// - from a request's first byte to the end of its headers (`CRLF CRLF`): ``ServerLimits/headerTimeout``;
/// - from there until the answer starts: ``ServerLimits/bodyTimeout`` plus ``ServerLimits/requestTimeout``;
/// - an answer that starts before its request's body has all come (a `404`, `405`, `415` or `413`
///   refusing it): ``ServerLimits/bodyTimeout`` for the rest of that body, which the server reads
///   and drops. Its bytes are never taken for a new request: the ``RequestProgressObserver`` behind
///   the decoder says where each request ends.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// No request under way (a new connection, or an answer started).
        case waiting
        /// Request bytes came; `matched` bytes of `CRLF CRLF` are seen at the end of what came;
        /// `requestLine` follows the first line until its end.
        case readingHeaders(matched: Int, requestLine: RequestLineScan?)
        /// The headers are in; the body and the work follow.
        case awaitingAnswer
        /// The answer started before the request's body had all come: the rest of it is read and
        /// dropped (the decoder says when it ends).
        case readingBodyAfterAnswer
        /// Upgraded to a WebSocket, or closing: no more timers.
        case passThrough
    }

    private let limits: ServerLimits
    private let clients: ClientConnections
    /// Proxies whose connections carry many clients: not held to the per-client limit.
    private let proxies: TrustedProxies
    private let logger: Logger
    private var state = State.waiting
    private var timer: Scheduled<Void>?
    /// The client's address once its connection is counted (refused connections are not).
    private var client: String?
    /// Requests whose head the decoder has passed on but whose end it has not yet.
    private var unendedRequests = 0

    init(limits: ServerLimits, clients: ClientConnections, proxies: TrustedProxies, logger: Logger) {
        self.limits = limits
        self.clients = clients
        self.proxies = proxies
        self.logger = logger
    }

    /// This handler's context, for answering from the front of the pipeline.
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context: context) }
    }

    /// Answers `400 Bad Request` as raw bytes from the front of the pipeline (past the HTTP
    /// encoder, whatever state it is in) and closes the connection; unless an answer has started.
    func refuseUnparsableRequest() {
        guard let context else { return }
        switch state {
        case .readingHeaders, .awaitingAnswer:
            state = .passThrough
            timer?.cancel()
            let answer =
                "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(Self.badRequestBody.utf8.count)\r\n\r\n\(Self.badRequestBody)"
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
        case .waiting, .readingBodyAfterAnswer, .passThrough:
            // Nothing is written after an answer has started: the connection just closes.
            state = .passThrough
            timer?.cancel()
            context.close(promise: nil)
        }
    }

    /// The decoder passed on a request's head. Its bytes may have come behind the previous
    /// request's end, in one read the guard let through whole, or ended its headers with bare
    /// line feeds, which the guard's scan for `CRLF CRLF` does not see.
    func requestHeadDecoded() {
        unendedRequests += 1
        guard let context else { return }
        switch state {
        case .waiting, .readingHeaders: break
        case .awaitingAnswer, .readingBodyAfterAnswer, .passThrough: return
        }
        state = .awaitingAnswer
        arm(limits.bodyTimeout + limits.requestTimeout, "its request body and answer", context: context)
    }

    /// The decoder passed on a request's end.
    func requestEnded() {
        unendedRequests = max(0, unendedRequests - 1)
        guard case .readingBodyAfterAnswer = state, unendedRequests == 0, let context else { return }
        state = .waiting
        arm(limits.idleTimeout, "a new request", context: context)
    }

    private static let badRequestBody = #"{"error":{"code":"bad_request","message":"the request is not valid HTTP/1.1"}}"#

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        switch state {
        case .waiting:
            state = .readingHeaders(matched: 0, requestLine: RequestLineScan())
            arm(limits.headerTimeout, "its request headers", context: context)
            scanHeaders(bytes, context: context)
        case .readingHeaders:
            scanHeaders(bytes, context: context)
        case .awaitingAnswer, .readingBodyAfterAnswer, .passThrough:
            return context.fireChannelRead(data)
        }
        // A request refused while its headers were read goes no further.
        if case .passThrough = state { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .passThrough = state {
        } else {
            let bytes = unwrapOutboundIn(data)
            if let status = Self.statusCode(startingResponse: bytes), status == 101 || status >= 200 {
                if status == 101 {
                    state = .passThrough
                    timer?.cancel()
                    try? context.pipeline.syncOperations.addHandler(ClientFrameMaskCheck(), position: .after(self))
                } else if unendedRequests > 0 {
                    state = .readingBodyAfterAnswer
                    arm(limits.bodyTimeout, "the rest of a request body it was answered before", context: context)
                } else {
                    state = .waiting
                    arm(limits.idleTimeout, "a new request", context: context)
                }
            } else if case .waiting = state {
                arm(limits.idleTimeout, "a new request", context: context)
            }
        }
        context.write(data, promise: promise)
    }

    /// Counts the connection for its client, refusing it past the per-client limit, and starts
    /// the first timer.
    private func start(context: ChannelHandlerContext) {
        guard client == nil else { return }
        if case .passThrough = state { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if proxies.contains(address) {
            // A trusted proxy's requests count against the clients it forwards (ClientAddressMiddleware).
            return arm(limits.headerTimeout, "its first request", context: context)
        }
        switch clients.open(address, limit: limits.maximumConnectionsPerClient) {
        case .accepted: client = address
        case .refused(let firstTime):
            if firstTime {
                logger.warning(
                    "connection limit per client reached: closing new connections",
                    metadata: [
                        "client": "\(address)", "limit": "\(limits.maximumConnectionsPerClient)",
                    ])
            }
            state = .passThrough
            context.close(promise: nil)
            return
        }
        arm(limits.headerTimeout, "its first request", context: context)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        if let client {
            clients.close(client)
            self.client = nil
        }
        state = .passThrough
    }

    /// Looks for the end of the headers (`CRLF CRLF`), which may be split across reads. A first
    /// line without an HTTP version (an HTTP/0.9 request, which the decoder would wait on until
    /// the header timeout) is answered `400` and the connection closed.
    private func scanHeaders(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard case .readingHeaders(var matched, var requestLine) = state else { return }
        let terminator: [UInt8] = [13, 10, 13, 10]
        for byte in bytes.readableBytesView {
            if var line = requestLine {
                if line.add(byte) {
                    requestLine = nil
                    guard line.hasVersion else {
                        state = .readingHeaders(matched: matched, requestLine: nil)
                        return refuseUnparsableRequest()
                    }
                } else {
                    requestLine = line
                }
            }
            if byte == terminator[matched] {
                matched += 1
            } else {
                matched = byte == 13 ? 1 : 0
            }
            if matched == 4 {
                state = .awaitingAnswer
                arm(limits.bodyTimeout + limits.requestTimeout, "its request body and answer", context: context)
                return
            }
        }
        state = .readingHeaders(matched: matched, requestLine: requestLine)
    }

    private func arm(_ delay: Duration, _ waitingFor: String, context: ChannelHandlerContext) {
        timer?.cancel()
        let bound = NIOLoopBound((context: context, logger: logger), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            let (context, logger) = bound.value
            logger.debug(
                "closing a connection that took too long to send \(waitingFor)",
                metadata: [
                    "client": "\(context.channel.remoteAddress?.ipAddress ?? "unknown")"
                ])
            context.close(promise: nil)
        }
    }

    /// The status code when `bytes` start an HTTP/1 response (`HTTP/1.1 200 …`).
    static func statusCode(startingResponse bytes: ByteBuffer) -> Int? {
        guard bytes.readableBytes >= 12,
            let start = bytes.getString(at: bytes.readerIndex, length: 12),
            start.hasPrefix("HTTP/1."), start.utf8.count == 12
        else { return nil }
        return Int(start.dropFirst(9).prefix(3))
    }
}

/// Follows a request's first line, byte by byte, to tell whether it names an HTTP version.
struct RequestLineScan {
    /// The last 6 bytes seen, oldest in the high bits.
    private var recent: UInt64 = 0
    private(set) var hasVersion = false

    /// `" HTTP/"`, as `recent` holds it.
    private static let version = " HTTP/".utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

    /// Takes the next byte; returns true when it ends the line (LF).
    mutating func add(_ byte: UInt8) -> Bool {
        if byte == 10 { return true }
        recent = (recent << 8 | UInt64(byte)) & 0xFFFF_FFFF_FFFF
        if recent == Self.version { hasVersion = true }
        return false
    }
}

/// How many connections each client (remote IP address) has open; shared by all connections.
final class ClientConnections: @unchecked Sendable {
    enum Admission: Equatable {
        case accepted
        /// Refused; `firstTime` is true when the client has just reached its limit (worth a log line).
        case refused(firstTime: Bool)
    }

    private let lock = NSLock()
    private var open: [String: Int] = [:]
    private var atLimit: Set<String> = []

    /// Counts a new connection of `client`, unless it has `limit` open already.
    func open(_ client: String, limit: Int) -> Admission {
        lock.withLock {
            let count = open[client, default: 0]
            guard count < limit else {
                return .refused(firstTime: atLimit.insert(client).inserted)
            }
            open[client] = count + 1
            return .accepted
        }
    }

    /// Counts a connection of `client` as closed.
    func close(_ client: String) {
        lock.withLock {
            let count = open[client, default: 1] - 1
            open[client] = count > 0 ? count : nil
            atLimit.remove(client)
        }
    }
}

/// The global connection limit (Hummingbird stops accepting past it), with a log line when it is
/// reached and when connections are accepted again.
struct LoggedConnectionLimit: AvailableConnectionsDelegate {
    let limit: Int
    let logger: Logger
    private var count = 0

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    mutating func connectionOpened() {
        count += 1
        if count == limit {
            logger.warning("connection limit reached: new connections wait until one closes", metadata: ["limit": "\(limit)"])
        }
    }

    mutating func connectionClosed() {
        count -= 1
        if count == limit - 1 { logger.info("accepting connections again", metadata: ["open": "\(count)"]) }
    }

    func isAcceptingNewConnections() -> Bool { count < limit }
}

/// Sits right after the HTTP request decoder and tells the connection's ``ConnectionGuard`` what
/// the decoder found: where each request ends (so that the guard knows which bytes after an early
/// answer are still the body), and a request it cannot parse (answered `400` and closed). Reads
/// and writes pass untouched; after a WebSocket upgrade it only passes bytes on.
final class RequestProgressObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart

    private let connectionGuard: ConnectionGuard
    private var upgrade = UpgradeTracker()

    init(connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if upgrade.readsRequestParts {
            switch unwrapInboundIn(data) {
            case let .head(head):
                upgrade.passed(head)
                connectionGuard.requestHeadDecoded()
            case .body: break
            case .end: connectionGuard.requestEnded()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if upgrade.writesResponseParts, case let .head(head) = unwrapOutboundIn(data) { upgrade.answering(head) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { connectionGuard.refuseUnparsableRequest() }
        context.fireErrorCaught(error)
    }
}

/// A connection's logger that reports a connection closed before its first request (Hummingbird
/// logs it as an error, "Error handling upgrade result", with the channel's state error) at
/// debug level: the guard closes such connections on purpose, by the thousand under a slow-loris
/// attack, and one error line each would flood the log.
struct ConnectionLogHandler: LogHandler {
    var base: any LogHandler

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, event.message.description == "Error handling upgrade result",
            case let .string(error)? = event.metadata?["error.type"], error.hasPrefix("Inappropriate operation") || error.contains("closed")
        {
            guard base.logLevel <= .debug else { return }
            event.level = .debug
        }
        base.log(event: event)
    }
}
