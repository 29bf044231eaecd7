import SketchwiseCore

/// Groups a canvas's strokes into objects: two strokes belong together when their boxes lie
/// within a margin of each other (a share of the larger stroke's size, wider for strokes drawn
/// one right after the other), and groups are closed under that relation. Objects whose boxes
/// overlap each other merge: the limit of grouping by space.
struct StrokeGrouper: Sendable {
    /// The margin, as a share of the larger stroke's box diagonal.
    var margin = 0.12
    /// The margin for consecutive strokes (drawing order).
    var consecutiveMargin = 0.25

    /// Groups of indices into `strokes` (none empty), each in drawing order, ordered by their first stroke.
    func group(_ strokes: [Stroke]) -> [[Int]] {
        group(boxes: strokes.map { Rect(enclosing: $0.points) ?? Rect(minX: 0, minY: 0, width: 0, height: 0) }, ordered: true)
    }

    /// Groups of indices into `boxes` (the marks of a drawing); `ordered` when the boxes are in
    /// drawing order (strokes), so consecutive ones may be further apart.
    func group(boxes: [Rect], ordered: Bool) -> [[Int]] {
        var parent = Array(boxes.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                let size = max(diagonal(boxes[i]), diagonal(boxes[j]))
                let allowed = size * (ordered && j == i + 1 ? consecutiveMargin : margin)
                if gap(boxes[i], boxes[j]) <= allowed {
                    let (a, b) = (root(i), root(j))
                    if a != b { parent[max(a, b)] = min(a, b) }
                }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in boxes.indices { groups[root(i), default: []].append(i) }
        return groups.values.sorted { $0[0] < $1[0] }
    }

    private func diagonal(_ box: Rect) -> Double { (box.width * box.width + box.height * box.height).squareRoot() }

    /// The distance between two boxes (0 when they touch or overlap).
    private func gap(_ a: Rect, _ b: Rect) -> Double {
        let dx = max(0, max(a.minX - b.maxX, b.minX - a.maxX)), dy = max(0, max(a.minY - b.maxY, b.minY - a.maxY))
        return (dx * dx + dy * dy).squareRoot()
    }
}
