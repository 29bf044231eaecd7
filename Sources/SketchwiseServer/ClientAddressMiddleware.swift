import HTTPTypes
import Hummingbird
import SketchwiseTransport
import SketchwiseWork

/// Sets a request's ``SketchwiseRequestContext/client`` from `X-Forwarded-For` when its
/// connection comes from a trusted proxy, first in the chain, so that every limit after it counts
/// the real client, and the work it queues is the client's (``WorkQueue/client``). A proxied request also counts against its client's
/// ``ServerLimits/maximumConnectionsPerClient`` while in flight: the proxy's own connections are
/// exempt from that limit (``ConnectionGuard``), since they carry everyone's requests.
struct ClientAddressMiddleware: RouterMiddleware {
    let proxies: TrustedProxies
    let clients: ClientConnections
    let limits: ServerLimits

    func handle(_ request: Request, context: SketchwiseRequestContext, next: (Request, SketchwiseRequestContext) async throws -> Response)
        async throws -> Response
    {
        guard proxies.contains(context.client) else {
            return try await WorkQueue.$client.withValue(context.client) { try await next(request, context) }
        }
        var context = context
        context.client = proxies.client(peer: context.client, forwardedFor: request.headers[values: .forwardedFor])
        guard case .accepted = clients.open(context.client, limit: limits.maximumConnectionsPerClient) else {
            var error = APIError(.rateLimited, "more than \(limits.maximumConnectionsPerClient) requests of this client at once")
            error.headers[.retryAfter] = "1"
            throw error
        }
        defer { clients.close(context.client) }
        return try await WorkQueue.$client.withValue(context.client) { try await next(request, context) }
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`, which a proxy sets to the addresses a request came through.
    static let forwardedFor = Self("X-Forwarded-For")!
}
