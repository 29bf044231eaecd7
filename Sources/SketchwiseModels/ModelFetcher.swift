import Foundation

/// Fetches one URL over HTTP(S) into a file with libcurl, hashing and counting the bytes as they
/// arrive: the body streams to disk, and a transfer stops at its byte limit, at its deadline, and
/// when it stalls, whatever the host sends.
struct ModelFetcher: Sendable {
    /// Seconds in which less than a byte a second arrives before the transfer is given up.
    var timeout: TimeInterval

    /// What a finished transfer wrote.
    struct Fetched {
        var bytes: Int
        var sha256: String
    }

    /// When a transfer, with its retries, must be over.
    struct Deadline: Sendable {
        /// The longest deadline, in seconds (a year): longer ones are cut to it.
        static let longest: TimeInterval = 365 * 24 * 3600
        let instant: ContinuousClock.Instant
        /// Its length, for messages.
        let seconds: TimeInterval

        init(seconds: TimeInterval, from start: ContinuousClock.Instant = .now) {
            let bounded = seconds.isFinite ? min(max(seconds, 0), Self.longest) : Self.longest
            self.seconds = bounded
            instant = start.advanced(by: .milliseconds(Int64(bounded * 1000)))
        }

        /// Whole milliseconds left, 0 once it has passed.
        var remainingMilliseconds: Int {
            let (seconds, attoseconds) = ContinuousClock.now.duration(to: instant).components
            guard seconds >= 0 else { return 0 }
            return Int(min(seconds, Int64(Self.longest))) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        }

        func exceeded(_ url: URL) -> ModelLifecycleError { .deadlineExceeded(url: url.absoluteString, seconds: seconds) }
    }

    /// Writes the body of `url` to `file`, calling `progress(received, expected)` as bytes
    /// arrive; stops with ``ModelLifecycleError/tooLarge(name:bytes:limit:)`` before reading past
    /// `limit` (or at once when the Content-Length says more), and with
    /// ``ModelLifecycleError/deadlineExceeded(url:seconds:)`` at `deadline`.
    func fetch(_ url: URL, to file: URL, limit: Int, deadline: Deadline, progress: @escaping @Sendable (Int, Int?) -> Void) async throws
        -> Fetched
    {
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw ModelLifecycleError.writeFailed("cannot create \(file.path)")
        }
        defer { try? handle.close() }
        let transfer = ModelTransfer(url: url, handle: handle, limit: max(limit, 0), progress: progress)
        let idle = timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // libcurl blocks: on a thread of its own, not one of the cooperative pool's.
                Thread { continuation.resume(with: transfer.perform(deadline: deadline, idle: idle)) }.start()
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// The body of a small document (a manifest), at most `limit` bytes.
    func data(from url: URL, limit: Int, deadline: Deadline) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sketchwise-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await fetch(url, to: file, limit: limit, deadline: deadline) { _, _ in }
        return try Data(contentsOf: file)
    }
}
