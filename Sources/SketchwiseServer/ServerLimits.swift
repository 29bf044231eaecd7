import Foundation
import SketchwiseCore
import SketchwisePersonal
import SketchwisePhotos
import SketchwiseTransport
import SketchwiseWork

/// What one request or connection may ask of the server.
public struct ServerLimits: Sendable, Equatable {
    /// Largest request body, in bytes.
    public var maximumBodyBytes = 1 << 20
    /// Largest photo (`POST /api/photo`), in bytes and in declared pixels, checked before decoding.
    public var photo = PhotoLimits()
    /// Most strokes in one sketch.
    public var maximumStrokes = SketchSizeLimits().maximumStrokes
    /// Most points in one sketch, all strokes together.
    public var maximumPoints = SketchSizeLimits().maximumPoints
    /// Largest WebSocket message, in bytes; a larger one closes the connection.
    public var maximumMessageBytes = 256 << 10
    /// WebSocket messages per second per connection; more are refused with `rate_limited`.
    public var messagesPerSecond = 50.0
    /// Longest time a request's recognition, pictures or rendering may take, from when its body
    /// has been read: past it the request is answered `503 timeout` (within 0.1 s) and its work
    /// stops at its next check (between strokes, model layers and stages).
    public var requestTimeout: Duration = .seconds(10)
    /// When a request whose body has been read now must be answered.
    var requestDeadline: ContinuousClock.Instant { .now + requestTimeout }
    /// Threads that run recognition, embedding and rendering (by default one per core and one more:
    /// ``WorkQueue/defaultThreadCount``).
    public var workerThreads = WorkQueue.defaultThreadCount
    /// Most requests waiting for a worker thread; past it requests are answered `503 busy` with
    /// `Retry-After` at once.
    public var queueLength = 256
    /// Longest time a client may take to send a request's headers, from its first byte (and
    /// from connecting to its first byte): the defence against slow headers (slow loris).
    public var headerTimeout: Duration = .seconds(10)
    /// Longest time a client may take to send a request's body, after its headers.
    public var bodyTimeout: Duration = .seconds(30)
    /// Longest time a connection may stay open between requests.
    public var idleTimeout: Duration = .seconds(30)
    /// Most connections open at once; past it the server stops accepting until one closes.
    public var maximumConnections = 4096
    /// Most connections open at once from one IP address; more are closed at once. Behind a
    /// trusted proxy, most requests in flight at once for one forwarded client.
    public var maximumConnectionsPerClient = 128
    /// Users `POST /api/users` makes per client (its IP address, an IPv6 one by /64) per minute:
    /// a burst of as many, then one every 60/N s; more are answered `429 rate_limited` with
    /// `Retry-After`. 0: no limit.
    public var usersPerClientPerMinute = 30
    /// Clients whose rates are remembered at once; past it, new clients share one rate.
    public var maximumRateLimitedClients = 10_000
    /// Per-person quotas of shortcuts (50), examples (10 per shortcut, 500 in all, 2 MiB) and
    /// labels (200 characters, 256 bytes); past one a change is answered `429 quota_exceeded`.
    public var shortcuts = ShortcutLimits()
    /// Per-person quota of kept corrections (5 000, 8 MiB); past it `429 quota_exceeded`.
    public var corrections = CorrectionLimits()
    /// Most live sockets (`/api/live`) open at once, below ``maximumConnections`` so that plain
    /// HTTP always has room; past it a handshake is answered `503 busy` with `Retry-After`.
    public var maximumLiveSockets = 1024
    /// Most live sockets open at once for one client.
    public var maximumLiveSocketsPerClient = 16
    /// New live sockets the server opens a second at most, in bursts of as many, whoever asks;
    /// past it a handshake is answered `503 busy` with `Retry-After`. An upgrade costs about
    /// half a millisecond of CPU, so the default keeps a burst's cost near 30 ms. 0: no pace.
    public var newLiveSocketsPerSecond = 64
    /// A live socket that sends no message for this long is closed (code 1001): answering pings
    /// does not keep one open for ever.
    public var liveIdleTimeout: Duration = .seconds(600)
    /// Most jobs of one client waiting for a worker thread at once; past it that client's
    /// requests are answered `503 busy` while others' still queue. Workers take the waiting job of
    /// the client with the fewest jobs running, so one client cannot starve the others.
    public var queueLengthPerClient = 32

    public init() {}

    /// The timers and the per-client connection limit, as the connection pipeline checks them.
    var connection: ConnectionLimits {
        ConnectionLimits(
            headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, requestTimeout: requestTimeout, idleTimeout: idleTimeout,
            maximumConnectionsPerClient: maximumConnectionsPerClient)
    }

    /// The stroke and point limits, as the sketch readers check them.
    public var sketchSize: SketchSizeLimits {
        SketchSizeLimits(maximumStrokes: maximumStrokes, maximumPoints: maximumPoints)
    }
}
