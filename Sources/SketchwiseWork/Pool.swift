import Foundation

/// A set of reusable, non-thread-safe workers (inference sessions with their buffers, picture
/// rasterisers): a caller borrows one for a request and returns it, so concurrent requests never
/// share one and no request allocates a new one once the pool is warm.
public final class Pool<Worker>: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [Worker] = []
    private let make: @Sendable () throws -> Worker

    /// - Parameter make: makes a worker when none is idle.
    public init(make: @escaping @Sendable () throws -> Worker) {
        self.make = make
    }

    /// Runs `body` with a borrowed worker.
    public func with<R>(_ body: (Worker) throws -> R) throws -> R {
        let worker = try lock.withLock { idle.popLast() } ?? make()
        defer { lock.withLock { idle.append(worker) } }
        return try body(worker)
    }
}
