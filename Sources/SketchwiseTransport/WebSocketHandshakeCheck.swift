import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers bad WebSocket handshakes with a JSON error, before Hummingbird sees them (it would
/// close without a word, or answer a bare `400`). A request asking for `Upgrade: websocket` must
/// be `GET` on HTTP/1.1, for `path`, with `Connection: Upgrade`, a `Sec-WebSocket-Key` of 16 bytes
/// in base64 and `Sec-WebSocket-Version: 13`; anything else is answered (`404`, `405`, `400`, or
/// `426` with `Sec-WebSocket-Version: 13`) and the connection closed; so is a good one that the
/// endpoint refuses for the server's state (`503` while starting or when every live socket is in
/// use). Other requests pass.
final class WebSocketHandshakeCheck: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The one path that takes WebSockets, and what refuses a good handshake for the server's state.
    let endpoint: WebSocketEndpoint
    var path: String { endpoint.path }
    /// Where the connection is in a possible upgrade.
    private var upgrade = UpgradeTracker()
    /// Whether the current request is refused (its remaining parts are dropped).
    private var refusing = false

    init(endpoint: WebSocketEndpoint) {
        self.endpoint = endpoint
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard upgrade.readsRequestParts else { return context.fireChannelRead(data) }
        switch unwrapInboundIn(data) {
        case let .head(head):
            refusing = false
            if let error = problem(with: head)
                ?? (UpgradeTracker.asksForWebSocket(head) ? endpoint.refusal(head, context.channel.remoteAddress) : nil)
            {
                refusing = true
                refuse(with: error, context: context)
            } else {
                upgrade.passed(head)
                context.fireChannelRead(data)
            }
        case .body, .end:
            if !refusing { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if upgrade.writesResponseParts, case let .head(head) = unwrapOutboundIn(data) { upgrade.answering(head) }
        context.write(data, promise: promise)
    }

    /// What is wrong with a request that asks for a WebSocket; nil for a good one or another request.
    func problem(with head: HTTPRequestHead) -> PipelineRefusal? {
        guard UpgradeTracker.asksForWebSocket(head) else { return nil }
        let requested = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard requested == path else {
            return PipelineRefusal(
                status: .notFound, code: "not_found", message: "no WebSocket at \(requested.prefix(200)); the WebSocket is \(path)")
        }
        guard head.method == .GET else {
            var error = PipelineRefusal(
                status: .methodNotAllowed, code: "method_not_allowed",
                message: "a WebSocket is opened with GET, not \(head.method.rawValue)")
            error.headers[.allow] = "GET"
            return error
        }
        guard head.version == .http1_1 else { return Self.badRequest("a WebSocket is opened over HTTP/1.1") }
        let connection = head.headers[canonicalForm: "connection"].map { $0.lowercased() }
        guard connection.contains("upgrade") else { return Self.badRequest("a WebSocket handshake needs Connection: Upgrade") }
        guard head.headers["sec-websocket-version"] == ["13"] else {
            var error = PipelineRefusal(
                status: .upgradeRequired, code: "upgrade_required", message: "the server speaks WebSocket version 13 only")
            error.headers[HTTPField.Name("Sec-WebSocket-Version")!] = "13"
            return error
        }
        guard let key = head.headers.first(name: "sec-websocket-key"), head.headers["sec-websocket-key"].count == 1,
            let decoded = Self.base64Length(key), decoded == 16
        else { return Self.badRequest("a WebSocket handshake needs one Sec-WebSocket-Key of 16 bytes in base64") }
        return nil
    }

    private static func badRequest(_ message: String) -> PipelineRefusal {
        PipelineRefusal(status: .badRequest, code: "bad_request", message: message)
    }

    /// The decoded length of a padded base64 text; nil if it is not base64.
    static func base64Length(_ text: String) -> Int? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return nil }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }
        let isAlphabet: (UInt8) -> Bool = { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default: false
            }
        }
        guard bytes.dropLast(padding).allSatisfy(isAlphabet) else { return nil }
        return bytes.count / 4 * 3 - padding
    }

    /// Writes `error` as a complete JSON answer and closes the connection.
    private func refuse(with error: PipelineRefusal, context: ChannelHandlerContext) {
        let body = error.jsonBytes
        var headers = HTTPHeaders()
        for field in error.headers { headers.add(name: field.name.rawName, value: field.value) }
        headers.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        headers.replaceOrAdd(name: "content-length", value: String(body.count))
        headers.replaceOrAdd(name: "connection", value: "close")
        let status = HTTPResponseStatus(statusCode: error.status.code, reasonPhrase: error.status.reasonPhrase)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
