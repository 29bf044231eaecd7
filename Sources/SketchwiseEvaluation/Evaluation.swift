import Dispatch
import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseRecognition

/// Top-k accuracy of a recogniser over a drawing collection.
public struct EvaluationReport: Sendable, Codable, Equatable {
    public struct ClassScore: Sendable, Codable, Equatable {
        public var n = 0
        public var top1 = 0.0
        public var top3 = 0.0
        public var top5 = 0.0
    }

    /// The recogniser that answered: a role (`raster`, `strokes`, `ensemble`) or a model's name.
    public var model: String
    public var subset: ValidationSplit.Subset
    /// Drawings scored: those of the subset whose class the recogniser knows (bad ones skipped).
    public var n: Int
    /// Drawings of the subset that were read, scored or not.
    public var drawings: Int
    /// How many classes the recogniser knows (its labels; a model may know only some classes).
    public var classes: Int
    /// Drawings of the subset whose class the recogniser does not know, left out of the scores.
    public var unknownClass: Int
    public var top1: Double
    public var top3: Double
    public var top5: Double
    public var perClass: [String: ClassScore]
    /// Drawings whose class the models do not know, or that were skipped as bad.
    public var skipped: Int
    /// The scores of the stroke drawings cut to a share of their strokes, one per share asked
    /// for (nil when none was).
    public var prefixes: [PrefixScore]?

    enum CodingKeys: String, CodingKey {
        case model, subset, n, drawings, classes, unknownClass = "unknown_class", top1, top3, top5, perClass = "per_class", skipped
        case prefixes
    }

    /// Says what was scored, as `scored N of M drawings: the model knows K classes`.
    public var coverage: String {
        "scored \(n) of \(drawings) drawings: the model knows \(classes) classes"
    }
}

/// Counts of (true class, top guess) pairs, in label order.
public struct ConfusionCounts: Sendable {
    public var labels: [String]
    public var counts: [[Int]]
}

public enum Evaluation {
    /// Evaluates every drawing of `source` in `subset` whose class the recogniser knows (by
    /// name, among its labels), with `kind` (default: the ensemble, whose image-reading members
    /// answer for bitmaps; stroke models cannot read bitmaps). Drawings of other classes are
    /// counted in ``EvaluationReport/unknownClass``. Runs on `threads` threads.
    ///
    /// For each share of `prefixes` (in (0, 1]), every stroke drawing scored is also classified
    /// cut to its first ⌈share × strokes⌉ strokes (at least one), and scored in
    /// ``EvaluationReport/prefixes``; bitmaps are left out of those rows.
    public static func run(
        source: DrawingSource, recognizers: RecognizerSet, kind: RecognizerKind?, subset: ValidationSplit.Subset,
        policy: BadInputPolicy, prefixes: [Double] = [], threads: Int = 2, progress: (Int) -> Void = { _ in }
    ) throws -> (EvaluationReport, ConfusionCounts) {
        let kind = kind ?? .ensemble
        let recognizer = try recognizers.recognizer(kind)
        let labels = recognizer.labels
        let index = Dictionary(labels.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: labels.count), count: labels.count)
        var hits = [[Int]](repeating: [0, 0, 0, 0], count: labels.count)  // n, top1, top3, top5
        var prefixHits = [[Int]](repeating: [0, 0, 0, 0], count: prefixes.count)
        var batch: [(LabeledDrawing, Int)] = []

        func flush() throws {
            let ranks = rank(batch, recognizer: recognizer, prefixes: prefixes, threads: threads)
            for ((_, truth), result) in zip(batch, ranks) {
                switch result {
                case let .failure(error):
                    guard policy.skipBad else { throw error }
                    policy.onSkip(error)
                case let .success((rank, top, prefixRanks)):
                    for (p, rank) in prefixRanks.enumerated() {
                        prefixHits[p][0] += 1
                        if rank < 1 { prefixHits[p][1] += 1 }
                        if rank < 3 { prefixHits[p][2] += 1 }
                        if rank < 5 { prefixHits[p][3] += 1 }
                    }
                    hits[truth][0] += 1
                    if rank < 1 { hits[truth][1] += 1 }
                    if rank < 3 { hits[truth][2] += 1 }
                    if rank < 5 { hits[truth][3] += 1 }
                    confusion[truth][top] += 1
                }
            }
            batch.removeAll(keepingCapacity: true)
        }

