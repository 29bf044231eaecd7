import ArgumentParser
import SketchwiseServer

/// How long clients may take and how many connections they may hold (`serve`).
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds a client may take to send a request's headers, and to send anything after connecting.")
    var headerTimeout = 10.0

    @Option(help: "Seconds a client may take to send a request's body after its headers.")
    var bodyTimeout = 30.0

    @Option(help: "Seconds a connection may stay open between requests.")
    var idleTimeout = 30.0

    @Option(help: "Most connections open at once; past it the server accepts no more until one closes.")
    var maxConnections = 4096

    @Option(help: "Most connections open at once from one IP address; more are closed at once.")
    var maxConnectionsPerClient = 128

    func validate() throws {
        for (name, seconds) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout)] {
            guard seconds.isFinite, (0.1...3600).contains(seconds) else { throw ValidationError("\(name) must be within 0.1…3600 seconds") }
        }
        guard (1...1_000_000).contains(maxConnections), (1...maxConnections).contains(maxConnectionsPerClient) else {
            throw ValidationError("--max-connections must be within 1…1000000 and --max-connections-per-client within 1…--max-connections")
        }
    }

    /// `limits` with these options applied.
    func applied(to limits: ServerLimits) -> ServerLimits {
        var limits = limits
        limits.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        limits.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        limits.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        limits.maximumConnections = maxConnections
        limits.maximumConnectionsPerClient = maxConnectionsPerClient
        return limits
    }
}
