/// The shape of one value, without a batch dimension: a vector `[n]`, a sequence `[T, C]`
/// (one row per time step) or an image `[C, H, W]`. Stored inline, so it never allocates.
public struct Shape: Hashable, Sendable, CustomStringConvertible {
    /// Number of dimensions (1, 2 or 3).
    public let rank: Int
    private let d0: Int, d1: Int, d2: Int

    private init(rank: Int, _ d0: Int, _ d1: Int, _ d2: Int) {
        self.rank = rank
        (self.d0, self.d1, self.d2) = (d0, d1, d2)
    }

    /// A shape from its dimensions; nil unless there are 1 to 3 dimensions, all positive.
    public init?(_ dims: [Int]) {
        guard (1...3).contains(dims.count), dims.allSatisfy({ $0 > 0 }) else { return nil }
        self.init(rank: dims.count, dims[0], dims.count > 1 ? dims[1] : 0, dims.count > 2 ? dims[2] : 0)
    }

    /// `[count]`.
    public static func vector(_ count: Int) -> Shape { Shape(rank: 1, count, 0, 0) }
    /// `[length, channels]`: one row of `channels` values per time step.
    public static func sequence(length: Int, channels: Int) -> Shape { Shape(rank: 2, length, channels, 0) }
    /// `[channels, height, width]`.
    public static func image(channels: Int, height: Int, width: Int) -> Shape {
        Shape(rank: 3, channels, height, width)
    }

    /// The size of dimension `axis` (0-based).
    public subscript(axis: Int) -> Int {
        switch axis {
        case 0: d0
        case 1: d1
        default: d2
        }
    }

    /// The dimensions as an array.
    public var dims: [Int] { Array([d0, d1, d2].prefix(rank)) }

    /// Number of elements.
    public var count: Int {
        switch rank {
        case 1: d0
        case 2: d0 * d1
        default: d0 * d1 * d2
        }
    }

    public var description: String { "[" + dims.map(String.init).joined(separator: ", ") + "]" }
}
