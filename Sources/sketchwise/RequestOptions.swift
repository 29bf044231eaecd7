import ArgumentParser
import SketchwiseCore
import SketchwiseServer

/// How much work requests may ask for and where it runs (`serve`).
struct RequestOptions: ParsableArguments {
    @Option(help: "Seconds a request's recognition, pictures or rendering may take; past it the answer is 503 timeout.")
    var requestTimeout = 10.0

    @Option(help: "Threads running recognition, embedding and rendering (default: one per core and one more).")
    var workers: Int?

    @Option(help: "Most requests waiting for a worker; more are answered 503 busy with Retry-After at once.")
    var queueLength = 256

    @Option(help: "Most requests of one client waiting for a worker; more of its requests are answered 503 busy while others' still queue.")
    var queueLengthPerClient = 32

    @Option(help: "Most strokes in one sketch.")
    var maxStrokes = SketchSizeLimits().maximumStrokes

    @Option(help: "Most points in one sketch, all strokes together (one stroke may have them all).")
    var maxPoints = SketchSizeLimits().maximumPoints

    func validate() throws {
        guard requestTimeout.isFinite, (0.05...3600).contains(requestTimeout) else {
            throw ValidationError("--request-timeout must be within 0.05…3600 seconds")
        }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be within 1…256") }
        guard (0...100_000).contains(queueLength) else { throw ValidationError("--queue-length must be within 0…100000") }
        guard (1...100_000).contains(queueLengthPerClient) else {
            throw ValidationError("--queue-length-per-client must be within 1…100000")
        }
        guard (1...100_000).contains(maxStrokes), (1...10_000_000).contains(maxPoints) else {
            throw ValidationError("--max-strokes must be within 1…100000 and --max-points within 1…10000000")
        }
    }

    /// `limits` with these options applied.
    func applied(to limits: ServerLimits) -> ServerLimits {
        var limits = limits
        limits.requestTimeout = .milliseconds(Int64(requestTimeout * 1000))
        if let workers { limits.workerThreads = workers }
        limits.queueLength = queueLength
        limits.queueLengthPerClient = queueLengthPerClient
        limits.maximumStrokes = maxStrokes
        limits.maximumPoints = maxPoints
        return limits
    }
}
