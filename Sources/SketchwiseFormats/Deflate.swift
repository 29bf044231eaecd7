import CZlib

/// Raw deflate streams (RFC 1951, as ZIP stores them) and CRC-32, over zlib.
enum Deflate {
    /// zlib never expands data by more than this factor when inflating (its worst case is
    /// 1032:1), so a stream of `n` bytes cannot hold more than `n × 1032` bytes.
    static let maximumExpansion = 1032

    /// Inflates `input`, which must hold exactly `expectedSize` bytes. Memory is bounded by what
    /// `input` can really hold, so a lying size cannot make it reserve more; cost is linear in
    /// `input`, whatever it contains.
    /// - Throws: a message naming what is wrong (truncated, corrupt, larger or smaller than declared).
    static func inflate(_ input: [UInt8], expectedSize: Int) throws(DeflateError) -> [UInt8] {
        let limit = input.count.multipliedReportingOverflow(by: maximumExpansion)
        guard limit.overflow || expectedSize <= limit.partialValue + 64 else {
            throw DeflateError("declares \(expectedSize) bytes, more than its \(input.count) compressed bytes can hold")
        }
        // One byte more than declared, so that a stream longer than its size is caught.
        var output = [UInt8](repeating: 0, count: expectedSize + 1)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DeflateError("zlib cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        let status = run(&stream, from: input, into: &output) { CZlib.inflate(&$0, Z_FINISH) }
        let produced = Int(stream.total_out)
        guard produced <= expectedSize else { throw DeflateError("inflates to more than its declared \(expectedSize) bytes") }
        switch status {
        case Z_STREAM_END:
            guard produced == expectedSize else { throw DeflateError("inflates to \(produced) bytes, not its declared \(expectedSize)") }
            output.removeLast()
            return output
        case Z_BUF_ERROR:
            throw DeflateError("compressed data ends early (truncated)")
        default:
            let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw DeflateError("corrupt compressed data: \(detail)")
        }
    }

    /// `input` deflated at zlib's default level, as a raw stream.
    static func deflate(_ input: [UInt8]) throws(DeflateError) -> [UInt8] {
        guard input.count < Int(UInt32.max) else { throw DeflateError("\(input.count) bytes are too many to deflate at once") }
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { throw DeflateError("zlib cannot start deflating") }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = run(&stream, from: input, into: &output) { CZlib.deflate(&$0, Z_FINISH) }
        guard status == Z_STREAM_END else { throw DeflateError("zlib could not deflate (status \(status))") }
        output.removeLast(output.count - Int(stream.total_out))
        return output
    }

    /// Points `stream` at all of `input` and `output` and runs one zlib call on it.
    private static func run(_ stream: inout z_stream, from input: [UInt8], into output: inout [UInt8], _ call: (inout z_stream) -> Int32)
        -> Int32
    {
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return call(&stream)
            }
        }
    }

    /// The CRC-32 that ZIP records for an entry's uncompressed bytes.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: uLong = 0
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let chunk = min(buffer.count - offset, 1 << 30)
                crc = CZlib.crc32(crc, buffer.baseAddress! + offset, uInt(chunk))
                offset += chunk
            }
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}

/// Why a deflate stream could not be read or written.
struct DeflateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
