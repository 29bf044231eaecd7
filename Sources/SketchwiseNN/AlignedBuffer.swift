/// An immutable, 64-byte aligned array (weights), readable through a plain pointer in hot loops.
/// Never written after `init`, hence `Sendable`.
final class AlignedBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The first element (valid even when `count` is 0).
    let base: UnsafePointer<Element>
    let count: Int

    init(_ values: [Element]) {
        let capacity = max(values.count, 1)
        let bytes = capacity * MemoryLayout<Element>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let storage = raw.bindMemory(to: Element.self, capacity: capacity)
        values.withUnsafeBufferPointer { source in
            if let first = source.baseAddress { storage.update(from: first, count: values.count) }
        }
        base = UnsafePointer(storage)
        count = values.count
    }

    deinit { UnsafeMutableRawPointer(mutating: base).deallocate() }

    subscript(index: Int) -> Element { base[index] }
    /// The values as an array.
    var array: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// Float weights.
typealias FloatBuffer = AlignedBuffer<Float>
