import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Wraps a server's child channel so that every connection starts with a ``ConnectionGuard``.
package struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Inner.Value

    let inner: Inner
    let limits: ConnectionLimits
    let clients: ClientConnections
    let proxies: TrustedProxies
    /// The WebSocket endpoint.
    let webSocket: WebSocketEndpoint

    package init(inner: Inner, limits: ConnectionLimits, clients: ClientConnections, proxies: TrustedProxies, webSocket: WebSocketEndpoint) {
        self.inner = inner
        self.limits = limits
        self.clients = clients
        self.proxies = proxies
        self.webSocket = webSocket
    }

    /// Adds the guard first, lets the inner channel set up its HTTP pipeline, then puts a
    /// ``RequestProgressObserver`` right after the request decoder: it tells the guard where each
    /// request ends, and a request the decoder cannot parse (garbage, conflicting lengths, a TLS
    /// hello, an HTTP/2 preface, a bad chunk size) is answered `400` and the connection closed,
    /// instead of getting no answer. After it come a
    /// ``WebSocketHandshakeCheck`` (bad handshakes get JSON errors) and a ``ConnectionCloseHandler``
    /// (answers saying `Connection: close` close the connection; HTTP/1.0 requests are answered
    /// as 1.0 and closed).
    /// A connection the WebSocket endpoint turns away is closed before any of this.
    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
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

    package func handle(value: Value, logger: Logger) async {
        var quieter = logger
        quieter.handler = ConnectionLogHandler(base: logger.handler)
        await inner.handle(value: value, logger: quieter)
    }
}
