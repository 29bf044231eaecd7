import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket

/// A connection's pipeline, as the server sets it up (the ``ConnectionGuard``, NIO's upgradable
/// HTTP/1 pipeline with a WebSocket upgrader for ``webSocketPath``, and the checks behind the decoder),
/// on an embedded channel that arbitrary bytes are fed to: the fuzz target of the handshake path
/// (`scripts/fuzz.sh connection`). A WebSocket handshake is upgraded like the server's; other
/// requests are refused `415` as soon as their head is in, before their body, as the server
/// refuses a body of the wrong type. Whatever the bytes, nothing may trap.
package enum ConnectionFuzzing {
    /// What the server wrote back and whether it closed the connection.
    package struct Outcome: Sendable {
        package var written: [UInt8] = []
        package var closed = false
    }

    /// The WebSocket's path, as the server's live socket has it.
    package static let webSocketPath = "/api/live"

    /// The server's default timers and per-client limit.
    static let limits = ConnectionLimits(
        headerTimeout: .seconds(10), bodyTimeout: .seconds(30), requestTimeout: .seconds(10), idleTimeout: .seconds(30),
        maximumConnectionsPerClient: 128)

    /// Feeds `bytes` in reads cut at `splits` (clamped, in order), as a client whose packets
    /// arrive apart, then closes the channel.
    package static func feed(_ bytes: [UInt8], splits: [Int]) -> Outcome {
        let channel = EmbeddedChannel()
        var outcome = Outcome()
        let logger = Logger(label: "sketchwise-fuzz") { _ in SwiftLogNoOpLogHandler() }
        do {
            let connectionGuard = ConnectionGuard(limits: limits, clients: ClientConnections(), proxies: .none, logger: logger)
            try channel.pipeline.syncOperations.addHandler(connectionGuard)
            let upgrader = NIOTypedWebSocketServerUpgrader<Bool>(
                maxFrameSize: 1 << 16,
                shouldUpgrade: { channel, head in
                    channel.eventLoop.makeSucceededFuture(head.uri.hasPrefix(webSocketPath) ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, _ in channel.pipeline.removeHandler(name: EarlyRefusal.name).map { true } })
            let configuration = NIOUpgradableHTTPServerPipelineConfiguration<Bool>(
                upgradeConfiguration: .init(upgraders: [upgrader]) { channel in channel.eventLoop.makeSucceededFuture(false) })
            _ = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            try channel.pipeline.syncOperations.addRequestChecks(
                connectionGuard: connectionGuard, webSocket: WebSocketEndpoint(path: webSocketPath))
            try channel.pipeline.syncOperations.addHandler(EarlyRefusal(), name: EarlyRefusal.name)
            var cuts = splits.map { min(max(0, $0), bytes.count) }.sorted()
            cuts = [0] + cuts + [bytes.count]
            for (start, end) in zip(cuts, cuts.dropFirst()) where start < end {
                let part = bytes[start..<end]
                try channel.writeInbound(channel.allocator.buffer(bytes: part))
                channel.embeddedEventLoop.run()
            }
        } catch {
            // A refused or unparsable request: the pipeline closes the connection.
        }
        while let written = try? channel.readOutbound(as: ByteBuffer.self) { outcome.written += written.readableBytesView }
        outcome.closed = !channel.isActive
        _ = try? channel.finish(acceptAlreadyClosed: true)
        return outcome
    }
}

/// Answers every request `415` at its head, before its body: the early answer whose body's rest
/// the ``ConnectionGuard`` must never take for a new request. An upgrade removes it.
private final class EarlyRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "early-refusal"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .unsupportedMediaType, headers: ["Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
