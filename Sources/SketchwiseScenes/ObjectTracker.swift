import Foundation
import SketchwiseCore

/// Follows objects from one state of a canvas to the next (stream mode) and gives each a stable
/// ID. An object is associated with a track by the strokes they share (compared by shape, so a
/// moved stroke still matches), by the overlap of their boxes, and by the similarity of their
/// embeddings; the best pairs are taken first. An object no track matches gets a new ID; a track
/// nothing matches ends (an erased object drawn again is a new object). An ended track's exact
/// strokes coming back in its place (Undo then Redo, a swap undone, scene mode turned off and on)
/// take its ID again. Embeddings are asked for only where they can change the answer: an object
/// that holds every stroke of a track continues it (the oldest, if it holds several) whatever the
/// embeddings say.
final class ObjectTracker: @unchecked Sendable {
    struct Observation {
        var frame: Rect
        /// The shapes of its strokes (``ObjectTracker/shape(of:)``).
        var shapes: Set<Int>
        /// Nil without an embedding model.
        var embedding: LazyEmbedding?
        /// Where it began: the index of its first stroke (an image's object: its place in the
        /// list). New IDs are given in this order, so a page sent whole is numbered as drawn.
        var start: Int
    }

    private struct Track {
        var id: Int
        var observation: Observation
    }

    private var tracks: [Track] = []
    /// Tracks that ended, newest last (at most ``retiredLimit``), whose IDs come back with exactly
    /// their strokes in their place. No ID is both here and in `tracks`.
    private var retired: [Track] = []
    private var nextID = 1
    static let retiredLimit = 64

    /// The IDs of `observations`, in their order.
    /// - Throws: what an embedding that was needed threw.
    func update(_ observations: [Observation]) throws -> [Int] {
        var ids = [Int?](repeating: nil, count: observations.count)
        for (o, observation) in observations.enumerated() where !observation.shapes.isEmpty {
            if let r = retired.lastIndex(where: { Self.isSame(observation, as: $0.observation) }) { ids[o] = retired.remove(at: r).id }
        }
        var pairs: [(whole: Bool, score: Double, observation: Int, track: Int)] = []
        for (o, observation) in observations.enumerated() where ids[o] == nil {
            let wholes = tracks.indices.filter { t in
                !tracks[t].observation.shapes.isEmpty && tracks[t].observation.shapes.isSubset(of: observation.shapes)
            }
            // An object that continues a track whole takes it before any other pair is looked at.
            for t in wholes { pairs.append((true, Self.affinity(observation, tracks[t].observation, similarity: 0), o, t)) }
            guard wholes.isEmpty else { continue }
            for (t, track) in tracks.enumerated() {
                let score = try Self.affinity(observation, track.observation)
                if score > 0 { pairs.append((false, score, o, t)) }
            }
        }
        // A track whose strokes are all in the object continues first; when parts of an object
        // merge, the oldest part keeps its ID (the object began there); then the best score.
        pairs.sort { a, b in
            if a.whole != b.whole { return a.whole }
            if a.whole, a.observation == b.observation { return tracks[a.track].id < tracks[b.track].id }
            return a.score > b.score
        }
        var usedTracks = Set<Int>()
        for pair in pairs where ids[pair.observation] == nil && !usedTracks.contains(pair.track) {
            ids[pair.observation] = tracks[pair.track].id
            usedTracks.insert(pair.track)
        }
        for o in observations.indices.filter({ ids[$0] == nil }).sorted(by: { observations[$0].start < observations[$1].start }) {
            ids[o] = nextID
            nextID += 1
        }
        let assigned = ids.compactMap { $0 }
        retire(tracks.filter { !assigned.contains($0.id) })
        tracks = zip(assigned, observations).map { Track(id: $0, observation: $1) }
        return assigned
    }

    /// Ends every track (a new canvas, or scene mode turned off); their strokes drawn again
    /// exactly take their IDs back.
    func reset() {
        retire(tracks)
        tracks = []
    }

    private func retire(_ ended: [Track]) {
        retired += ended.filter { !$0.observation.shapes.isEmpty }
        retired.removeFirst(max(0, retired.count - Self.retiredLimit))
    }

    /// Whether an observation is an ended track's object come back: the same strokes, in the
    /// same place.
    static func isSame(_ observation: Observation, as ended: Observation) -> Bool {
        observation.shapes == ended.shapes && observation.frame.intersectionOverUnion(ended.frame) >= 0.5
    }

    /// How strongly an observation continues a track; 0 when it does not.
    static func affinity(_ a: Observation, _ b: Observation) throws -> Double {
        affinity(a, b, similarity: try similarity(a, b))
    }

    /// The affinity for a given similarity of the embeddings (0: none or not similar).
    static func affinity(_ a: Observation, _ b: Observation, similarity: Double) -> Double {
        let shared = Double(a.shapes.intersection(b.shapes).count) / Double(max(1, b.shapes.count))
        let overlap = a.frame.intersectionOverUnion(b.frame)
        guard shared >= 0.5 || overlap >= 0.3 || similarity > 0 else { return 0 }
        return 2 * shared + overlap + 0.5 * similarity
    }

    /// The cosine of two objects' embeddings when it is at least 0.85 and their sizes are alike;
    /// else 0.
    private static func similarity(_ a: Observation, _ b: Observation) throws -> Double {
        guard let x = try a.embedding?.value(), let y = try b.embedding?.value(), x.count == y.count else { return 0 }
        let cosine = Double(zip(x, y).reduce(0) { $0 + $1.0 * $1.1 })
        let sizeRatio = (a.frame.width + a.frame.height) / max(1e-9, b.frame.width + b.frame.height)
        return cosine >= 0.85 && (0.6...1.6).contains(sizeRatio) ? cosine : 0
    }

    /// A stroke's shape, the same wherever the stroke is moved: its points relative to the first,
    /// to a tenth of a unit.
    static func shape(of stroke: Stroke) -> Int {
        var hasher = Hasher()
        guard let first = stroke.points.first else { return 0 }
        hasher.combine(stroke.points.count)
        for point in stroke.points {
            hasher.combine(Int(((point.x - first.x) * 10).rounded()))
            hasher.combine(Int(((point.y - first.y) * 10).rounded()))
        }
        return hasher.finalize()
    }
}

extension Rect {
    /// The area both boxes cover over the area either covers (0 for boxes without area).
    public func intersectionOverUnion(_ other: Rect) -> Double {
        let width = max(0, min(maxX, other.maxX) - max(minX, other.minX)), height = max(0, min(maxY, other.maxY) - max(minY, other.minY))
        let intersection = width * height
        let union = self.width * self.height + other.width * other.height - intersection
        return union > 0 ? intersection / union : 0
    }
}
