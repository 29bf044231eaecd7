import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseRecognition
import SketchwiseScenes
import SketchwiseShortcuts

/// A scene composed from real drawings: each object's strokes placed on one canvas, and the
/// order they are drawn in.
public struct ComposedScene: Sendable {
    public struct Object: Sendable {
        public var label: String
        /// Its strokes, placed on the canvas.
        public var strokes: [Stroke]
        public var frame: Rect
    }

    public var objects: [Object]
    /// The drawing order: (object, stroke of that object).
    public var order: [(object: Int, stroke: Int)]
    /// An object moved after everything is drawn, and by how much (nil: no move).
    public var move: (object: Int, dx: Double, dy: Double)?
    public var canvas: Size
}

/// Composes scenes: 1–5 drawings of different classes, each scaled to 150–300 units on a
/// 1000 × 1000 canvas and placed at random without overlapping (at least a quarter of the larger
/// one's size apart). They are drawn object by object in their own stroke order; in 30 % of scenes
/// one object is interrupted halfway by another; in 30 % one object is moved at the end.
public struct SceneComposer: Sendable {
    public var canvas = Size(width: 1000, height: 1000)
    public var sizes: ClosedRange<Double> = 150...300

    public init() {}

    /// A scene of drawings from `pool` (label → drawings), or nil when nothing could be placed.
    public func compose(from pool: [(label: String, drawing: StrokeSketch)], generator: inout some RandomNumberGenerator) -> ComposedScene?
    {
        let count = Int.random(in: 1...5, using: &generator)
        var objects: [ComposedScene.Object] = []
        var labels = Set<String>()
        for _ in 0..<(count * 20) where objects.count < count {
            guard let (label, drawing) = pool.randomElement(using: &generator), !labels.contains(label),
                let box = Rect(enclosing: drawing.strokes.flatMap(\.points)), max(box.width, box.height) > 0
            else { continue }
            let scale = Double.random(in: sizes, using: &generator) / max(box.width, box.height)
            let size = Size(width: box.width * scale, height: box.height * scale)
            let origin = Point(
                x: Double.random(in: 0...(canvas.width - size.width), using: &generator),
                y: Double.random(in: 0...(canvas.height - size.height), using: &generator))
            let frame = Rect(minX: origin.x, minY: origin.y, width: size.width, height: size.height)
            guard objects.allSatisfy({ Self.apart(frame, $0.frame) }) else { continue }
            let strokes = drawing.strokes.filter { !$0.points.isEmpty }.map { stroke in
                Stroke(
                    points: stroke.points.map { Point(x: origin.x + ($0.x - box.minX) * scale, y: origin.y + ($0.y - box.minY) * scale) })
            }
            labels.insert(label)
            objects.append(.init(label: label, strokes: strokes, frame: frame))
        }
        guard !objects.isEmpty else { return nil }
        var order = objects.indices.flatMap { object in objects[object].strokes.indices.map { (object: object, stroke: $0) } }
        if objects.count >= 2, Double.random(in: 0..<1, using: &generator) < 0.3 {
            // The first object is left halfway for the second, then finished.
            let first = order.filter { $0.object == 0 }, second = order.filter { $0.object == 1 }
            let half = max(1, first.count / 2)
            order = Array(first.prefix(half)) + second + Array(first.dropFirst(half)) + order.filter { $0.object > 1 }
        }
        var move: (object: Int, dx: Double, dy: Double)?
        if Double.random(in: 0..<1, using: &generator) < 0.3 {
            let object = Int.random(in: 0..<objects.count, using: &generator)
            for _ in 0..<20 {
                let (dx, dy) = (Double.random(in: -150...150, using: &generator), Double.random(in: -150...150, using: &generator))
                var moved = objects[object].frame
                moved.minX += dx
                moved.minY += dy
                let inside = moved.minX >= 0 && moved.minY >= 0 && moved.maxX <= canvas.width && moved.maxY <= canvas.height
                if inside, objects.indices.allSatisfy({ $0 == object || Self.apart(moved, objects[$0].frame) }) {
                    move = (object, dx, dy)
                    break
                }
            }
        }
        return ComposedScene(objects: objects, order: order, move: move, canvas: canvas)
    }

    /// Whether two boxes are at least a quarter of the larger one's size apart.
    static func apart(_ a: Rect, _ b: Rect) -> Bool {
        let gap = 0.25 * max(a.width, a.height, b.width, b.height)
        return a.maxX + gap <= b.minX || b.maxX + gap <= a.minX || a.maxY + gap <= b.minY || b.maxY + gap <= a.minY
    }
}

