import Foundation
import Testing
@testable import SketchwiseTransport

/// A connection's pipeline fed raw bytes (``ConnectionFuzzing``), as the fuzz target feeds it.
@Suite struct ConnectionPipelineTests {
    static let handshake = Array(
        ("GET /api/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    @Test func aByteBehindTheHandshakeIsPassedToTheWebSocket() {
        for split in [0, Self.handshake.count, Self.handshake.count + 1] {
            let outcome = ConnectionFuzzing.feed(Self.handshake + Array("X".utf8), splits: [split])
            #expect(String(decoding: outcome.written, as: UTF8.self).hasPrefix("HTTP/1.1 101"), "split at \(split)")
        }
    }

    @Test func aBadHandshakeIsAnsweredWithJSONAndClosed() {
        let bad = Array(String(decoding: Self.handshake, as: UTF8.self).replacingOccurrences(of: "Version: 13", with: "Version: 12").utf8)
        let outcome = ConnectionFuzzing.feed(bad + Array("X".utf8), splits: [0])
        let text = String(decoding: outcome.written, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 426") && text.contains("\"upgrade_required\""), "\(text)")
        #expect(outcome.closed)
    }

    @Test func garbageIsAnsweredBadRequestAndClosed() {
        let outcome = ConnectionFuzzing.feed(Array("\u{0}\u{1}not HTTP at all\r\n\r\n".utf8), splits: [3])
        #expect(String(decoding: outcome.written, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        #expect(outcome.closed)
    }

    /// The status lines a connection wrote, in order.
    static func statuses(_ outcome: ConnectionFuzzing.Outcome) -> [String] {
        String(decoding: outcome.written, as: UTF8.self).components(separatedBy: "\r\n")
            .filter { $0.hasPrefix("HTTP/1.") }.map { String($0.dropFirst(9).prefix(3)) }
    }

    /// Two requests refused at their heads: the rest of the first body and the start of the second
    /// request may share a read and the second's head may end in the next (as when nginx sends its
    /// next request on a kept-alive upstream connection). The second is refused `415` like the
    /// first, never `400` for a request line read from the middle of its head.
    @Test func aRequestBehindABodyAnsweredEarlyIsNeverRefusedAsUnparsable() {
        let request = Array(("POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
            + "Content-Length: 40\r\n\r\n" + String(repeating: "x", count: 40)).utf8)
        let bytes = request + request
        var wrong: [String] = []
        for first in stride(from: request.count - 40, to: request.count, by: 7) {
            for second in request.count + 1..<request.count + request.count - 40 {
                let statuses = Self.statuses(ConnectionFuzzing.feed(bytes, splits: [first, second]))
                if statuses != ["415", "415"] { wrong.append("cut at \(first) and \(second): \(statuses)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) cuts, first \(wrong.prefix(3))")
    }

    /// Requests pipelined in one read, the last one's head ending in the next read.
    @Test func pipelinedRequestsAreEachAnswered() {
        let request = Array("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let bytes = request + request + request
        for split in 0...bytes.count {
            #expect(Self.statuses(ConnectionFuzzing.feed(bytes, splits: [split])) == ["415", "415", "415"], "split at \(split)")
        }
    }

    /// A first line without an HTTP version is refused at once on a new connection and behind a
    /// request whose head ended its read, where the guard knows the read starts a request.
    @Test func anHTTP09RequestIsRefusedWhereARequestIsKnownToStart() {
        let request = Array("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let http09 = Array("GET /\r\n".utf8)
        let alone = ConnectionFuzzing.feed(http09, splits: [])
        #expect(Self.statuses(alone) == ["400"] && alone.closed)
        let behind = ConnectionFuzzing.feed(request + http09, splits: [request.count])
        #expect(Self.statuses(behind) == ["415", "400"] && behind.closed)
    }
}
