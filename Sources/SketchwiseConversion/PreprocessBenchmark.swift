import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwisePreprocess
import SketchwiseRaster

/// Throughput of the path from raw pen input to the model's 28×28 input on one core:
/// Google simplification plus rendering, over drawings held in memory.
public struct PreprocessBenchmark: Sendable, Codable {
    public var drawings: Int
    public var rounds: Int
    /// Median over rounds, drawings per second.
    public var simplifyPerSecond: Double
    public var renderPerSecond: Double
    public var simplifyAndRenderPerSecond: Double

    /// Loads up to `limit` stroke drawings from `source` and times `rounds` passes of each stage.
    public static func run(source: DrawingSource, size: Int = 28, limit: Int = 2000, rounds: Int = 5) throws -> PreprocessBenchmark {
        var sketches: [StrokeSketch] = []
        try source.forEach(onError: { _ in }) { drawing in
            if sketches.count < limit, case let .strokes(record) = drawing.content, !record.drawing.isEmpty {
                sketches.append(record.drawing)
            }
        }
        guard !sketches.isEmpty else { throw FormatError(file: "benchmark", reason: "no stroke drawings to time") }
        let simplifier = GoogleSimplifier()
        let rasterizer = try SketchRasterizer(size: size)
        let simplified = sketches.map { (try? simplifier.simplify($0)) ?? $0 }
        var buffer = [UInt8](repeating: 0, count: size * size)
        func median(_ body: () -> Void) -> Double {
            var rates: [Double] = []
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                body()
                rates.append(Double(sketches.count) / (ContinuousClock.now - start).inSeconds)
            }
            return rates.sorted()[rates.count / 2]
        }
        let simplify = median { for s in sketches { _ = try? simplifier.simplify(s) } }
        let render = median {
            buffer.withUnsafeMutableBufferPointer { out in for s in simplified { rasterizer.render(s, into: out) } }
        }
        let both = median {
            buffer.withUnsafeMutableBufferPointer { out in
                for s in sketches { if let t = try? simplifier.simplify(s) { rasterizer.render(t, into: out) } }
            }
        }
        return PreprocessBenchmark(drawings: sketches.count, rounds: rounds, simplifyPerSecond: simplify,
                                   renderPerSecond: render, simplifyAndRenderPerSecond: both)
    }
}
