/// An immutable, 64-byte aligned array of floats (weights), readable through a plain pointer in
/// hot loops. Never written after `init`, hence `Sendable`.
final class FloatBuffer: @unchecked Sendable {
    /// The first element (valid even when `count` is 0).
    let base: UnsafePointer<Float>
    let count: Int

    init(_ values: [Float]) {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(values.count, 1) * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: max(values.count, 1))
        storage.initialize(repeating: 0, count: max(values.count, 1))
        values.withUnsafeBufferPointer { source in
            if let first = source.baseAddress { storage.update(from: first, count: values.count) }
        }
        base = UnsafePointer(storage)
        count = values.count
    }

    deinit { UnsafeMutableRawPointer(mutating: base).deallocate() }

    subscript(index: Int) -> Float { base[index] }
    /// The values as an array.
    var array: [Float] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
