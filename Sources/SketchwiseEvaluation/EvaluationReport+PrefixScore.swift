import Foundation
import SketchwiseCore
import SketchwiseFormats

extension EvaluationReport {
    /// Top-k accuracy when each drawing is cut to its first strokes: what the Quick, Draw! game
    /// is judged on, a guess before the drawing is finished.
    public struct PrefixScore: Sendable, Codable, Equatable {
        /// The share of each drawing's strokes kept, in (0, 1].
        public var prefix: Double
        /// Stroke drawings scored (bitmaps have no strokes to cut and are left out).
        public var n: Int
        public var top1: Double
        public var top3: Double
        public var top5: Double

        public init(prefix: Double, n: Int, top1: Double, top3: Double, top5: Double) {
            self.prefix = prefix
            self.n = n
            self.top1 = top1
            self.top3 = top3
            self.top5 = top5
        }

        /// How many of `strokeCount` strokes a prefix of `share` keeps: ⌈share × strokeCount⌉,
        /// at least one (a product that is a whole number within rounding error is not rounded up).
        public static func strokesKept(_ share: Double, of strokeCount: Int) -> Int {
            min(strokeCount, max(1, Int((share * Double(strokeCount) - 1e-9).rounded(.up))))
        }

        /// The first strokes of `sketch` that a prefix of `share` keeps.
        public static func cut(_ sketch: StrokeSketch, to share: Double) -> StrokeSketch {
            var cut = sketch
            cut.strokes = Array(sketch.strokes.prefix(strokesKept(share, of: sketch.strokes.count)))
            return cut
        }

        /// Parses `0.25,0.5,0.75,1`: shares in (0, 1], in the order given.
        /// - Throws: a message naming the value that is not such a share.
        public static func parseList(_ text: String) throws(RecordError) -> [Double] {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            var shares: [Double] = []
            for part in parts {
                guard let share = Double(part), share > 0, share <= 1 else {
                    throw RecordError("\"\(part)\" is not a share of strokes in (0, 1], such as 0.25,0.5,0.75,1")
                }
                shares.append(share)
            }
            return shares
        }
    }
}
