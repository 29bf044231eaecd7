import SketchwiseCore
import SketchwiseFormats

/// Counts per class of a drawing collection: drawings, strokes and points per drawing.
public struct CollectionSummary: Sendable, Codable, Equatable {
    public struct ClassSummary: Sendable, Codable, Equatable {
        public var drawings = 0
        public var bitmaps = 0
        public var strokes = 0
        public var points = 0
        public var maxPoints = 0
        public var withTimestamps = 0

        public var meanPointsPerDrawing: Double { drawings > 0 ? Double(points) / Double(drawings) : 0 }
        public var meanStrokesPerDrawing: Double { drawings > 0 ? Double(strokes) / Double(drawings) : 0 }
    }

    public var classes: [String: ClassSummary] = [:]
    public var skipped = 0

    public var totalDrawings: Int { classes.values.reduce(0) { $0 + $1.drawings + $1.bitmaps } }

    public static func of(_ source: DrawingSource, policy: BadInputPolicy, progress: (Int) -> Void = { _ in }) throws -> CollectionSummary {
        var summary = CollectionSummary()
        let report = try forEachDrawing(in: source, policy: policy, progress: progress) { drawing in
            var entry = summary.classes[drawing.label, default: ClassSummary()]
            switch drawing.content {
            case .bitmap:
                entry.bitmaps += 1
            case let .strokes(record):
                let points = record.drawing.pointCount
                entry.drawings += 1
                entry.strokes += record.drawing.strokes.count
                entry.points += points
                entry.maxPoints = max(entry.maxPoints, points)
                if record.drawing.strokes.allSatisfy(\.hasTimestamps) { entry.withTimestamps += 1 }
            }
            summary.classes[drawing.label] = entry
        }
        summary.skipped = report.skipped
        return summary
    }

    /// A plain-text table, one line per class, then the totals.
    public var table: String {
        var lines = ["class\tdrawings\tbitmaps\tstrokes/drawing\tpoints/drawing\tmax points\twith time"]
        func row(_ name: String, _ c: ClassSummary) -> String {
            "\(name)\t\(c.drawings)\t\(c.bitmaps)\t\(format(c.meanStrokesPerDrawing))\t\(format(c.meanPointsPerDrawing))\t\(c.maxPoints)\t\(c.withTimestamps)"
        }
        for name in classes.keys.sorted() { lines.append(row(name, classes[name]!)) }
        let total = classes.values.reduce(into: ClassSummary()) { t, c in
            t.drawings += c.drawings; t.bitmaps += c.bitmaps; t.strokes += c.strokes; t.points += c.points
            t.maxPoints = max(t.maxPoints, c.maxPoints); t.withTimestamps += c.withTimestamps
        }
        lines.append(row("TOTAL (\(classes.count) classes)", total))
        if skipped > 0 { lines.append("skipped as bad: \(skipped)") }
        return lines.joined(separator: "\n")
    }

    private func format(_ v: Double) -> String { String((v * 10).rounded() / 10) }
}
