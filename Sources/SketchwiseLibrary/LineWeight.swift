/// How wide a line picture's lines are, as a share of the picture's longer side: a picture placed
/// 300 units wide with weight 0.0133 has lines 4 units wide, like a 4-unit pen beside it.
public struct LineWeight: Sendable, Hashable {
    /// The least and the most a weight may be.
    public static let range = 0.001...0.1

    /// The share, rounded to thousandths (so that the pictures drawn for nearby sizes are one).
    public let share: Double

    /// A weight of `share` of the longer side, or nil outside ``range`` or not a number.
    public init?(share: Double) {
        let rounded = (share * 1000).rounded() / 1000
        guard share.isFinite, Self.range.contains(rounded) else { return nil }
        self.share = rounded
    }
}
