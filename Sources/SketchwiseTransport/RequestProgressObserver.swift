import NIOCore
import NIOHTTP1

/// Sits right after the HTTP request decoder and tells the connection's ``ConnectionGuard`` what
/// the decoder found: where each request ends (so that the guard knows which bytes after an early
/// answer are still the body), and a request it cannot parse (answered `400` and closed). Reads
/// and writes pass untouched; after a WebSocket upgrade it only passes bytes on.
final class RequestProgressObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart

    private let connectionGuard: ConnectionGuard
    private var upgrade = UpgradeTracker()

    init(connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if upgrade.readsRequestParts {
            switch unwrapInboundIn(data) {
            case let .head(head):
                upgrade.passed(head)
                connectionGuard.requestHeadDecoded()
            case .body: break
            case .end: connectionGuard.requestEnded()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if upgrade.writesResponseParts, case let .head(head) = unwrapOutboundIn(data) { upgrade.answering(head) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { connectionGuard.refuseUnparsableRequest() }
        context.fireErrorCaught(error)
    }
}
