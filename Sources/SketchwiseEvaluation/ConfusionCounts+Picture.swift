import SketchwiseRaster

extension ConfusionCounts {
    /// The largest off-diagonal counts: (true label, guessed label, count), largest first.
    public func largestConfusions(_ count: Int) -> [(truth: String, guess: String, count: Int)] {
        var pairs: [(String, String, Int)] = []
        for (t, row) in counts.enumerated() {
            for (g, n) in row.enumerated() where t != g && n > 0 { pairs.append((labels[t], labels[g], n)) }
        }
        return Array(pairs.sorted { $0.2 > $1.2 }.prefix(count))
    }

    /// A heat map of row-normalised counts (each true class's share of guesses), the largest
    /// confusions listed beside it. Only classes that occur are drawn.
    public func picture(title: String) -> HeatmapPicture {
        let present = counts.indices.filter { counts[$0].reduce(0, +) > 0 }
        let values = present.map { t -> [Double] in
            let total = Double(counts[t].reduce(0, +))
            return present.map { Double(counts[t][$0]) / total }
        }
        let names = present.map { labels[$0] }
        let notes = ["largest confusions (true → guessed: count)"] +
            largestConfusions(40).map { "\($0.truth) → \($0.guess): \($0.count)" }
        return HeatmapPicture(title: title, values: values, rowLabels: names, columnLabels: names, notes: notes)
    }
}
