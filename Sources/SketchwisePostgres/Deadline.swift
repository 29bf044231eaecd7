import Foundation

/// Waits for an operation at most a given time without waiting for it to stop. PostgresNIO cannot
/// withdraw a statement it has sent, and a task group waits for its cancelled children, so a
/// group would wait as long as a stalled server does.
enum Deadline {
    /// What `operation` returns or throws, or else `expired()` thrown once `limit` has passed; the
    /// operation is then cancelled and left to end on its own. A cancelled caller stops waiting at
    /// once too.
    static func run<T: Sendable>(
        within limit: Duration, expired: @escaping @Sendable () -> any Error, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let answer = FirstAnswer<T>()
        let work = Task {
            do { answer.give(.success(try await operation())) } catch { answer.give(.failure(error)) }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            answer.give(.failure(expired()))
            work.cancel()
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { answer.wait($0) }
        } onCancel: {
            answer.give(.failure(CancellationError()))
            work.cancel()
        }
    }
}

/// The first result given, handed to the one waiting for it.
private final class FirstAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiting: CheckedContinuation<T, any Error>?

    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = lock.withLock {
            if result == nil { waiting = continuation }
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Keeps `given` unless a result came first.
    func give(_ given: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = lock.withLock {
            guard result == nil else { return nil }
            result = given
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume(with: given)
    }
}
