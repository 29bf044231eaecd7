import CoreMetrics
import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseWork

/// One label of a photo: the model's class, by index and name, with its probability.
public struct PhotoLabel: Sendable, Equatable, Codable {
    /// The class's index among the model's labels.
    public let index: Int
    public let text: String
    public let confidence: Double

    public init(index: Int, text: String, confidence: Double) {
        (self.index, self.text, self.confidence) = (index, text, confidence)
    }
}

/// Classifies photos with an image model (`input.kind` `image`, such as the imported
/// EfficientNet-Lite0): decodes the centre square of the file at the spec's `resize` (what
/// torchvision's `Resize` then `CenterCrop` keep), crops its centre `size`, normalises it and
/// runs the model. Thread-safe: concurrent calls each borrow their own session and buffer.
public final class PhotoClassifier: Sendable {
    public let model: Model
    public let input: ImageInput
    private let pool: Pool<Worker>
    private let inferenceTimer: CoreMetrics.Timer

    final class Worker {
        let session: Session
        var tensor: [Float]

        init(model: Model) {
            session = model.makeSession()
            tensor = [Float](repeating: 0, count: model.inputShape.count)
        }
    }

    /// - Throws: ``PhotoError`` `.wrongModel` unless the model takes images and has labels.
    public init(model: Model) throws(PhotoError) {
        guard case let .image(input) = model.spec.input.kind else {
            throw PhotoError(.wrongModel, "model \(model.spec.name) does not classify photos (its input is not an image)")
        }
        guard model.hasLogits, !model.labels.isEmpty else {
            throw PhotoError(.wrongModel, "model \(model.spec.name) gives no labels")
        }
        self.model = model
        self.input = input
        pool = Pool { Worker(model: model) }
        inferenceTimer = Timer(label: "sketchwise_inference_duration_seconds", dimensions: [("model", model.spec.name)])
    }

    /// Loads `<name>.json` (with `<name>.safetensors` beside it).
    public convenience init(contentsOf url: URL) throws {
        try self.init(model: try Model(contentsOf: url))
    }

    public var name: String { model.spec.name }
    public var labels: [String] { model.labels }

    /// The `top` most probable labels of the photo file in `bytes`, most probable first.
    /// - Throws: ``PhotoError`` for a file that is not a usable PNG or JPEG.
    public func classify(_ bytes: [UInt8], top: Int = 5, limits: PhotoLimits = PhotoLimits()) throws -> [PhotoLabel] {
        try classify(try PhotoDecoder.decodeSquare(bytes, side: input.resize, limits: limits), top: top)
    }

    /// The `top` most probable labels of a decoded photo (of any size).
    public func classify(_ image: RGBImage, top: Int = 5) throws -> [PhotoLabel] {
        let probabilities = Softmax.probabilities(try logits(image))
        let best = probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }.prefix(max(0, top))
        return best.map { PhotoLabel(index: $0, text: labels[$0], confidence: Double(probabilities[$0])) }
    }

    /// The model's logits for a decoded photo.
    public func logits(_ image: RGBImage) throws -> [Float] {
        let scaled = try scaled(image)
        return try pool.with { worker in
            worker.tensor.withUnsafeMutableBufferPointer { PhotoTensor.write(scaled, input: input, into: $0) }
            let start = ContinuousClock.now
            defer { inferenceTimer.recordNanoseconds(Int64((ContinuousClock.now - start).inSeconds * 1e9)) }
            return try worker.session.run(input: worker.tensor).logits
        }
    }

    /// The image's centre square at `input.resize` × `input.resize` (decoded photos already are).
    private func scaled(_ image: RGBImage) throws -> RGBImage {
        guard image.width != input.resize || image.height != input.resize else { return image }
        return try PhotoScaler.centreSquare(image, side: input.resize)
    }
}
