import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwisePreprocess
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseWork

/// How a ``SceneDetector`` works (ML Kit's object detector options, for drawings).
public struct SceneDetectorOptions: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable, Codable {
        /// Low latency, one canvas drawn over time: objects keep tracking IDs from call to call.
        case stream
        /// Each call stands alone; no tracking IDs.
        case singleImage = "single"
    }

    public var mode = Mode.stream
    /// False: only the most prominent object (the largest); true: up to ``maxObjects``.
    public var multipleObjects = true
    public var maxObjects = 5
    /// Whether objects get labels.
    public var classification = true
    /// Labels below this confidence are left out; nil: the model's metadata, else 0.
    public var classificationConfidenceThreshold: Float?
    public var maxLabelsPerObject = 10

    public init(
        mode: Mode = .stream, multipleObjects: Bool = true, maxObjects: Int = 5, classification: Bool = true,
        classificationConfidenceThreshold: Float? = nil, maxLabelsPerObject: Int = 10
    ) {
        self.mode = mode
        self.multipleObjects = multipleObjects
        self.maxObjects = maxObjects
        self.classification = classification
        self.classificationConfidenceThreshold = classificationConfidenceThreshold
        self.maxLabelsPerObject = maxLabelsPerObject
    }
}

/// One label of an object.
public struct ObjectLabel: Sendable, Equatable, Codable {
    public var text: String
    public var confidence: Float
    /// The label's index in the model's label set.
    public var index: Int
    /// The class's name in the language of the answer (the server sets it; nil is left out).
    public var display: String?
}

/// One object found on a canvas. Encoded as `{"frame": {"x", "y", "width", "height"},
/// "trackingID", "labels": [{"text", "confidence", "index", "display"?}], "strokes": [indices]}`.
public struct DetectedObject: Sendable, Equatable, Encodable {
    /// The bounding box, in the input's coordinates.
    public var frame: Rect
    /// Stable while the canvas is drawn on, moved or erased (stream mode only).
    public var trackingID: Int?
    /// Most confident first; empty when classification is off.
    public var labels: [ObjectLabel]
    /// The indices of the input's strokes that make the object (for a raster input, empty).
    public var strokes: [Int]

    private enum CodingKeys: String, CodingKey { case frame, trackingID, labels, strokes }
    private enum FrameKeys: String, CodingKey { case x, y, width, height }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var box = container.nestedContainer(keyedBy: FrameKeys.self, forKey: .frame)
        try box.encode(frame.minX, forKey: .x)
        try box.encode(frame.minY, forKey: .y)
        try box.encode(frame.width, forKey: .width)
        try box.encode(frame.height, forKey: .height)
        try container.encode(trackingID, forKey: .trackingID)
        try container.encode(labels, forKey: .labels)
        try container.encode(strokes, forKey: .strokes)
    }

    /// The object with each label's ``ObjectLabel/display`` set to `name` of its text.
    public func named(by name: (String) -> String) -> DetectedObject {
        var object = self
        for i in object.labels.indices { object.labels[i].display = name(object.labels[i].text) }
        return object
    }
}

/// The objects of one scene, as `sketchwise detect --json` and `POST /api/detect` write them.
public struct SceneObjects: Sendable, Encodable {
    public var objects: [DetectedObject]

    public init(objects: [DetectedObject]) {
        self.objects = objects
    }
}

/// Finds the objects of a drawing: strokes grouped by space and drawing order, each group boxed
/// and classified; in stream mode, tracked from call to call with stable IDs. Not thread-safe
/// in stream mode (one detector per canvas).
public final class SceneDetector: @unchecked Sendable {
    public let options: SceneDetectorOptions
    let recognizer: SketchRecognizer?
    /// Gives the embeddings that associate a moved object with its track.
    let embedder: ModelRecognizer?
    let tracker = ObjectTracker()
    let grouper = StrokeGrouper()
    /// The embeddings and labels of the previous state's objects, by their strokes (stream
    /// mode): an object the new stroke left alone is neither embedded nor classified again.
    private var previous = ObjectAnswers()

