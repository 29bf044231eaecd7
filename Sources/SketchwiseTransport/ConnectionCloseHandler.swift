import NIOCore
import NIOHTTP1

/// Closes the connection after every answer that says `Connection: close`, and answers HTTP/1.0
/// requests as HTTP/1.0 with that header.
///
/// Hummingbird closes a connection only when the request asked for it; otherwise it reads the
/// rest of the request's body before the next request, so an answer refusing a body declared
/// too large (`413`) would wait for gigabytes to arrive. And it works on version-less HTTP
/// types: it would answer a 1.0 request `HTTP/1.1` (possibly chunked, which a 1.0 client cannot
/// read) and keep the connection open. This handler sits right after the request decoder, where
/// the version is still known: it writes a 1.0 request's answer head as version 1.0 with
/// `Connection: close` (so the encoder delimits the body by its length or the close, never by
/// chunks), and closes the connection once an answer with `Connection: close` has been written.
///
/// A request asking for an upgrade is left alone until its answer: after a `101` the connection
/// carries WebSocket frames, which this handler passes on untouched.
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Plain HTTP; `legacy` when the request being answered is HTTP/1.0.
        case http(legacy: Bool)
        /// The answer being written says `Connection: close`: close after its end.
        case closing
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
                if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { state = .closing }
            }
            context.write(data, promise: promise)
        case let .http(legacy):
            guard case var .head(head) = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
            if legacy {
                head.version = .http1_0
                head.headers.replaceOrAdd(name: "connection", value: "close")
                head.headers.remove(name: "transfer-encoding")
            }
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { state = .closing }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .closing:
            guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(data).whenComplete { result in
                promise?.completeWith(result)
                bound.value.close(promise: nil)
            }
        }
    }
}
