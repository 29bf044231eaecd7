import Foundation
import NIOHTTP1

/// Follows one connection through a WebSocket upgrade, for the handlers that sit right after the
/// HTTP request decoder. What they read is a decoded request part only while the connection is
/// plain HTTP: once a request asks for an upgrade, NIO removes the decoder before it writes the
/// `101` and forwards the bytes the client sent after the handshake as they are, and after the
/// `101` every read is a WebSocket frame's bytes.
struct UpgradeTracker {
    enum Phase: Equatable {
        /// Reads are request parts.
        case http
        /// A request asked for a WebSocket; until its answer, reads may be raw bytes.
        case upgrading
        /// A `101` was written: the connection is not HTTP any more.
        case upgraded
    }

    private(set) var phase = Phase.http

    /// Whether a read is certainly a decoded request part (`unwrapInboundIn` is safe).
    var readsRequestParts: Bool { phase == .http }

    /// Whether a write is a response part (true until the `101` has gone out).
    var writesResponseParts: Bool { phase != .upgraded }

    /// Takes a request head that passed on to the upgrader and the router.
    mutating func passed(_ head: HTTPRequestHead) {
        phase = Self.asksForWebSocket(head) ? .upgrading : .http
    }

    /// Takes the head of an answer being written.
    mutating func answering(_ head: HTTPResponseHead) {
        guard phase == .upgrading else { return }
        phase = head.status == .switchingProtocols ? .upgraded : .http
    }

    /// Whether a request asks for a WebSocket (`Upgrade: websocket`).
    static func asksForWebSocket(_ head: HTTPRequestHead) -> Bool {
        head.headers["upgrade"].flatMap { $0.split(separator: ",") }.contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket"
        }
    }
}
