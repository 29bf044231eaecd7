import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a download failed.
public struct FetchError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// GET requests with a deadline and a cap on the body: a response larger than the cap is cut off
/// as soon as the cap is passed, not read to the end. Thread-safe.
public final class HTTPFetcher: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One response: status, content type and body.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String?
        public var body: Data
    }

    /// Longest wait for a whole response.
    public let timeout: TimeInterval
    /// Largest body accepted, in bytes.
    public let maximumBytes: Int
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]
    private var session: URLSession!

    private final class Transfer {
        var body = Data()
        var response: HTTPURLResponse?
        let continuation: CheckedContinuation<Response, any Error>
        init(_ continuation: CheckedContinuation<Response, any Error>) { self.continuation = continuation }
    }

    public init(timeout: TimeInterval = 5, maximumBytes: Int = 4 << 20) {
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Ends the session; requests in flight fail.
    public func invalidate() { session.invalidateAndCancel() }

    /// GETs `url` with `headers`. Cancelling the calling task cancels the request.
    /// - Throws: ``FetchError`` for a timeout, a connection failure, or a body over the cap.
    public func get(_ url: URL, headers: [String: String] = [:]) async throws -> Response {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw FetchError("\(url.absoluteString): only http and https addresses are fetched")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock { transfers[task.taskIdentifier] = Transfer(continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        if response.expectedContentLength > Int64(maximumBytes) {
            finish(
                dataTask.taskIdentifier,
                with: .failure(
                    FetchError(
                        "\(dataTask.originalRequest?.url?.absoluteString ?? "response"): body of \(response.expectedContentLength) bytes is over the limit of \(maximumBytes)"
                    )))
            completionHandler(.cancel)
            return
        }
        lock.withLock { transfers[dataTask.taskIdentifier]?.response = http }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over: Bool = lock.withLock {
            guard let transfer = transfers[dataTask.taskIdentifier] else { return false }
            transfer.body.append(data)
            return transfer.body.count > maximumBytes
        }
        if over {
            finish(
                dataTask.taskIdentifier,
                with: .failure(
                    FetchError(
                        "\(dataTask.originalRequest?.url?.absoluteString ?? "response"): body over the limit of \(maximumBytes) bytes")))
            dataTask.cancel()
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = lock.withLock { transfers[task.taskIdentifier] }
        guard let transfer else { return }
        let address = task.originalRequest?.url?.absoluteString ?? "request"
        if let error {
            let reason = (error as? URLError)?.code == .timedOut ? "timed out after \(timeout) s" : error.localizedDescription
            finish(task.taskIdentifier, with: .failure(FetchError("\(address): \(reason)")))
        } else if let response = transfer.response {
            let contentType = response.value(forHTTPHeaderField: "Content-Type")
            finish(
                task.taskIdentifier, with: .success(Response(status: response.statusCode, contentType: contentType, body: transfer.body)))
        } else {
            finish(task.taskIdentifier, with: .failure(FetchError("\(address): not an HTTP response")))
        }
    }

    /// Resumes the caller of a transfer once.
    private func finish(_ id: Int, with result: Result<Response, any Error>) {
        let transfer = lock.withLock { transfers.removeValue(forKey: id) }
        transfer?.continuation.resume(with: result)
    }
}
