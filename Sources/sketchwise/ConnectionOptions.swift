import ArgumentParser
import SketchwiseServer
import SketchwiseTransport

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

    @Option(
        help:
            "Most connections open at once from one IP address; more are closed at once. Behind a trusted proxy: most requests in flight at once for one forwarded client."
    )
    var maxConnectionsPerClient = 128

    @Option(help: "Most live sockets (/api/live) open at once (default: a quarter of --max-connections, so plain HTTP always has room).")
    var maxLiveSockets: Int?

    @Option(help: "Most live sockets open at once for one client.")
    var maxLiveSocketsPerClient = 16

    @Option(help: "New live sockets the server opens a second at most, in bursts of as many (0: no pace).")
    var newLiveSocketsPerSecond = 64

    @Option(help: "Seconds a live socket may stay open without a message (answering pings does not count).")
    var liveIdleTimeout = 600.0

    @Option(
        help: ArgumentHelp(
            "Comma-separated addresses and CIDR ranges of the proxies in front (such as 127.0.0.1 or 10.0.0.0/8): their X-Forwarded-For names the client for every per-client limit. None by default.",
            valueName: "addresses"),
        transform: { text in
            do { return try TrustedProxies(parsing: text) } catch { throw ValidationError("--trusted-proxies: \(error)") }
        })
    var trustedProxies = TrustedProxies.none

    func validate() throws {
        for (name, seconds) in [
            ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout),
            ("--live-idle-timeout", liveIdleTimeout),
        ] {
            guard seconds.isFinite, (0.1...3600).contains(seconds) else { throw ValidationError("\(name) must be within 0.1…3600 seconds") }
        }
        guard (1...1_000_000).contains(maxConnections), (1...maxConnections).contains(maxConnectionsPerClient) else {
            throw ValidationError("--max-connections must be within 1…1000000 and --max-connections-per-client within 1…--max-connections")
        }
        if let maxLiveSockets, !(1..<maxConnections).contains(maxLiveSockets) {
            throw ValidationError(
                "--max-live-sockets must be at least 1 and below --max-connections (\(maxConnections)), so that plain HTTP always has room")
        }
        guard (1...maxConnections).contains(maxLiveSocketsPerClient) else {
            throw ValidationError("--max-live-sockets-per-client must be within 1…--max-connections")
        }
        guard (0...100_000).contains(newLiveSocketsPerSecond) else {
            throw ValidationError("--new-live-sockets-per-second must be within 0…100000")
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
        limits.maximumLiveSockets = maxLiveSockets ?? max(1, maxConnections / 4)
        limits.maximumLiveSocketsPerClient = maxLiveSocketsPerClient
        limits.newLiveSocketsPerSecond = newLiveSocketsPerSecond
        limits.liveIdleTimeout = .milliseconds(Int64(liveIdleTimeout * 1000))
        return limits
    }
}
