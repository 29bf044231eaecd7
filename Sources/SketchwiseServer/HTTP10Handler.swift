import NIOCore
import NIOHTTP1

/// Answers HTTP/1.0 requests as HTTP/1.0 and closes the connection after each answer.
///
/// Hummingbird works on version-less HTTP types: it would answer a 1.0 request `HTTP/1.1`
/// (possibly chunked, which a 1.0 client cannot read) and keep the connection open, so the
/// client waits for a close that never comes. This handler sits right after the request decoder,
/// where the version is still known: it marks a 1.0 request `Connection: close` (so Hummingbird
/// closes after answering) and writes its answer's head as version 1.0 with `Connection: close`
/// (so the encoder delimits the body by its length or the close, never by chunks).
///
/// A request asking for an upgrade is left alone until its answer: after a `101` the connection
/// carries WebSocket frames, which this handler passes on untouched.
final class HTTP10Handler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Plain HTTP; `legacy` when the request being answered is HTTP/1.0.
        case http(legacy: Bool)
        /// A request asked for an upgrade: what comes in until its answer may be raw bytes.
        case upgrading
        /// Upgraded: not HTTP any more.
        case passThrough
    }

    private var state = State.http(legacy: false)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .http = state else { return context.fireChannelRead(data) }
        guard case var .head(head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        if head.version == .http1_0 || head.version == .http0_9 {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            state = .http(legacy: true)
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        state = head.headers.contains(name: "upgrade") ? .upgrading : .http(legacy: false)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .passThrough:
            context.write(data, promise: promise)
        case .upgrading:
            if case let .head(head) = unwrapOutboundIn(data) {
                state = head.status == .switchingProtocols ? .passThrough : .http(legacy: false)
            }
            context.write(data, promise: promise)
        case .http(legacy: false):
            context.write(data, promise: promise)
        case .http(legacy: true):
            guard case var .head(head) = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
            head.version = .http1_0
            head.headers.replaceOrAdd(name: "connection", value: "close")
            head.headers.remove(name: "transfer-encoding")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        }
    }
}
