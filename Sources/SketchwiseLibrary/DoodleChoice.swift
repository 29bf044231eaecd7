/// Which drawings of a class become its doodles: the ones the model is surest of (the most
/// typical), each unlike those already chosen.
public enum DoodleChoice {
    /// The indices of at most `count` drawings, most probable first. A drawing whose unit
    /// embedding has a cosine above `duplicateSimilarity` with one already chosen is skipped, so
    /// that the doodles of a class differ.
    /// - Parameter drawings: each drawing's probability of its own class and its embedding.
    public static func choose(
        _ drawings: [(probability: Float, embedding: [Float])], count: Int, duplicateSimilarity: Double = 0.9
    ) -> [Int] {
        let order = drawings.indices.sorted { (drawings[$0].probability, $1) > (drawings[$1].probability, $0) }
        let units = drawings.map { UnitVector.normalized($0.embedding) }
        var chosen: [Int] = []
        for index in order where chosen.count < count {
            if !UnitVector.isNear(units[index], anyOf: chosen.lazy.map { units[$0] }, above: duplicateSimilarity) {
                chosen.append(index)
            }
        }
        return chosen
    }
}
