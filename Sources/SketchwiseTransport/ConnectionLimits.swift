/// The timers and the per-client connection limit of the connection pipeline
/// (``ConnectionGuard``, ``GuardedChildChannel``). The server fills them from its own limits.
package struct ConnectionLimits: Sendable, Equatable {
    /// Longest time a client may take to send a request's headers, from its first byte (and
    /// from connecting to its first byte): the defence against slow headers (slow loris).
    package var headerTimeout: Duration
    /// Longest time a client may take to send a request's body, after its headers.
    package var bodyTimeout: Duration
    /// Longest time the server may take to answer a request whose body has been read.
    package var requestTimeout: Duration
    /// Longest time a connection may stay open between requests.
    package var idleTimeout: Duration
    /// Most connections open at once from one IP address; more are closed at once.
    package var maximumConnectionsPerClient: Int

    package init(
        headerTimeout: Duration, bodyTimeout: Duration, requestTimeout: Duration, idleTimeout: Duration, maximumConnectionsPerClient: Int
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnectionsPerClient = maximumConnectionsPerClient
    }
}
