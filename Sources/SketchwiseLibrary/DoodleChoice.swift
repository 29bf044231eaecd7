/// Which drawings of a class become its doodles: the ones the model is surest of (the most
/// typical), each unlike those already chosen; drawings a person reviewed come first or not at all.
public enum DoodleChoice {
    /// The indices of at most `count` drawings: those reviewed good first, then those not reviewed,
    /// each group most probable first; a drawing reviewed wrong or loose is never chosen. A drawing
    /// whose unit embedding has a cosine above `duplicateSimilarity` with one already chosen is
    /// skipped, so that the doodles of a class differ. Reviews keep the shown doodles the reviewed
    /// ones when a new model ranks the drawings differently.
    /// - Parameter drawings: each drawing's probability of its own class, its embedding and the
    ///   verdict on it, if it was reviewed.
    public static func choose(
        _ drawings: [(probability: Float, embedding: [Float], verdict: PictureReviews.Verdict?)], count: Int,
        duplicateSimilarity: Double = 0.9
    ) -> [Int] {
        func group(_ index: Int) -> Int { drawings[index].verdict == .good ? 0 : 1 }
        let order = drawings.indices.filter { drawings[$0].verdict == nil || drawings[$0].verdict == .good }
            .sorted { (group($0), -drawings[$0].probability, $0) < (group($1), -drawings[$1].probability, $1) }
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
