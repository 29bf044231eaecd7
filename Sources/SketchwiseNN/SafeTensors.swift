import Foundation

/// A validated safetensors file of F32 tensors: header JSON, offsets inside the data section,
/// no overlaps, sizes matching shapes, every value finite.
struct SafeTensors: Sendable {
    struct Entry: Sendable {
        let shape: [Int]
        /// Byte range in `data`, absolute.
        let range: Range<Int>
    }

    let url: URL
    let entries: [String: Entry]
    private let data: Data

    /// The longest header accepted (100 MB, like the reference implementation).
    static let maxHeaderLength = 100_000_000

    init(contentsOf url: URL) throws(ModelError) {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ModelError(.unreadable, file: url, "cannot read the weights file: \(error.localizedDescription)")
        }
        try self.init(data: data, url: url)
    }

    init(data: Data, url: URL) throws(ModelError) {
        func fail(_ kind: ModelError.Kind, _ message: String) -> ModelError { ModelError(kind, file: url, message) }
        guard data.count >= 8 else {
            throw fail(.header, "file is \(data.count) bytes, too short for the 8-byte header length")
        }
        let headerLength = data.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard headerLength <= UInt64(min(Self.maxHeaderLength, data.count - 8)) else {
            throw fail(.header, "header length \(headerLength) runs past the end of the \(data.count)-byte file (truncated?)")
        }
        let dataStart = 8 + Int(headerLength)
        let header: [String: JSONValue]
        do {
            header = try JSONDecoder().decode([String: JSONValue].self, from: data[data.startIndex + 8..<data.startIndex + dataStart])
        } catch {
            throw fail(.header, "header is not a JSON object: \((error as? DecodingError)?.readable ?? "\(error)")")
        }

        var entries: [String: Entry] = [:]
        let dataLength = data.count - dataStart
        for (name, value) in header where name != "__metadata__" {
            guard case let .object(fields) = value else { throw fail(.header, "tensor '\(name)' is not an object") }
            guard case let .string(dtype) = fields["dtype"] else { throw fail(.header, "tensor '\(name)' has no dtype") }
            guard dtype == "F32" else { throw fail(.dtype, "tensor '\(name)' has dtype \(dtype); only F32 is supported") }
            guard case let .array(shapeValues) = fields["shape"],
                case let shape = shapeValues.compactMap(\.intValue), shape.count == shapeValues.count,
                shape.allSatisfy({ $0 >= 0 })
            else { throw fail(.header, "tensor '\(name)' has no valid shape") }
            guard case let .array(offsetValues) = fields["data_offsets"], offsetValues.count == 2,
                let begin = offsetValues[0].intValue, let end = offsetValues[1].intValue
            else { throw fail(.header, "tensor '\(name)' has no valid data_offsets") }
            guard 0 <= begin, begin <= end, end <= dataLength else {
                throw fail(
                    .offsets,
                    "tensor '\(name)' data_offsets [\(begin), \(end)] lie outside the \(dataLength)-byte data section (truncated?)")
            }
            var bytes = 4
            for dim in shape {
                let (product, overflow) = bytes.multipliedReportingOverflow(by: dim)
                guard !overflow else { throw fail(.offsets, "tensor '\(name)' shape \(shape) is too large") }
                bytes = product
            }
            guard end - begin == bytes else {
                throw fail(.offsets, "tensor '\(name)' spans \(end - begin) bytes but shape \(shape) needs \(bytes)")
            }
            entries[name] = Entry(shape: shape, range: data.startIndex + dataStart + begin..<data.startIndex + dataStart + end)
        }
        let sorted = entries.sorted { $0.value.range.lowerBound < $1.value.range.lowerBound }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where next.value.range.lowerBound < previous.value.range.upperBound {
            throw fail(.offsets, "tensors '\(previous.key)' and '\(next.key)' overlap")
        }
        self.url = url
        self.entries = entries
        self.data = data
        for name in entries.keys.sorted() where floats(name)?.contains(where: { !$0.isFinite }) == true {
            throw fail(.nonFinite, "tensor '\(name)' contains NaN or infinite values")
        }
    }

    /// The values of tensor `name` (little-endian F32), or nil if there is no such tensor.
    func floats(_ name: String) -> [Float]? {
        guard let entry = entries[name] else { return nil }
        let count = entry.range.count / 4
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            data.withUnsafeBytes { raw in
                let bytes = UnsafeRawBufferPointer(
                    rebasing: raw[entry.range.lowerBound - data.startIndex..<entry.range.upperBound - data.startIndex])
                for i in 0..<count {
                    buffer[i] = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                }
            }
            initialized = count
        }
    }
}
