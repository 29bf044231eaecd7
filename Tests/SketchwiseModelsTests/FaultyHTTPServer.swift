import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hostile HTTP host on 127.0.0.1: every connection's request line goes to `answer`, which
/// writes whatever it likes (a trickle, an endless body, nothing at all) through `send`, which
/// returns false once the client has gone. Counts the requests of each path and the body bytes
/// the client accepted.
final class FaultyHTTPServer: @unchecked Sendable {
    /// Writes bytes to the client; false once it has gone.
    typealias Send = (Data) -> Bool

    private(set) var port = 0
    private let listener: Int32
    private let answer: @Sendable (String, Send) -> Void
    private let lock = NSLock()
    private var hits: [String: Int] = [:]
    private var sent = 0
    private var closed = false

    /// Listens on a free port of 127.0.0.1; `answer(path, send)` writes each answer.
    init(answer: @escaping @Sendable (String, Send) -> Void) throws {
        self.answer = answer
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptConnections() }.start()
    }

    /// The requests of `path` so far.
    func hits(_ path: String) -> Int { lock.withLock { hits[path, default: 0] } }

    /// Body bytes the clients accepted so far (the kernel's buffers included).
    var bytesSent: Int { lock.withLock { sent } }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Stops listening; connections still open end when their client goes.
    func close() {
        lock.withLock { closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
        closeDescriptor(listener)
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0, !lock.withLock({ closed }) else {
                if connection >= 0 { closeDescriptor(connection) }
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { closeDescriptor(connection) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 16384, recv(connection, &byte, 1, 0) == 1 { head.append(byte) }
        let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = String(parts[1].drop { $0 == "/" })
        lock.withLock { hits[path, default: 0] += 1 }
        answer(path) { [self] data in
            let written = data.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written == data.count else { return false }
            lock.withLock { sent += written }
            return true
        }
    }

    /// The head of a 200 answer, with a Content-Length when `length` is given.
    static func ok(length: Int? = nil) -> Data {
        Data(
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\(length.map { "Content-Length: \($0)\r\n" } ?? "")Connection: close\r\n\r\n"
                .utf8)
    }
}

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
