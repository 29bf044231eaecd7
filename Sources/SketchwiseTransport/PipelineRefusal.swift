import Foundation
import HTTPTypes

/// A request the connection pipeline answers itself, before the router sees it: a bad WebSocket
/// handshake (``WebSocketHandshakeCheck``), or a good one the ``WebSocketEndpoint`` refuses for
/// the server's state. It is written in the shape of the server's JSON errors,
/// `{"error": {"code", "message"}}`, with its status and headers.
package struct PipelineRefusal: Sendable, Equatable {
    package var status: HTTPResponse.Status
    /// The error's `code` (`not_found`, `busy`, …).
    package var code: String
    package var message: String
    /// Headers sent with it (`Allow`, `Retry-After`, `Sec-WebSocket-Version`).
    package var headers: HTTPFields

    package init(status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The JSON body.
    package var jsonBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        guard let data = try? encoder.encode(Body(error: .init(code: code, message: message))) else {
            return Array(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
        }
        return Array(data)
    }

    private struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
        }
        let error: Detail
    }
}
