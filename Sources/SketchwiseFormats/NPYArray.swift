import Foundation

/// An n-dimensional array as stored in a NumPy `.npy` file: numeric arrays keep their raw
/// little-endian bytes; object arrays (`|O`, as in Sketch-RNN's `.npz`) hold arrays.
public struct NPYArray: Hashable, Sendable {
    /// The element types Sketchwise reads and writes.
    public enum ElementType: String, Sendable, CaseIterable {
        case bool = "b1", uint8 = "u1", int8 = "i1", int16 = "i2", int32 = "i4", int64 = "i8"
        case float32 = "f4", float64 = "f8"

        /// Bytes per element.
        public var size: Int { Int(rawValue.dropFirst())! }

        /// The dtype string numpy writes (`|u1`, `<i2`, …).
        var descr: String { (size == 1 ? "|" : "<") + rawValue }
    }

    public enum Storage: Hashable, Sendable {
        /// Little-endian C-order element bytes.
        case numeric(ElementType, [UInt8])
        /// The elements of an object array.
        case objects([NPYArray])
    }

    public var shape: [Int]
    public var storage: Storage

    /// A numeric array; `bytes.count` must equal the element count times the element size.
    public init(shape: [Int], elementType: ElementType, bytes: [UInt8]) {
        self.shape = shape
        self.storage = .numeric(elementType, bytes)
    }

    /// A 1-D object array of arrays.
    public init(objects: [NPYArray]) {
        self.shape = [objects.count]
        self.storage = .objects(objects)
    }

    public var elementCount: Int { shape.reduce(1, *) }

    /// The element type of a numeric array; nil for an object array.
    public var elementType: ElementType? {
        if case let .numeric(type, _) = storage { return type }
        return nil
    }

    /// The elements of a numeric array converted to Double, in C order; nil for an object array.
    public func doubles() -> [Double]? {
        guard case let .numeric(type, bytes) = storage else { return nil }
        return bytes.withUnsafeBytes { raw -> [Double] in
            (0..<elementCount).map { i in
                let offset = i * type.size
                switch type {
                case .bool, .uint8: return Double(raw[offset])
                case .int8: return Double(Int8(bitPattern: raw[offset]))
                case .int16: return Double(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int16.self)))
                case .int32: return Double(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
                case .int64: return Double(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                case .float32:
                    return Double(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))))
                case .float64: return Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                }
            }
        }
    }
}

extension NPYArray {
    /// The longest header read: NumPy writes a few hundred bytes; a header claiming more is hostile.
    static let maximumHeaderLength = 1 << 20

    /// The header of a `.npy` file from its first bytes (`data` may hold only a prefix) and where
    /// its data start: the magic bytes, the version, the header dictionary.
    static func parseHeader(_ data: [UInt8]) throws(RecordError) -> (fields: NPYHeader, dataOffset: Int) {
        let magic: [UInt8] = [0x93] + Array("NUMPY".utf8)
        guard data.count >= 10, Array(data[0..<6]) == magic else {
            throw RecordError("not a .npy file (bad magic bytes)")
        }
        let major = data[6]
        let headerLength: Int
        let headerStart: Int
        switch major {
        case 1:
            headerLength = Int(data[8]) | Int(data[9]) << 8
            headerStart = 10
        case 2, 3:
            guard data.count >= 12 else { throw RecordError("truncated .npy header") }
            headerLength = (0..<4).reduce(0) { $0 | Int(data[8 + $1]) << (8 * $1) }
            headerStart = 12
        default:
            throw RecordError("unsupported .npy format version \(major)")
        }
        guard headerLength <= maximumHeaderLength else { throw RecordError(".npy header of \(headerLength) bytes is implausibly long") }
        guard data.count >= headerStart + headerLength,
            let header = String(bytes: data[headerStart..<headerStart + headerLength], encoding: major == 3 ? .utf8 : .isoLatin1)
        else { throw RecordError("truncated .npy header") }
        return (try NPYHeader(parsing: header), headerStart + headerLength)
    }