    /// - Parameters:
    ///   - recognizer: labels the objects (needed when ``SceneDetectorOptions/classification`` is on).
    ///   - embedder: a raster model whose embedding helps tracking (nil: boxes and strokes only).
    public init(options: SceneDetectorOptions = .init(), recognizer: SketchRecognizer?, embedder: ModelRecognizer? = nil) throws {
        guard options.maxObjects >= 1, options.maxLabelsPerObject >= 1 else {
            throw RecognitionError("maxObjects and maxLabelsPerObject must be at least 1")
        }
        if let threshold = options.classificationConfidenceThreshold, !(0...1).contains(threshold) {
            throw RecognitionError("classificationConfidenceThreshold must be within 0…1")
        }
        guard !options.classification || recognizer != nil else { throw RecognitionError("classification needs a recognizer") }
        self.options = options
        self.recognizer = recognizer
        self.embedder = embedder
    }

    /// The objects of the canvas `sketch` (all its strokes, in drawing order). In stream mode the
    /// canvas is the next state of the one given before: IDs follow the objects. `labelled`
    /// false skips classification (a state whose labels are not needed).
    /// - Throws: for unusable coordinates (``SketchwiseCore/SketchError``).
    public func detect(_ sketch: StrokeSketch, labeled: Bool = true) throws -> [DetectedObject] {
        let strokes = sketch.strokes.enumerated().filter { !$0.element.points.isEmpty }
        for (s, stroke) in strokes {
            for (p, point) in stroke.points.enumerated() where !point.x.isFinite || !point.y.isFinite {
                throw SketchError.invalidCoordinate(stroke: s, point: p, value: point.x.isFinite ? point.y : point.x)
            }
        }
        let groups = grouper.group(strokes.map(\.element)).map { group in group.map { strokes[$0].offset } }
        var objects = groups.map { indices in
            let members = indices.map { sketch.strokes[$0] }
            return Candidate(strokes: indices, sketch: StrokeSketch(strokes: members), frame: Rect(enclosing: members.flatMap(\.points))!)
        }
        objects.sort { $0.frame.width * $0.frame.height > $1.frame.width * $1.frame.height }
        if !options.multipleObjects { objects = Array(objects.prefix(1)) }
        objects = Array(objects.prefix(options.maxObjects))
        var ids: [Int?] = Array(repeating: nil, count: objects.count)
        var answers = ObjectAnswers()
        if options.mode == .stream {
            let embeddings = objects.map { object in
                embedder.map { embedder in
                    previous.embeddings[object.sketch] ?? LazyEmbedding { try embedder.embedding(object.sketch) }
                }
            }
            for (object, embedding) in zip(objects, embeddings) { answers.embeddings[object.sketch] = embedding }
            ids = try tracker.update(
                objects.enumerated().map { index, object in
                    ObjectTracker.Observation(
                        frame: object.frame, shapes: Set(object.strokes.map { ObjectTracker.shape(of: sketch.strokes[$0]) }),
                        embedding: embeddings[index], start: object.strokes.min() ?? index)
                }
            ).map { $0 }
        }
        let detected = try objects.enumerated().map { index, object in
            var labels: [ObjectLabel] = []
            if labeled {
                labels = try previous.labels[object.sketch] ?? self.labels(for: object.sketch)
                answers.labels[object.sketch] = labels
            }
            return DetectedObject(frame: object.frame, trackingID: ids[index], labels: labels, strokes: object.strokes.sorted())
        }
        if options.mode == .stream { previous = answers }
        return detected
    }

    /// The objects of a raster drawing (a photo or scan; 0 background, 255 ink, as
    /// `BitmapRasterizer.inkImage` gives): its marks found (binarised, connected components, specks
    /// left out), nearby ones merged as strokes are, each object boxed in pixels and classified on
    /// its fitted bitmap. In stream mode IDs follow the objects by overlap and embedding.
    public func detect(_ image: GrayImage, labeled: Bool = true) throws -> [DetectedObject] {
        let marks = InkComponents(image).boxes
        var frames = grouper.group(boxes: marks, ordered: false).map { group in
            group.dropFirst().reduce(marks[group[0]]) { box, index in
                let other = marks[index]
                let (minX, minY) = (min(box.minX, other.minX), min(box.minY, other.minY))
                return Rect(minX: minX, minY: minY, width: max(box.maxX, other.maxX) - minX, height: max(box.maxY, other.maxY) - minY)
            }
        }
        frames.sort { $0.width * $0.height > $1.width * $1.height }
        frames = Array(frames.prefix(options.multipleObjects ? options.maxObjects : 1))
        var ids: [Int?] = Array(repeating: nil, count: frames.count)
        if options.mode == .stream {
            let embeddings = frames.map { frame in
                embedder.flatMap { model in
                    Self.side(of: model).map { side in LazyEmbedding { try model.embedding(image.fitted(frame, side: side)) } }
                }
            }
            ids = try tracker.update(
                frames.indices.map { ObjectTracker.Observation(frame: frames[$0], shapes: [], embedding: embeddings[$0], start: $0) })
        }
        return try frames.indices.map { index in
            var labels: [ObjectLabel] = []
            if labeled, options.classification, let recognizer,
                let side = recognizer.members.first(where: \.readsBitmaps).flatMap(Self.side)
            {
                let bitmap = try Self.bitmap(of: image, in: frames[index], side: side)
                labels = self.labels(try recognizer.logProbabilities(bitmap), names: recognizer.labels)
            }
            return DetectedObject(frame: frames[index], trackingID: ids[index], labels: labels, strokes: [])
        }
    }

