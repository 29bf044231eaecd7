import Foundation
import SketchwiseCore

/// Hit rate and latency over the drawings of one suggestion run (`sketchwise suggest`): how often
/// a drawing's own class is among the first ``hitDepth`` suggestions, and the latency per
/// drawing (p50/p99, the first drawing left out as warm-up).
public struct SuggestTally: Sendable {
    /// How many of the first suggestions count for a hit.
    public static let hitDepth = 8

    private var latencies: [Double] = []
    private var hits = 0

    public init() {}

    /// Counts one drawing of class `label` whose suggestions were labelled `suggested`, in order.
    public mutating func add(latency: Duration, label: String, suggested: [String]) {
        latencies.append(latency.inSeconds * 1e3)
        if suggested.prefix(Self.hitDepth).contains(label) { hits += 1 }
    }

    /// One line: drawings, hits and their share, latency p50 and p99 in milliseconds.
    public var summary: String {
        guard !latencies.isEmpty else { return "no drawings" }
        let warm = latencies.count > 1 ? Array(latencies.dropFirst()) : latencies
        func percentile(_ p: Double) -> Double { ModelBenchmark.percentile(warm, p) }
        return String(
            format: "drawings: %d   own class among the first 8 suggestions: %d (%.1f%%)   latency p50 %.2f ms, p99 %.2f ms",
            latencies.count, hits, 100 * Double(hits) / Double(latencies.count), percentile(0.5), percentile(0.99)
        )
    }
}
