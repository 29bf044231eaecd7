/// The subset of Python's pickle format that NumPy uses to store object arrays of arrays
/// (Sketch-RNN's stroke-3 `.npz` files): protocols 2–5, `ndarray` and `dtype` reconstruction.
/// Anything else is rejected; nothing is ever executed.
enum PickleReader {
    private final class ArrayBox {
        var shape: [Int] = []
        var dtype: DTypeBox?
        var data: Value = .none
    }

    private final class DTypeBox {
        var name: String
        init(name: String) { self.name = name }
    }

    private final class ListBox {
        var items: [Value] = []
    }

    private enum Value {
        case none, mark
        case bool(Bool)
        case int(Int)
        case string(String)
        case bytes([UInt8])
        case tuple([Value])
        case list(ListBox)
        case global(String)
        case array(ArrayBox)
        case dtype(DTypeBox)

        var text: String? {
            switch self {
            case let .string(s): s
            case let .bytes(b): String(decoding: b, as: UTF8.self)
            default: nil
            }
        }
    }

    /// Limits that keep a hostile pickle from using unbounded memory.
    private static let maximumStackDepth = 1 << 16

    /// The arrays of a pickled 1-D object array.
    static func objectArray(from bytes: [UInt8]) throws(RecordError) -> [NPYArray] {
        var reader = ByteReader(bytes: bytes)
        var stack: [Value] = []
        var memo: [Int: Value] = [:]
        func pop() throws(RecordError) -> Value {
            guard let v = stack.popLast() else { throw RecordError("malformed pickle: stack underflow") }
            return v
        }
        func popToMark() throws(RecordError) -> [Value] {
            guard let markIndex = stack.lastIndex(where: { if case .mark = $0 { true } else { false } }) else {
                throw RecordError("malformed pickle: no mark")
            }
            let items = Array(stack[(markIndex + 1)...])
            stack.removeSubrange(markIndex...)
            return items
        }
        while true {
            guard stack.count < maximumStackDepth else { throw RecordError("pickle too deeply nested") }
            let op = try reader.byte()
            switch op {
            case 0x80: _ = try reader.byte()                        // PROTO
            case 0x95: _ = try reader.bytes(8)                      // FRAME
            case 0x2E:                                              // STOP
                guard case let .array(root)? = stack.last, case let .list(list) = root.data else {
                    throw RecordError("pickle does not hold an object array")
                }
                var result: [NPYArray] = []
                for item in list.items {
                    guard case let .array(box) = item else { throw RecordError("object array element is not an array") }
                    result.append(try numericArray(box))
                }
                return result
            case 0x28: stack.append(.mark)                          // MARK
            case 0x4E: stack.append(.none)                          // NONE
            case 0x88: stack.append(.bool(true))                    // NEWTRUE
            case 0x89: stack.append(.bool(false))                   // NEWFALSE
            case 0x4B: stack.append(.int(Int(try reader.byte())))   // BININT1
            case 0x4D: stack.append(.int(try reader.littleEndian(2)))  // BININT2
            case 0x4A: stack.append(.int(Int(Int32(truncatingIfNeeded: try reader.littleEndian(4)))))  // BININT
            case 0x8C, 0x58, 0x8D:                                  // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
                let length = try reader.littleEndian(op == 0x8C ? 1 : op == 0x58 ? 4 : 8)
                stack.append(.string(String(decoding: try reader.bytes(length), as: UTF8.self)))
            // SHORT_BINBYTES, BINBYTES, BINBYTES8, SHORT_BINSTRING, BINSTRING
            case 0x43, 0x42, 0x8E, 0x55, 0x54:
                let width = switch op { case 0x43, 0x55: 1; case 0x8E: 8; default: 4 }
                stack.append(.bytes(try reader.bytes(try reader.littleEndian(width))))
            case 0x63:                                              // GLOBAL "module\nname\n"
                let module = try reader.line(), name = try reader.line()
                stack.append(.global(module + "." + name))
            case 0x93:                                              // STACK_GLOBAL
                let name = try pop(), module = try pop()
                guard let m = module.text, let n = name.text else { throw RecordError("malformed pickle global") }
                stack.append(.global(m + "." + n))
            case 0x29: stack.append(.tuple([]))                     // EMPTY_TUPLE
            case 0x85, 0x86, 0x87:                                  // TUPLE1..3
                let n = Int(op - 0x84)
                guard stack.count >= n else { throw RecordError("malformed pickle: stack underflow") }
                let items = Array(stack.suffix(n))
                stack.removeLast(n)
                stack.append(.tuple(items))
            case 0x74: stack.append(.tuple(try popToMark()))        // TUPLE
            case 0x5D: stack.append(.list(ListBox()))               // EMPTY_LIST
            case 0x61, 0x65:                                        // APPEND, APPENDS
                let items = op == 0x61 ? [try pop()] : try popToMark()
                guard case let .list(list)? = stack.last else { throw RecordError("malformed pickle: append to a non-list") }
                list.items += items
            case 0x94: if let top = stack.last { memo[memo.count] = top }  // MEMOIZE
            case 0x71, 0x72:                                        // BINPUT, LONG_BINPUT
                let key = try reader.littleEndian(op == 0x71 ? 1 : 4)
                if let top = stack.last { memo[key] = top }
            case 0x68, 0x6A:                                        // BINGET, LONG_BINGET
                let key = try reader.littleEndian(op == 0x68 ? 1 : 4)
                guard let v = memo[key] else { throw RecordError("malformed pickle: unknown memo \(key)") }
                stack.append(v)
            case 0x52:                                              // REDUCE
                let args = try pop(), callable = try pop()
                stack.append(try reduce(callable, args))
            case 0x62:                                              // BUILD
                let state = try pop()
                guard let target = stack.last else { throw RecordError("malformed pickle: stack underflow") }
                try build(target, state: state)
            default:
                throw RecordError("unsupported pickle opcode 0x\(String(op, radix: 16)) (only NumPy object arrays are read)")
            }
        }
    }

