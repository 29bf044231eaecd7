import CoreMetrics
import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwisePreprocess
import SketchwiseRaster
import SketchwiseWork

/// Recognises sketches with one model: prepares the model's input exactly as its spec says
/// (Google simplification, then the project's raster recipe or the stroke sequence encoding) and
/// runs it. Thread-safe: concurrent calls each borrow their own session and buffers.
public final class ModelRecognizer: Sendable {
    public let model: Model
    private let pool: Pool<Worker>
    /// Each run of the model, by its name (`sketchwise_inference_duration_seconds` in a server's
    /// `/metrics`; a no-op unless a metrics back end is bootstrapped).
    private let inferenceTimer: CoreMetrics.Timer

    /// One request's session, rasteriser and buffers, reused from request to request.
    final class Worker {
        let session: Session
        let rasterizer: SketchRasterizer?
        var image: [UInt8]
        var input: [Float]

        init(model: Model) throws {
            session = model.makeSession()
            if case let .raster(raster) = model.spec.input.kind {
                rasterizer = try SketchRasterizer(size: raster.size)
                image = [UInt8](repeating: 0, count: raster.channels.count * raster.size * raster.size)
            } else {
                rasterizer = nil
                image = []
            }
            input = [Float](repeating: 0, count: model.inputShape.count)
        }
    }

    public init(model: Model) {
        self.model = model
        pool = Pool { try Worker(model: model) }
        inferenceTimer = Timer(label: "sketchwise_inference_duration_seconds", dimensions: [("model", model.spec.name)])
    }

    /// Loads `<name>.json` (with `<name>.safetensors` beside it).
    public convenience init(contentsOf url: URL) throws {
        self.init(model: try Model(contentsOf: url))
    }

    public var labels: [String] { model.labels }
    public var name: String { model.spec.name }
    /// Whether the model reads images (renders of sketches).
    public var readsImages: Bool { if case .raster = model.spec.input.kind { true } else { false } }

    /// Whether the model also takes bitmaps and pictures: a raster model whose planes are all
    /// plain ink (a bitmap has no stroke order to fill an `order` plane with).
    public var readsBitmaps: Bool {
        if case let .raster(raster) = model.spec.input.kind { raster.channels.allSatisfy { $0 == .ink } } else { false }
    }

    /// Whether the model takes this image as it is: it ``readsBitmaps`` and the image has its size.
    public func reads(_ image: GrayImage) -> Bool {
        guard readsBitmaps, case let .raster(raster) = model.spec.input.kind else { return false }
        return image.width == raster.size && image.height == raster.size
    }

    /// Log-probabilities of every label for a stroke sketch, averaged over the spec's views.
    public func logProbabilities(_ sketch: StrokeSketch) throws -> LogProbabilities {
        try checkClassifies()
        let simplified = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        return try pool.with { worker in
            let shape = try prepare(simplified, in: worker)
            return try answer(worker, shape: shape, embedding: false).logProbabilities
        }
    }

    /// Log-probabilities for a bitmap (models that ``readsBitmaps``): `image` must have the
    /// model's size, 0 background … 255 ink.
    public func logProbabilities(_ image: GrayImage) throws -> LogProbabilities {
        try checkClassifies()
        let raster = try checkImage(image)
        return try pool.with { worker in
            Self.fill(&worker.input, with: image, raster: raster)
            return try answer(worker, shape: model.inputShape, embedding: false).logProbabilities
        }
    }

    /// The embedding of a sketch (models that declare one: the raster CNN's L2-normalised
    /// penultimate layer), over the spec's `embeddingRotations`.
    public func embedding(_ sketch: StrokeSketch) throws -> [Float] {
        guard model.embeddingCount != nil else { throw RecognitionError("model \(name) has no embedding output") }
        let simplified = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        return try pool.with { worker in try turnedEmbedding(simplified, worker) }
    }