    /// The object inside `frame` of `image` as the raster models read a drawing (`side` × `side`).
    /// An object at most twice that size is fitted as it is (`GrayImage.fitted(_:side:)`);
    /// a larger one is traced into strokes (``SketchwiseRaster/InkTracer``), which are simplified
    /// and drawn with the models' own recipe, whatever the width of its lines. Measured with
    /// `detect` on 80 Quick, Draw! drawings (10 each of 8 classes) drawn as PNGs, first label
    /// right: at 28 px 59 fitted (48 if traced); with the recipe's lines at 64, 128 and 256 px
    /// 69, 71 and 69 (all fitted: 32, 19 and 14); at 512 px with a 3 px pen 68 (fitted: 26).
    static func bitmap(of image: GrayImage, in frame: Rect, side: Int) throws -> GrayImage {
        guard max(frame.width, frame.height) > Double(2 * side) else { return image.fitted(frame, side: side) }
        let traced = StrokeSketch(strokes: InkTracer.strokes(in: image.cropped(frame, longestSide: tracedSide)))
        return try SketchRasterizer(size: side).render(try GoogleSimplifier().simplifiedIfNeeded(traced))
    }

    /// The longest side an object is traced at (larger ones are first scaled down, each pixel the
    /// strongest ink it covers): thinning costs a pass per pixel of a line's half width.
    static let tracedSide = 256

    /// The side of the square bitmaps a raster model reads; nil for a stroke model.
    static func side(of model: ModelRecognizer) -> Int? {
        if case let .raster(raster) = model.model.spec.input.kind { raster.size } else { nil }
    }

    /// Ends the tracks (a new canvas, or scene detection turned off); objects that come back
    /// with exactly their strokes in their place take their IDs again.
    public func reset() {
        tracker.reset()
        previous = ObjectAnswers()
    }

    /// The object's labels above the confidence threshold, at most ``SceneDetectorOptions/maxLabelsPerObject``.
    func labels(for sketch: StrokeSketch) throws -> [ObjectLabel] {
        guard options.classification, let recognizer else { return [] }
        return labels(try recognizer.logProbabilities(sketch), names: recognizer.labels)
    }

    private func labels(_ answer: LogProbabilities, names: [String]) -> [ObjectLabel] {
        let threshold = options.classificationConfidenceThreshold ?? 0
        let probabilities = answer.values.map { Float(exp(Double($0))) }
        return probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }
            .prefix(options.maxLabelsPerObject)
            .filter { probabilities[$0] >= threshold }
            .map { ObjectLabel(text: names[$0], confidence: probabilities[$0], index: $0) }
    }

    /// What the model said about each object of one state, by the object's strokes.
    struct ObjectAnswers {
        var embeddings: [StrokeSketch: LazyEmbedding] = [:]
        var labels: [StrokeSketch: [ObjectLabel]] = [:]
    }

    struct Candidate {
        var strokes: [Int]
        var sketch: StrokeSketch
        var frame: Rect
    }
}

extension SceneDetector {
    /// The objects of a finished scene as a stream-mode detector sees them when it is drawn
    /// stroke by stroke (labels only for the final state); in single mode, ``detect(_:)``.
    /// Work asked to stop (``SketchwiseWork/StopSignal``) ends between two states: most states
    /// render nothing, so the model's own checks may not come for a while.
    public func detectReplaying(_ scene: StrokeSketch) throws -> [DetectedObject] {
        guard options.mode == .stream else { return try detect(scene) }
        reset()
        for count in 1..<max(1, scene.strokes.count) {
            try StopSignal.check()
            _ = try detect(StrokeSketch(strokes: Array(scene.strokes.prefix(count))), labeled: false)
        }
        return try detect(scene)
    }
}