        var (unknownClass, drawings) = (0, 0)
        let report = try forEachDrawing(in: source, policy: policy, progress: progress) { drawing in
            guard ValidationSplit.contains(drawing, in: subset) else { return }
            drawings += 1
            guard let truth = index[drawing.label] else {
                unknownClass += 1
                return
            }
            batch.append((drawing, truth))
            if batch.count >= 512 { try flush() }
        }
        try flush()
        let n = hits.reduce(0) { $0 + $1[0] }
        func share(_ k: Int) -> Double { n > 0 ? Double(hits.reduce(0) { $0 + $1[k] }) / Double(n) : 0 }
        var perClass: [String: EvaluationReport.ClassScore] = [:]
        for (i, h) in hits.enumerated() where h[0] > 0 {
            let c = Double(h[0])
            perClass[labels[i]] = .init(n: h[0], top1: Double(h[1]) / c, top3: Double(h[2]) / c, top5: Double(h[3]) / c)
        }
        let prefixScores = zip(prefixes, prefixHits).map { share, h in
            let c = Double(max(h[0], 1))
            return EvaluationReport.PrefixScore(
                prefix: share, n: h[0], top1: Double(h[1]) / c, top3: Double(h[2]) / c, top5: Double(h[3]) / c)
        }
        return (
            EvaluationReport(
                model: kind.rawValue, subset: subset, n: n, drawings: drawings, classes: labels.count,
                unknownClass: unknownClass, top1: share(1), top3: share(2), top5: share(3),
                perClass: perClass, skipped: unknownClass + report.skipped,
                prefixes: prefixes.isEmpty ? nil : prefixScores),
            ConfusionCounts(labels: labels, counts: confusion)
        )
    }

    /// For each drawing: the rank of its true class, the index of the top guess, and the rank of
    /// its true class for each of `prefixes` (none for a bitmap).
    private static func rank(
        _ batch: [(LabeledDrawing, Int)], recognizer: SketchRecognizer, prefixes: [Double], threads: Int
    ) -> [Result<(Int, Int, [Int]), FormatError>] {
        let results = ResultSlots<Result<(Int, Int, [Int]), FormatError>>(count: batch.count)
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { worker in
            for i in stride(from: worker, to: batch.count, by: max(1, threads)) {
                let (drawing, truth) = batch[i]
                do {
                    let scores: LogProbabilities =
                        switch drawing.content {
                        case let .bitmap(image): try recognizer.logProbabilities(image)
                        case let .strokes(record): try recognizer.logProbabilities(record.drawing)
                        }
                    func rankOfTruth(_ scores: LogProbabilities) -> Int {
                        let target = scores.values[truth]
                        return scores.values.reduce(0) { $0 + ($1 > target ? 1 : 0) }
                    }
                    let rank = rankOfTruth(scores)
                    let top = scores.values.indices.max { scores.values[$0] < scores.values[$1] }!
                    var prefixRanks: [Int] = []
                    if case let .strokes(record) = drawing.content, !prefixes.isEmpty {
                        // Shares that keep the same number of strokes are classified once.
                        var rankByKept = [record.drawing.strokes.count: rank]
                        for share in prefixes {
                            let kept = EvaluationReport.PrefixScore.strokesKept(share, of: record.drawing.strokes.count)
                            let prefixRank =
                                try rankByKept[kept]
                                ?? rankOfTruth(recognizer.logProbabilities(EvaluationReport.PrefixScore.cut(record.drawing, to: share)))
                            rankByKept[kept] = prefixRank
                            prefixRanks.append(prefixRank)
                        }
                    }
                    results[i] = .success((rank, top, prefixRanks))
                } catch {
                    results[i] = .failure(FormatError(file: drawing.origin, reason: "\(error)"))
                }
            }
        }
        return results.values
    }
}

/// Slots written by parallel workers, each index by exactly one worker.
final class ResultSlots<T>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<T?>
    init(count: Int) { storage = .allocate(capacity: count); storage.initialize(repeating: nil) }
    deinit { storage.deinitialize().deallocate() }
    subscript(i: Int) -> T? {
        get { storage[i] }
        set { storage[i] = newValue }
    }
    var values: [T] { storage.map { $0! } }
}