    private static func reduce(_ callable: Value, _ args: Value) throws(RecordError) -> Value {
        guard case let .global(name) = callable, case let .tuple(items) = args else {
            throw RecordError("malformed pickle: bad reduce")
        }
        switch name {
        case "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct":
            return .array(ArrayBox())
        case "numpy.dtype":
            guard let first = items.first?.text else { throw RecordError("malformed pickle: dtype without a name") }
            return .dtype(DTypeBox(name: first))
        default:
            throw RecordError("pickle calls \(name), which is not a NumPy array constructor; refusing to read it")
        }
    }

    private static func build(_ target: Value, state: Value) throws(RecordError) {
        guard case let .tuple(items) = state else { throw RecordError("malformed pickle: bad state") }
        switch target {
        case let .dtype(box):
            if items.count > 1, let order = items[1].text, order == ">" { box.name = ">" + box.name }
        case let .array(box):
            guard items.count == 5, case let .tuple(dims) = items[1], case let .dtype(dtype) = items[2] else {
                throw RecordError("malformed pickle: bad ndarray state")
            }
            box.shape = try dims.map { (d: Value) throws(RecordError) -> Int in
                guard case let .int(n) = d, n >= 0 else { throw RecordError("malformed pickle: bad shape") }
                return n
            }
            box.dtype = dtype
            box.data = items[4]
        default:
            throw RecordError("malformed pickle: build on an unexpected object")
        }
    }

    private static func numericArray(_ box: ArrayBox) throws(RecordError) -> NPYArray {
        guard let dtype = box.dtype, case let .bytes(bytes) = box.data else {
            throw RecordError("object array element is not a numeric array")
        }
        let type = try NPYArray.elementType(descr: dtype.name.hasPrefix(">") ? dtype.name : "<" + dtype.name)
        let expected = box.shape.reduce(1, *) * type.size
        guard bytes.count == expected else {
            throw RecordError("array element has \(bytes.count) bytes, shape \(box.shape) needs \(expected)")
        }
        return NPYArray(shape: box.shape, elementType: type, bytes: bytes)
    }
}

/// Writes a 1-D object array of numeric arrays as NumPy pickles it (protocol 3), so that
/// `numpy.load(…, allow_pickle=True)` reads it back.
enum PickleWriter {
    static func objectArray(_ arrays: [NPYArray]) -> [UInt8] {
        var out: [UInt8] = [0x80, 3]
        func global(_ module: String, _ name: String) { out += [0x63] + Array("\(module)\n\(name)\n".utf8) }
        func int(_ n: Int) {
            if (0..<256).contains(n) { out += [0x4B, UInt8(n)] } else {
                out += [0x4A] + withUnsafeBytes(of: Int32(truncatingIfNeeded: n).littleEndian, Array.init)
            }
        }
        func text(_ s: String) { out += [0x8C, UInt8(s.utf8.count)] + Array(s.utf8) }
        func shape(_ dims: [Int]) { out.append(0x28); dims.forEach(int); out.append(0x74) }
        func dtype(_ name: String, order: String, flags: Int) {
            global("numpy", "dtype")
            text(name); out += [0x89, 0x88, 0x87, 0x52]               // (name, False, True) REDUCE
            out.append(0x28); int(3); text(order); out += [0x4E, 0x4E, 0x4E]
            int(-1); int(-1); int(flags); out += [0x74, 0x62]         // state tuple, BUILD
        }
        func emptyArray() {
            global("numpy.core.multiarray", "_reconstruct"); global("numpy", "ndarray")
            int(0); out.append(0x85); out += [0x43, 1, UInt8(ascii: "b")]; out += [0x87, 0x52]
        }
        emptyArray()
        out.append(0x28); int(1); shape([arrays.count]); dtype("O8", order: "|", flags: 63); out.append(0x89)
        out += [0x5D, 0x28]                                          // EMPTY_LIST, MARK
        for array in arrays {
            guard case let .numeric(type, bytes) = array.storage else { continue }
            emptyArray()
            out.append(0x28); int(1); shape(array.shape)
            dtype(type.rawValue, order: type.size == 1 ? "|" : "<", flags: 0)
            out.append(0x89)
            out += [0x42] + withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
            out += [0x74, 0x62]
        }
        out += [0x65, 0x74, 0x62, 0x2E]                              // APPENDS, state TUPLE, BUILD, STOP
        return out
    }
}

/// Sequential reading of a byte buffer with bounds checks.
struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    mutating func byte() throws(RecordError) -> UInt8 {
        guard position < bytes.count else { throw RecordError("truncated data") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bytes(_ count: Int) throws(RecordError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - position else { throw RecordError("truncated data") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func littleEndian(_ width: Int) throws(RecordError) -> Int {
        let raw = try bytes(width)
        let value = raw.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard value < UInt64(Int.max) else { throw RecordError("malformed length") }
        return Int(value)
    }

    mutating func line() throws(RecordError) -> String {
        guard let end = bytes[position...].firstIndex(of: 0x0A) else { throw RecordError("truncated data") }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }
}
