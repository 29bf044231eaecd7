import NIOCore

/// Closes a WebSocket whose client sends an unmasked frame (RFC 6455 §5.1: the server must
/// close the connection), with close code 1002 (protocol error). It reads the raw bytes, frame
/// header by frame header, ahead of the WebSocket frame decoder; the bytes pass on unchanged.
final class ClientFrameMaskCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The header of the frame being read, as far as it has come.
    private var header: [UInt8] = []
    /// Payload bytes of the current frame still to skip.
    private var remaining: UInt64 = 0
    private var closed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        let bytes = unwrapInboundIn(data)
        var view = bytes.readableBytesView[...]
        while !view.isEmpty {
            if remaining > 0 {
                let skipped = Int(min(remaining, UInt64(view.count)))
                view = view.dropFirst(skipped)
                remaining -= UInt64(skipped)
                continue
            }
            header.append(view.removeFirst())
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return refuseUnmasked(context: context) }
            let lengthBytes =
                switch header[1] & 0x7F {
                case 126: 2;
                case 127: 8;
                default: 0
                }
            guard header.count == 2 + lengthBytes + 4 else { continue }
            remaining = lengthBytes == 0 ? UInt64(header[1] & 0x7F) : header[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        context.fireChannelRead(data)
    }

    /// Sends a close frame with code 1002 and closes.
    private func refuseUnmasked(context: ChannelHandlerContext) {
        closed = true
        let reason = Array("client frames must be masked".utf8)
        let close: [UInt8] = [0x88, UInt8(2 + reason.count), 0x03, 0xEA] + reason
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: close))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
