import NIOCore
import NIOHTTP1

extension ChannelPipeline.SynchronousOperations {
    /// Puts the checks behind the request decoder of an HTTP pipeline set up already: the
    /// ``RequestProgressObserver``, the ``WebSocketHandshakeCheck`` and the ``ConnectionCloseHandler``.
    func addRequestChecks(connectionGuard: ConnectionGuard, webSocket: WebSocketEndpoint) throws {
        let decoder = try context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let observer = RequestProgressObserver(connectionGuard: connectionGuard)
        let handshakeCheck = WebSocketHandshakeCheck(endpoint: webSocket)
        try addHandler(observer, position: .after(decoder.handler))
        try addHandler(handshakeCheck, position: .after(observer))
        try addHandler(ConnectionCloseHandler(), position: .after(handshakeCheck))
    }
}
