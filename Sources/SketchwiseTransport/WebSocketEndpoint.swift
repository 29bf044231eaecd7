import NIOCore
import NIOHTTP1

/// The one path that takes WebSockets, and what may refuse a good handshake for the server's
/// state (starting, or every live socket in use) before NIO's upgrader sees it: an upgrade the
/// upgrader declines can only be answered with a bare `400`, while a refusal here is a JSON error
/// with `Retry-After`.
package struct WebSocketEndpoint: Sendable {
    package let path: String
    /// Why a well-formed handshake from `peer` is refused now; nil lets it through.
    package let refusal: @Sendable (_ head: HTTPRequestHead, _ peer: SocketAddress?) -> PipelineRefusal?
    /// Whether a new connection from `peer` is closed as it arrives, unread: the peer keeps
    /// asking for sockets it was refused and told to wait for.
    package let turnsAway: @Sendable (_ peer: SocketAddress?) -> Bool

    package init(
        path: String,
        refusal: @escaping @Sendable (_ head: HTTPRequestHead, _ peer: SocketAddress?) -> PipelineRefusal? = { _, _ in nil },
        turnsAway: @escaping @Sendable (_ peer: SocketAddress?) -> Bool = { _ in false }
    ) {
        self.path = path
        self.refusal = refusal
        self.turnsAway = turnsAway
    }
}
