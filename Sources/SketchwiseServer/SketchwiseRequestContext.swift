import Hummingbird
import NIOCore

/// The request context of Sketchwise's routes: Hummingbird's core context, the connection's peer
/// address and the client the request is counted against. Behind a trusted proxy
/// (``TrustedProxies``), ``ClientAddressMiddleware`` sets ``client`` to the address the proxy
/// forwarded; otherwise it is the peer's. Every per-client limit and rate uses ``client``.
struct SketchwiseRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection's peer (the proxy, behind one).
    let remoteAddress: SocketAddress?
    /// The client's IP address as text ("unknown" when the socket has none).
    var client: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        client = remoteAddress?.ipAddress ?? "unknown"
    }
}
