import Logging
import NIOCore

/// Closes connections that hold the server without asking it anything: one that sends nothing,
/// one whose request headers trickle in (slow loris), one whose body never ends, one left idle
/// between requests. It sits first in every connection's pipeline and sees raw bytes, so it also
/// covers connections whose request never gets far enough for Hummingbird's own idle handler
/// (which starts after a complete request head). A connection upgraded to a WebSocket (`101`) is
/// left to its pings and message limits, with a ``ClientFrameMaskCheck`` behind the guard.
///
/// The timers, in ``ConnectionLimits``:
/// - no request under way: ``ConnectionLimits/idleTimeout`` (``ConnectionLimits/headerTimeout`` before the first byte);
/// - from a request's first byte to the end of its headers (`CRLF CRLF`): ``ConnectionLimits/headerTimeout``;
/// - from there until the answer starts: ``ConnectionLimits/bodyTimeout`` plus ``ConnectionLimits/requestTimeout``;
/// - an answer that starts before its request's body has all come (a `404`, `405`, `415` or `413`
///   refusing it): ``ConnectionLimits/bodyTimeout`` for the rest of that body, which the server reads
///   and drops. Its bytes are never taken for a new request: the ``RequestProgressObserver`` behind
///   the decoder says where each request ends.
///
/// A first line without an HTTP version is refused only where the guard knows that a read starts
/// a request: the decoder may hold the start of the next request from bytes the guard let through
/// unscanned (the rest of a body, a request pipelined behind it).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// No request under way (a new connection, or an answer started).
        case waiting
        /// Request bytes came; `matched` bytes of `CRLF CRLF` are seen at the end of what came;
        /// `requestLine` follows the first line until its end; `fromRequestStart`: the scan began at
        /// the request's first byte.
        case readingHeaders(matched: Int, requestLine: RequestLineScan?, fromRequestStart: Bool)
        /// The headers are in; the body and the work follow.
        case awaitingAnswer
        /// The answer started before the request's body had all come: the rest of it is read and
        /// dropped (the decoder says when it ends).
        case readingBodyAfterAnswer
        /// Upgraded to a WebSocket, or closing: no more timers.
        case passThrough
    }

    private let limits: ConnectionLimits
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
    /// Whether the next read starts a request: true on a new connection and after a head the guard
    /// scanned from its first byte that ended its read; false once bytes went to the decoder unscanned.
    private var nextReadStartsARequest = true

    init(limits: ConnectionLimits, clients: ClientConnections, proxies: TrustedProxies, logger: Logger) {
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
        // The guard did not see where this head ended, so neither where the next request starts.
        nextReadStartsARequest = false
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
            let fromRequestStart = nextReadStartsARequest
            state = .readingHeaders(matched: 0, requestLine: fromRequestStart ? RequestLineScan() : nil, fromRequestStart: fromRequestStart)
            arm(limits.headerTimeout, "its request headers", context: context)
            scanHeaders(bytes, context: context)
        case .readingHeaders:
            scanHeaders(bytes, context: context)
        case .awaitingAnswer, .readingBodyAfterAnswer, .passThrough:
            nextReadStartsARequest = false
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
        guard case .readingHeaders(var matched, var requestLine, let fromRequestStart) = state else { return }
        let terminator: [UInt8] = [13, 10, 13, 10]
        for (offset, byte) in bytes.readableBytesView.enumerated() {
            if var line = requestLine {
                if line.add(byte) {
                    requestLine = nil
                    guard line.hasVersion else {
                        state = .readingHeaders(matched: matched, requestLine: nil, fromRequestStart: fromRequestStart)
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
                // Bytes behind the head (a body, or the next request) go to the decoder unscanned.
                nextReadStartsARequest = fromRequestStart && offset == bytes.readableBytes - 1
                state = .awaitingAnswer
                arm(limits.bodyTimeout + limits.requestTimeout, "its request body and answer", context: context)
                return
            }
        }
        state = .readingHeaders(matched: matched, requestLine: requestLine, fromRequestStart: fromRequestStart)
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
