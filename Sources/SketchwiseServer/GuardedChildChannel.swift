import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Wraps a server's child channel so that every connection starts with a ``ConnectionGuard``.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limits: ServerLimits
    let clients: ClientConnections
    let proxies: TrustedProxies
    /// The WebSocket endpoint.
    let webSocket: WebSocketEndpoint

    /// Adds the guard first, lets the inner channel set up its HTTP pipeline, then puts a
    /// ``RequestProgressObserver`` right after the request decoder: it tells the guard where each
    /// request ends, and a request the decoder cannot parse (garbage, conflicting lengths, a TLS
    /// hello, an HTTP/2 preface, a bad chunk size) is answered `400` and the connection closed,
    /// instead of getting no answer. After it come a
    /// ``WebSocketHandshakeCheck`` (bad handshakes get JSON errors) and a ``ConnectionCloseHandler``
    /// (answers saying `Connection: close` close the connection; HTTP/1.0 requests are answered
    /// as 1.0 and closed).
    /// A connection the WebSocket endpoint turns away is closed before any of this.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if webSocket.turnsAway(channel.remoteAddress) {
            return channel.close().flatMapThrowing { throw TurnedAway() }
        }
        // The handler lives on the channel's event loop; every closure below runs there.
        let guardHandler = NIOLoopBound(
            ConnectionGuard(limits: limits, clients: clients, proxies: proxies, logger: logger), eventLoop: channel.eventLoop)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(guardHandler.value, position: .first)
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addRequestChecks(connectionGuard: guardHandler.value, webSocket: webSocket)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        var quieter = logger
        quieter.handler = ConnectionLogHandler(base: logger.handler)
        await inner.handle(value: value, logger: quieter)
    }
}

/// Why a connection was closed as it arrived (``WebSocketEndpoint/turnsAway``).
struct TurnedAway: Error {}

extension ChannelPipeline.SynchronousOperations {
    /// Puts the checks behind the request decoder of an HTTP pipeline set up already: the
    /// ``RequestProgressObserver``, the ``WebSocketHandshakeCheck`` and the ``ConnectionCloseHandler``.
    func addRequestChecks(connectionGuard: ConnectionGuard, webSocket: WebSocketEndpoint) throws {
        let decoder = try context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let observer = RequestProgressObserver(connectionGuard: connectionGuard)
        let handshakeCheck = WebSocketHandshakeCheck(endpoint: webSocket)
        try addHandler(observer, position: .after(decoder.handler))
        try addHandler(handshakeCheck, position: .after(observer))
        try addHandler(ConnectionCloseHandler(), position: .after(handshakeCheck))
    }
}
