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
            let outcome = ConnectionFuzzing.feed(Self.handshake + Array("X".utf8), split: split)
            #expect(String(decoding: outcome.written, as: UTF8.self).hasPrefix("HTTP/1.1 101"), "split at \(split)")
        }
    }

    @Test func aBadHandshakeIsAnsweredWithJSONAndClosed() {
        let bad = Array(String(decoding: Self.handshake, as: UTF8.self).replacingOccurrences(of: "Version: 13", with: "Version: 12").utf8)
        let outcome = ConnectionFuzzing.feed(bad + Array("X".utf8), split: 0)
        let text = String(decoding: outcome.written, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 426") && text.contains("\"upgrade_required\""), "\(text)")
        #expect(outcome.closed)
    }

    @Test func garbageIsAnsweredBadRequestAndClosed() {
        let outcome = ConnectionFuzzing.feed(Array("\u{0}\u{1}not HTTP at all\r\n\r\n".utf8), split: 3)
        #expect(String(decoding: outcome.written, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        #expect(outcome.closed)
    }
}
