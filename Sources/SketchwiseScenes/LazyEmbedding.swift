/// An object's embedding, computed the first time the tracker needs it and kept: while an
/// object only grows, its strokes alone tell which track it continues, and rendering a large
/// object for its embedding at every stroke cost most of a replay.
final class LazyEmbedding: @unchecked Sendable {
    private let compute: () throws -> [Float]?
    private var result: Result<[Float]?, any Error>?

    init(_ compute: @escaping () throws -> [Float]?) {
        self.compute = compute
    }

    /// The embedding (computed now if it has not been; an error is kept and thrown again).
    func value() throws -> [Float]? {
        if result == nil { result = Result { try compute() } }
        return try result!.get()
    }
}
