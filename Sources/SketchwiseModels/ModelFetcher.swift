import Foundation
import SketchwiseDigest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches one URL over HTTP(S) into a file, hashing and counting the bytes as they arrive
/// (URLSession, streaming: the file is never held in memory).
struct ModelFetcher: Sendable {
    /// Seconds without a byte before the transfer is given up.
    var timeout: TimeInterval

    /// What a finished transfer wrote.
    struct Fetched {
        var bytes: Int
        var sha256: String
    }

    /// Writes the body of `url` to `file`, calling `progress(received, expected)` as bytes
    /// arrive; stops with ``ModelLifecycleError/tooLarge(name:bytes:limit:)`` past `limit`.
    func fetch(_ url: URL, to file: URL, limit: Int, progress: @escaping @Sendable (Int, Int?) -> Void) async throws -> Fetched {
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw ModelLifecycleError.writeFailed("cannot create \(file.path)")
        }
        defer { try? handle.close() }
        let transfer = Transfer(url: url, handle: handle, limit: limit, progress: progress)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(session: session, continuation: continuation)
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// The body of a small document (a manifest), at most `limit` bytes.
    func data(from url: URL, limit: Int) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sketchwise-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await fetch(url, to: file, limit: limit) { _, _ in }
        return try Data(contentsOf: file)
    }
}

/// One transfer's delegate: writes, hashes and counts bytes, then resumes the caller once.
private final class Transfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: URL
    private let handle: FileHandle
    private let limit: Int
    private let progress: @Sendable (Int, Int?) -> Void
    private let lock = NSLock()
    private var digest = SHA256()
    private var received = 0
    private var expected: Int?
    private var failure: ModelLifecycleError?
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<ModelFetcher.Fetched, any Error>?

    init(url: URL, handle: FileHandle, limit: Int, progress: @escaping @Sendable (Int, Int?) -> Void) {
        self.url = url
        self.handle = handle
        self.limit = limit
        self.progress = progress
    }

    func start(session: URLSession, continuation: CheckedContinuation<ModelFetcher.Fetched, any Error>) {
        let task = session.dataTask(with: url)
        lock.withLock {
            self.continuation = continuation
            self.task = task
        }
        task.resume()
    }

    func cancel() {
        lock.withLock { task }?.cancel()
    }

    /// Stops the transfer with `error` (the first one wins).
    private func fail(_ error: ModelLifecycleError, _ dataTask: URLSessionTask) {
        lock.withLock { if failure == nil { failure = error } }
        dataTask.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            fail(.http(url: url.absoluteString, status: http.statusCode), dataTask)
            completionHandler(.cancel)
            return
        }
        let length = response.expectedContentLength
        if length > limit {
            fail(.tooLarge(name: url.lastPathComponent, bytes: Int(length), limit: limit), dataTask)
            completionHandler(.cancel)
            return
        }
        lock.withLock { expected = length >= 0 ? Int(length) : nil }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (count, total, over) = lock.withLock { () -> (Int, Int?, Bool) in
            received += data.count
            digest.update(data)
            return (received, expected, received > limit)
        }
        if over { return fail(.tooLarge(name: url.lastPathComponent, bytes: count, limit: limit), dataTask) }
        do {
            try handle.write(contentsOf: data)
        } catch {
            return fail(.writeFailed("\((error as NSError).localizedDescription)"), dataTask)
        }
        progress(count, total)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<ModelFetcher.Fetched, any Error>?, Result<ModelFetcher.Fetched, any Error>) in
            defer { self.continuation = nil }
            let outcome: Result<ModelFetcher.Fetched, any Error>
            if let failure {
                outcome = .failure(failure)
            } else if let error = error as? URLError {
                switch error.code {
                case .timedOut: outcome = .failure(ModelLifecycleError.timedOut(url: url.absoluteString))
                case .cancelled: outcome = .failure(CancellationError())
                case _ where expected.map { received < $0 } ?? false:
                    outcome = .failure(ModelLifecycleError.truncated(url: url.absoluteString, received: received, expected: expected ?? 0))
                default: outcome = .failure(ModelLifecycleError.network(url: url.absoluteString, reason: error.localizedDescription))
                }
            } else if let error {
                outcome = .failure(ModelLifecycleError.network(url: url.absoluteString, reason: "\(error)"))
            } else if let expected, received != expected {
                outcome = .failure(ModelLifecycleError.truncated(url: url.absoluteString, received: received, expected: expected))
            } else {
                outcome = .success(ModelFetcher.Fetched(bytes: received, sha256: digest.hexDigest()))
            }
            return (self.continuation, outcome)
        }
        continuation?.resume(with: result)
    }
}