    /// Log-probabilities and, for models that declare one, the embedding of a sketch, from one
    /// run of the model per view (the embedding is the first view's, over the spec's
    /// `embeddingRotations`).
    public func describe(_ sketch: StrokeSketch) throws -> (logProbabilities: LogProbabilities, embedding: [Float]?) {
        try checkClassifies()
        let simplified = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        return try pool.with { worker in
            let shape = try prepare(simplified, in: worker)
            let turned = model.embeddingCount != nil && model.spec.input.embeddingRotations != [0]
            var described = try answer(worker, shape: shape, embedding: !turned)
            if turned { described.embedding = try turnedEmbedding(simplified, worker) }
            return described
        }
    }

    /// The embedding of an image of the model's size (0 background … 255 ink), such as a
    /// picture rendered by the raster recipe's conventions.
    public func embedding(_ image: GrayImage) throws -> [Float] {
        guard model.embeddingCount != nil else { throw RecognitionError("model \(name) has no embedding output") }
        let raster = try checkImage(image)
        return try pool.with { worker in
            Self.fill(&worker.input, with: image, raster: raster)
            return try firstViewEmbedding(worker, shape: model.inputShape)
        }
    }

    /// The model input for a sketch, exactly as `logProbabilities(_:)` feeds it: the values
    /// (row-major) and their shape.
    public func modelInput(for sketch: StrokeSketch) throws -> (values: [Float], shape: Shape) {
        let simplified = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        return try pool.with { worker in
            let shape = try prepare(simplified, in: worker)
            return (Array(worker.input[0..<shape.count]), shape)
        }
    }

    /// Writes a checked image into every (ink) plane of a model input.
    private static func fill(_ input: inout [Float], with image: GrayImage, raster: RasterInput) {
        let plane = raster.size * raster.size
        for channel in raster.channels.indices {
            scale(image.pixels[...], by: raster.scale, into: &input, at: channel * plane)
        }
    }

    /// Whether the model gives class scores (an embedding-only model does not).
    public var givesGuesses: Bool { model.hasLogits }

    /// The error for guesses asked of an embedding-only model.
    var noGuesses: RecognitionError { RecognitionError("model \(name) gives embeddings only, no guesses") }

    /// Throws unless the model gives class scores.
    private func checkClassifies() throws {
        guard givesGuesses else { throw noGuesses }
    }

    /// The model's raster input, once `image` is known to fit it.
    private func checkImage(_ image: GrayImage) throws -> RasterInput {
        guard case let .raster(raster) = model.spec.input.kind else {
            throw RecognitionError("model \(name) reads strokes; an image can only go to a raster model")
        }
        guard readsBitmaps else {
            throw RecognitionError("model \(name) reads the order of strokes, which an image does not have")
        }
        guard image.width == raster.size, image.height == raster.size else {
            throw RecognitionError("model \(name) reads \(raster.size)×\(raster.size) images, not \(image.width)×\(image.height)")
        }
        return raster
    }

    /// Writes the model input for a simplified sketch into the worker's buffer; returns its shape.
    private func prepare(_ sketch: StrokeSketch, in worker: Worker) throws -> Shape {
        switch model.spec.input.kind {
        case let .raster(raster):
            let plane = raster.size * raster.size
            worker.image.withUnsafeMutableBufferPointer { image in
                for (index, channel) in raster.channels.enumerated() {
                    let shading: StrokeShading = channel == .order ? .byOrder : .uniform
                    let slice = UnsafeMutableBufferPointer(rebasing: image[(index * plane)..<((index + 1) * plane)])
                    worker.rasterizer!.render(sketch, into: slice, shading: shading)
                }
            }
            Self.scale(worker.image[...], by: raster.scale, into: &worker.input, at: 0)
            return model.inputShape
        case let .strokes(strokes):
            let normalization = SequenceNormalization(rawValue: strokes.normalization.rawValue) ?? .perAxis
            let sequence = StrokeSequenceEncoder(length: strokes.maxLength, normalization: normalization).encode(sketch)
            guard sequence.validRows > 0 else {
                (worker.input[0], worker.input[1], worker.input[2]) = (0, 0, 1)
                return .sequence(length: 1, channels: 3)
            }
            for i in 0..<(sequence.validRows * 3) { worker.input[i] = sequence.values[i] }
            return .sequence(length: sequence.validRows, channels: 3)
        case .image:
            throw RecognitionError("model \(name) classifies photos, not drawings")
        }
    }