    /// The bytes of the data a header describes, or nil for object arrays (pickled: unknown).
    /// - Throws: when the element count or byte count overflows.
    static func dataLength(of fields: NPYHeader) throws(RecordError) -> Int? {
        guard fields.descr != "|O" else { return nil }
        var count = 1
        for dimension in fields.shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, dimension >= 0 else { throw RecordError("shape \(fields.shape) is too large") }
            count = product
        }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: try elementType(descr: fields.descr).size)
        guard !overflow else { throw RecordError("shape \(fields.shape) is too large") }
        return bytes
    }

    /// Parses the bytes of a `.npy` file (format versions 1.0, 2.0 and 3.0).
    public init(npyBytes data: [UInt8]) throws(RecordError) {
        let (fields, dataOffset) = try Self.parseHeader(data)
        let body = data[dataOffset...]
        let count = fields.shape.reduce(1, *)
        if fields.descr == "|O" {
            let objects = try PickleReader.objectArray(from: Array(body))
            guard objects.count == count else {
                throw RecordError("object array holds \(objects.count) elements, header says \(count)")
            }
            self.init(objects: objects)
            self.shape = fields.shape
            return
        }
        guard !fields.fortranOrder || fields.shape.filter({ $0 > 1 }).count <= 1 else {
            throw RecordError("Fortran-ordered arrays are not supported; save with C order")
        }
        let type = try Self.elementType(descr: fields.descr)
        let expected = count * type.size
        guard body.count >= expected else {
            throw RecordError("truncated .npy data: \(body.count) bytes, shape \(fields.shape) needs \(expected)")
        }
        self.init(shape: fields.shape, elementType: type, bytes: Array(body.prefix(expected)))
    }

    static func elementType(descr: String) throws(RecordError) -> ElementType {
        guard let order = descr.first, "<|=".contains(order), let type = ElementType(rawValue: String(descr.dropFirst())) else {
            if descr.first == ">" { throw RecordError("big-endian dtype \(descr) is not supported") }
            throw RecordError("unsupported dtype \(descr) (supported: \(ElementType.allCases.map(\.rawValue).joined(separator: ", ")), O)")
        }
        return type
    }

    /// The bytes of a version 1.0 `.npy` file holding this array.
    public func npyBytes() -> [UInt8] {
        let descr: String
        let body: [UInt8]
        switch storage {
        case let .numeric(type, bytes):
            descr = type.descr
            body = bytes
        case let .objects(objects):
            descr = "|O"
            body = PickleWriter.objectArray(objects)
        }
        return Self.header(descr: descr, shape: shape) + body
    }

    /// A version 1.0 `.npy` header, padded with spaces so that the data starts at a multiple of
    /// 64 bytes and at least at `minimumLength` (which lets a writer rewrite it in place later).
    static func header(descr: String, shape: [Int], minimumLength: Int = 0) -> [UInt8] {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var text = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        var total = 10 + text.utf8.count + 1
        total = max(total + (64 - total % 64) % 64, minimumLength)
        text += String(repeating: " ", count: total - 10 - text.utf8.count - 1) + "\n"
        let length = text.utf8.count
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)] + Array(text.utf8)
    }

    /// Reads a `.npy` file. Its header is read and checked first, and the file only when its
    /// size is what the header promises: a file that is not what it claims fails at once,
    /// whatever its size.
    public init(contentsOf path: String) throws(FormatError) {
        do {
            let size = try fileSize(path)
            let (fields, dataOffset) = try Self.parseHeader(try readPrefix(path, count: 12 + Self.maximumHeaderLength))
            if let length = try Self.dataLength(of: fields), size < dataOffset + length {
                throw RecordError("truncated .npy data: \(size - dataOffset) bytes, shape \(fields.shape) needs \(length)")
            }
            try self.init(npyBytes: try readFile(path))
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError(file: path, reason: "\(error)")
        }
    }

    /// Writes a `.npy` file.
    public func write(to path: String) throws(FormatError) {
        try writeFile(npyBytes(), to: path)
    }
}

/// The Python-literal dictionary at the start of a `.npy` file.
struct NPYHeader {
    var descr: String
    var fortranOrder: Bool
    var shape: [Int]

    init(parsing text: String) throws(RecordError) {
        func value(of key: String) throws(RecordError) -> Substring {
            guard let keyRange = text.range(of: "'\(key)':") else { throw RecordError(".npy header has no '\(key)'") }
            return text[keyRange.upperBound...].drop(while: { $0 == " " })
        }
        let descrText = try value(of: "descr")
        guard descrText.first == "'", let end = descrText.dropFirst().firstIndex(of: "'") else {
            throw RecordError("unsupported structured dtype in .npy header")
        }
        descr = String(descrText[descrText.index(after: descrText.startIndex)..<end])
        fortranOrder = try value(of: "fortran_order").hasPrefix("True")
        let shapeText = try value(of: "shape")
        guard shapeText.first == "(", let close = shapeText.firstIndex(of: ")") else {
            throw RecordError("malformed shape in .npy header")
        }
        var dims: [Int] = []
        for part in shapeText[shapeText.index(after: shapeText.startIndex)..<close].split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let dim = Int(trimmed.hasSuffix("L") ? String(trimmed.dropLast()) : trimmed), dim >= 0, dim < 1 << 40 else {
                throw RecordError("malformed shape \(shapeText[...close]) in .npy header")
            }
            dims.append(dim)
        }
        guard dims.reduce(1, { $0.multipliedReportingOverflow(by: $1).partialValue }) < 1 << 40 else {
            throw RecordError("shape \(dims) is too large")
        }
        shape = dims
    }
}

func readFile(_ path: String) throws(FormatError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw FormatError(file: path, reason: "cannot read the file")
    }
    return [UInt8](data)
}

/// The whole file at `path`, once its first bytes (after white space) start with `start` and
/// its size is at most `maximumSize`: a file that is not what it claims is refused after
/// reading at most 64 bytes, whatever its size.
func readFile(_ path: String, startingWith start: String, maximumSize: Int, format: String) throws(FormatError) -> [UInt8] {
    let head = try readPrefix(path, count: 64).drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    guard head.starts(with: Array(start.utf8)) else {
        throw FormatError(file: path, reason: "not \(format) (it does not start with \(start))")
    }
    let size = try fileSize(path)
    guard size <= maximumSize else {
        throw FormatError(file: path, reason: "\(size >> 20) MiB is more than \(format) may hold (\(maximumSize >> 20) MiB)")
    }
    return try readFile(path)
}

/// The size of the file at `path`, in bytes.
func fileSize(_ path: String) throws(FormatError) -> Int {
    guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else {
        throw FormatError(file: path, reason: "cannot read the file")
    }
    return size.intValue
}

/// Up to `count` bytes from `offset` of the file at `path` (negative: from the end).
func readPrefix(_ path: String, count: Int, offset: Int = 0) throws(FormatError) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw FormatError(file: path, reason: "cannot read the file") }
    defer { try? handle.close() }
    do {
        if offset >= 0 {
            try handle.seek(toOffset: UInt64(offset))
        } else {
            let end = try handle.seekToEnd()
            try handle.seek(toOffset: end - min(end, UInt64(-offset)))
        }
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    } catch {
        throw FormatError(file: path, reason: "cannot read the file: \(error.localizedDescription)")
    }
}

func writeFile(_ bytes: [UInt8], to path: String) throws(FormatError) {
    do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
        throw FormatError(file: path, reason: "cannot write: \(error.localizedDescription)")
    }
}
