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

    /// A heat map of row-normalised counts (each true class's share of guesses) over the classes
    /// that occur, plus a last column "other" for guesses of any class that does not occur; the
    /// largest confusions are listed beside it.
    public func picture(title: String) -> HeatmapPicture {
        let present = counts.indices.filter { counts[$0].reduce(0, +) > 0 }
        let values = present.map { t -> [Double] in
            let total = Double(counts[t].reduce(0, +))
            let inside = present.map { Double(counts[t][$0]) / total }
            return inside + [1 - inside.reduce(0, +)]
        }
        let names = present.map { labels[$0] }
        let notes = ["largest confusions (true → guessed: count)"] +
            largestConfusions(40).map { "\($0.truth) → \($0.guess): \($0.count)" }
        return HeatmapPicture(title: title, values: values, rowLabels: names, columnLabels: names + ["other"], notes: notes)
    }
}