/// Detection, labelling and tracking measured on composed scenes (`sketchwise scenes-eval`).
public struct SceneReport: Sendable, Encodable {
    public var precision: Double
    public var recall: Double
    /// Top-1 accuracy of the labels of matched objects.
    public var labelTop1: Double
    /// ID switches per 100 frames (a frame per stroke, and one after a move).
    public var idSwitchesPer100: Double
    public var scenes: Int
    public var objects: Int
    public var frames: Int
    public var idSwitches: Int

    enum CodingKeys: String, CodingKey {
        case precision, recall, scenes, objects, frames
        case labelTop1 = "label_top1"
        case idSwitchesPer100 = "id_switches_per_100"
        case idSwitches = "id_switches"
    }
}

public enum SceneEvaluation {
    /// The validation drawings of a folder, by label (the training split rule decides).
    public static func validationDrawings(_ path: String) throws -> [(label: String, drawing: StrokeSketch)] {
        var pool: [(label: String, drawing: StrokeSketch)] = []
        try DrawingSource(path: path).forEach(onError: { _ in }) { drawing in
            guard case let .strokes(record) = drawing.content, ValidationSplit.contains(drawing, in: .validation) else { return }
            pool.append((drawing.label, record.drawing))
        }
        return pool
    }

    /// Plays `count` scenes stroke by stroke into a stream-mode detector (tracking with
    /// `embedder`), then labels each final canvas with `recognizer`; matches objects at IoU ≥ 0.5.
    public static func run(
        pool: [(label: String, drawing: StrokeSketch)], scenes count: Int, seed: UInt64,
        recognizer: SketchRecognizer, embedder: ModelRecognizer?, progress: (Int) -> Void = { _ in }
    ) throws -> SceneReport {
        var generator = SplitMix64(seed: seed)
        let composer = SceneComposer()
        var (detected, truths, matched, rightLabels, frames, switches, played) = (0, 0, 0, 0, 0, 0, 0)
        let labeler = try SceneDetector(options: .init(mode: .singleImage), recognizer: recognizer)
        let tracker = try SceneDetector(options: .init(mode: .stream), recognizer: recognizer, embedder: embedder)
        while played < count {
            guard let scene = composer.compose(from: pool, generator: &generator) else { continue }
            played += 1
            tracker.reset()
            var drawn: [(object: Int, stroke: Stroke)] = []
            var lastID: [Int: Int] = [:]
            func frame() throws {
                let objects = try tracker.detect(StrokeSketch(strokes: drawn.map(\.stroke)), labeled: false)
                frames += 1
                // A scene object keeps its ID while a detection holding some of its strokes has it
                // (an object drawn in parts is several detections for a while); otherwise its ID is
                // that of the detection holding most of its strokes, and that is a switch.
                var covering: [Int: [(strokes: Int, id: Int)]] = [:]
                for object in objects {
                    guard let id = object.trackingID else { continue }
                    for (owner, strokes) in Dictionary(grouping: object.strokes, by: { drawn[$0].object }) {
                        covering[owner, default: []].append((strokes.count, id))
                    }
                }
                for (owner, detections) in covering {
                    if let previous = lastID[owner], detections.contains(where: { $0.id == previous }) { continue }
                    if lastID[owner] != nil { switches += 1 }
                    lastID[owner] = detections.max { $0.strokes < $1.strokes }!.id
                }
            }
            for step in scene.order {
                drawn.append((step.object, scene.objects[step.object].strokes[step.stroke]))
                try frame()
            }
            var final = scene.objects
            if let move = scene.move {
                drawn = drawn.map { item in
                    guard item.object == move.object else { return item }
                    return (item.object, Stroke(points: item.stroke.points.map { Point(x: $0.x + move.dx, y: $0.y + move.dy) }))
                }
                final[move.object].frame.minX += move.dx
                final[move.object].frame.minY += move.dy
                try frame()
            }
            let found = try labeler.detect(StrokeSketch(strokes: drawn.map(\.stroke)))
            detected += found.count
            truths += final.count
            var free = Set(final.indices)
            for object in found {
                let overlap = { (truth: Int) in object.frame.intersectionOverUnion(final[truth].frame) }
                guard let best = free.max(by: { overlap($0) < overlap($1) }), overlap(best) >= 0.5 else { continue }
                free.remove(best)
                matched += 1
                if object.labels.first?.text == final[best].label { rightLabels += 1 }
            }
            progress(played)
        }
        return SceneReport(
            precision: detected == 0 ? 0 : Double(matched) / Double(detected), recall: truths == 0 ? 0 : Double(matched) / Double(truths),
            labelTop1: matched == 0 ? 0 : Double(rightLabels) / Double(matched),
            idSwitchesPer100: frames == 0 ? 0 : 100 * Double(switches) / Double(frames),
            scenes: played, objects: truths, frames: frames, idSwitches: switches)
    }
}
