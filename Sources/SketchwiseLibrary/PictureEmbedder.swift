import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseRecognition

/// The raster model's view of a rendered picture: its embedding and most probable classes.
public struct PictureEmbedder: Sendable {
    public let recognizer: ModelRecognizer
    /// How many classes are kept per picture.
    public let topCount: Int
    /// The model's name and version and a hash of its files: items made with another model are redone.
    public let identity: String
    /// The side of the images the model reads.
    public let inputSize: Int

    /// - Throws: ``LibraryError`` when the model does not read plain images (strokes, or a
    ///   stroke-order plane), has no embedding output, or its files cannot be read.
    public init(recognizer: ModelRecognizer, topCount: Int = 5) throws(LibraryError) {
        let model = recognizer.model
        guard case let .raster(raster) = model.spec.input.kind else {
            throw LibraryError("model \(recognizer.name) reads strokes; the index needs the raster model")
        }
        guard recognizer.readsBitmaps else {
            throw LibraryError("model \(recognizer.name) reads the order of strokes, which pictures do not have")
        }
        guard model.embeddingCount != nil else { throw LibraryError("model \(recognizer.name) has no embedding output") }
        var hash = ContentHash()
        for url in [model.url, model.weightsURL] {
            guard let data = FileManager.default.contents(atPath: url.path) else { throw LibraryError("cannot read \(url.path)") }
            data.withUnsafeBytes { hash.add($0) }
        }
        self.recognizer = recognizer
        self.topCount = topCount
        self.inputSize = raster.size
        self.identity = "\(model.spec.name) \(model.spec.version) \(hash.hex)"
    }

    /// The embedding and the `topCount` most probable classes of an image of ``inputSize``.
    public func describe(_ image: GrayImage) throws(LibraryError) -> (embedding: [Float], top: [Guess]) {
        do {
            return (try recognizer.embedding(image), try recognizer.logProbabilities(image).top(topCount))
        } catch {
            throw LibraryError("model \(recognizer.name) failed on a picture: \(error)")
        }
    }
}
