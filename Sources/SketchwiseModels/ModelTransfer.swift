import CCurl
import Foundation
import SketchwiseDigest

/// One GET with libcurl into an open file, run on a thread of its own: each piece of the body
/// is counted, checked against the limit, hashed and written before the next one is read, so
/// nothing past the limit is ever read into memory or written. Its callbacks reach it through
/// the context pointer; `cancel()` may be called from any thread.
final class ModelTransfer: @unchecked Sendable {
    private let url: URL
    private let handle: FileHandle
    private let limit: Int
    private let progress: @Sendable (Int, Int?) -> Void
    private let lock = NSLock()
    private var digest = SHA256()
    private var received = 0
    /// The Content-Length of the response, `Int.max` when it does not fit.
    private var declared: Int?
    private var failure: ModelLifecycleError?
    private var cancelled = false
    private var curl: UnsafeMutableRawPointer?

    /// The global set-up of libcurl, once per process before the first transfer.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    init(url: URL, handle: FileHandle, limit: Int, progress: @escaping @Sendable (Int, Int?) -> Void) {
        self.url = url
        self.handle = handle
        self.limit = limit
        self.progress = progress
    }

    /// Stops the transfer within about a second; it then ends with `CancellationError`.
    func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Runs the transfer to its end (blocking), within `deadline` and with `idle` seconds of less
    /// than a byte a second at most.
    func perform(deadline: ModelFetcher.Deadline, idle: TimeInterval) -> Result<ModelFetcher.Fetched, any Error> {
        let milliseconds = deadline.remainingMilliseconds
        guard milliseconds > 0 else { return .failure(deadline.exceeded(url)) }
        guard !lock.withLock({ cancelled }) else { return .failure(CancellationError()) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        guard Self.initialized, let curl = curl_easy_init() else {
            return .failure(ModelLifecycleError.network(url: url.absoluteString, reason: "libcurl could not be set up"))
        }
        defer { curl_easy_cleanup(curl) }
        var code = sketchwise_curl_configure(
            curl, url.absoluteString, "sketchwise/\(SketchwiseVersion.current)", milliseconds, Self.seconds(idle), curl_off_t(limit),
            { bytes, size, count, context in
                guard let bytes, let context else { return 0 }
                let (length, overflow) = size.multipliedReportingOverflow(by: count)
                guard !overflow else { return 0 }
                let transfer = Unmanaged<ModelTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receive(UnsafeRawBufferPointer(start: UnsafeRawPointer(bytes), count: length)) ? length : 0
            },
            { bytes, size, count, context in
                guard let bytes, let context else { return 0 }
                let (length, overflow) = size.multipliedReportingOverflow(by: count)
                guard !overflow else { return 0 }
                Unmanaged<ModelTransfer>.fromOpaque(context).takeUnretainedValue().header(
                    UnsafeRawBufferPointer(start: UnsafeRawPointer(bytes), count: length))
                return length
            },
            { context, _, _, _, _ in
                guard let context else { return 1 }
                return Unmanaged<ModelTransfer>.fromOpaque(context).takeUnretainedValue().isStopped ? 1 : 0
            },
            Unmanaged.passUnretained(self).toOpaque(), errorBuffer)
        if code == CURLE_OK {
            lock.withLock { self.curl = curl }
            code = curl_easy_perform(curl)
            lock.withLock { self.curl = nil }
        }
        let reason = String(cString: errorBuffer)
        return outcome(
            code, status: sketchwise_curl_status(curl), length: sketchwise_curl_content_length(curl), deadline: deadline,
            reason: reason.isEmpty ? String(cString: curl_easy_strerror(code)) : reason)
    }

    /// Idle seconds as libcurl's whole seconds: at least 1, at most a day.
    static func seconds(_ interval: TimeInterval) -> Int {
        guard interval.isFinite, interval > 1 else { return 1 }
        return Int(min(interval, 86400).rounded(.up))
    }

    private var isStopped: Bool { lock.withLock { cancelled || failure != nil } }

    /// Notes the Content-Length of the response (of the last one, after redirects).
    private func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).lowercased()
        if text.hasPrefix("http/") { return lock.withLock { declared = nil } }
        guard text.hasPrefix("content-length:") else { return }
        let value = text.dropFirst("content-length:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) else { return }
        lock.withLock { declared = Int(value) ?? .max }
    }

    /// Takes one piece of the body; false stops the transfer (an HTTP error, past the limit, a
    /// write error, cancelled).
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let (count, stop) = lock.withLock { () -> (Int, Bool) in
            guard !cancelled, failure == nil else { return (received, true) }
            if received == 0, let curl {
                let status = sketchwise_curl_status(curl)
                if status != 0, !(200..<300).contains(status) {
                    failure = .http(url: url.absoluteString, status: status)
                    return (received, true)
                }
            }
            guard bytes.count <= limit - received else {
                failure = .tooLarge(
                    name: url.lastPathComponent, bytes: received.addingReportingOverflow(bytes.count).partialValue, limit: limit)
                return (received, true)
            }
            received += bytes.count
            digest.update(bytes)
            return (received, false)
        }
        if stop { return false }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            lock.withLock { failure = .writeFailed("\((error as NSError).localizedDescription)") }
            return false
        }
        progress(count, nil)
        return true
    }

    /// What the transfer came to, from libcurl's code, the HTTP status and the Content-Length.
    private func outcome(_ code: CURLcode, status: Int, length: curl_off_t, deadline: ModelFetcher.Deadline, reason: String) -> Result<
        ModelFetcher.Fetched, any Error
    > {
        lock.withLock {
            let address = url.absoluteString
            if let failure { return .failure(failure) }
            if cancelled { return .failure(CancellationError()) }
            if status != 0, !(200..<300).contains(status) { return .failure(ModelLifecycleError.http(url: address, status: status)) }
            let expected = length >= 0 ? Int(length) : nil
            switch code {
            case CURLE_OK:
                if let expected, received != expected {
                    return .failure(ModelLifecycleError.truncated(url: address, received: received, expected: expected))
                }
                return .success(ModelFetcher.Fetched(bytes: received, sha256: digest.hexDigest()))
            case CURLE_OPERATION_TIMEDOUT:
                // libcurl's timer is set to the whole milliseconds left, so it may ring just before.
                return .failure(deadline.remainingMilliseconds <= 100 ? deadline.exceeded(url) : ModelLifecycleError.timedOut(url: address))
            case CURLE_FILESIZE_EXCEEDED:
                return .failure(
                    ModelLifecycleError.tooLarge(name: url.lastPathComponent, bytes: declared ?? expected ?? received, limit: limit))
            case _ where expected.map { received < $0 } ?? false:
                return .failure(ModelLifecycleError.truncated(url: address, received: received, expected: expected ?? 0))
            default:
                return .failure(ModelLifecycleError.network(url: address, reason: reason))
            }
        }
    }
}