    private static func scale(_ pixels: ArraySlice<UInt8>, by scale: Double, into input: inout [Float], at offset: Int) {
        let factor = Float(scale)
        for (i, pixel) in zip(offset..., pixels) { input[i] = Float(pixel) * factor }
    }

    /// Runs the model on `views` (default: all of the spec's) of the prepared input, left in
    /// `worker.input`: the views' log-probabilities averaged and renormalised, and the first
    /// view's embedding if asked for.
    private func answer(_ worker: Worker, shape: Shape, views: ArraySlice<InputView>? = nil, embedding wantsEmbedding: Bool) throws
        -> (logProbabilities: LogProbabilities, embedding: [Float]?)
    {
        var answers: [LogProbabilities] = []
        var embedding: [Float]?
        var mirrored = false
        for view in views ?? model.spec.input.views[...] {
            if (view == .mirrored) != mirrored {
                Self.mirror(&worker.input, shape: shape)
                mirrored.toggle()
            }
            try run(worker, shape: shape) { output in
                if model.hasLogits { answers.append(LogProbabilities(labels: model.labels, logits: output.logits)) }
                if wantsEmbedding, embedding == nil { embedding = output.embedding.map(Array.init) }
            }
        }
        let combined = answers.count <= 1 ? answers.first ?? LogProbabilities(labels: [], values: []) : LogProbabilities.mean(answers)
        return (combined, embedding)
    }

    private func firstViewEmbedding(_ worker: Worker, shape: Shape) throws -> [Float] {
        try answer(worker, shape: shape, views: model.spec.input.views.prefix(1), embedding: true).embedding!
    }

    /// The first view's embedding of a simplified sketch, or, with several `embeddingRotations`,
    /// the L2-normalised mean of the embeddings of the sketch turned by each angle.
    private func turnedEmbedding(_ simplified: StrokeSketch, _ worker: Worker) throws -> [Float] {
        let rotations = model.spec.input.embeddingRotations
        var sum: [Float] = []
        for degrees in rotations {
            let shape = try prepare(degrees == 0 ? simplified : simplified.rotated(byDegrees: degrees), in: worker)
            let embedding = try firstViewEmbedding(worker, shape: shape)
            guard rotations.count > 1 else { return embedding }
            sum = sum.isEmpty ? embedding : zip(sum, embedding).map(+)
        }
        let norm = sum.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? sum.map { $0 / norm } : sum
    }

    /// The left-right mirror image of a model input, in place: an image's columns reversed, a
    /// stroke sequence's Δx negated. Applying it twice restores the input.
    static func mirror(_ input: inout [Float], shape: Shape) {
        switch shape.rank {
        case 3:
            let (rows, width) = (shape[0] * shape[1], shape[2])
            for row in 0..<rows { input[(row * width)..<((row + 1) * width)].reverse() }
        case 2:
            let (length, channels) = (shape[0], shape[1])
            for step in 0..<length { input[step * channels] = -input[step * channels] }
        default:
            break
        }
    }

    private func run<R>(_ worker: Worker, shape: Shape, _ body: (Session.OutputView) throws -> R) throws -> R {
        let start = ContinuousClock.now
        defer { inferenceTimer.recordNanoseconds(Int64((ContinuousClock.now - start).inSeconds * 1e9)) }
        return try worker.input.withUnsafeBufferPointer { input in
            try worker.session.run(input: UnsafeBufferPointer(rebasing: input[0..<shape.count]), shape: shape, body)
        }
    }
}
