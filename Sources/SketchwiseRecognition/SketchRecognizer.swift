import Foundation
import SketchwiseCore
import SketchwisePreprocess

/// Which recogniser answers.
public enum RecognizerKind: String, Sendable, CaseIterable, Codable {
    /// The CNN on the 28×28 rendering.
    case raster
    /// The 1-D conv + bidirectional LSTM on the stroke sequence.
    case strokes
    /// The members of `ensemble.json` (both recognisers, and any further models it names),
    /// their log-probabilities averaged with weights chosen on validation data.
    case ensemble
}

/// The bundled recognisers: `raster-cnn`, `stroke-rnn` and `ensemble.json` (whose members are
/// models of the same folder) from a models folder.
public final class RecognizerSet: Sendable {
    public let raster: ModelRecognizer
    public let strokes: ModelRecognizer
    public let ensemble: EnsembleRecognizer

    public init(raster: ModelRecognizer, strokes: ModelRecognizer, ensemble: EnsembleRecognizer) {
        self.raster = raster
        self.strokes = strokes
        self.ensemble = ensemble
    }

    /// The weights and names of an ensemble, as in `ensemble.json`.
    struct EnsembleFile: Decodable {
        var members: [String]
        var weights: [Float]
    }

    /// Loads the models of `folder` (`raster-cnn.json`, `stroke-rnn.json`, `ensemble.json`).
    public static func load(from folder: URL) throws -> RecognizerSet {
        let raster = try ModelRecognizer(contentsOf: folder.appendingPathComponent("raster-cnn.json"))
        let strokes = try ModelRecognizer(contentsOf: folder.appendingPathComponent("stroke-rnn.json"))
        let ensembleURL = folder.appendingPathComponent("ensemble.json")
        let file: EnsembleFile
        do {
            file = try JSONDecoder().decode(EnsembleFile.self, from: Data(contentsOf: ensembleURL))
        } catch {
            throw RecognitionError("\(ensembleURL.path): not a valid ensemble file (\(error))")
        }
        guard raster.readsImages else { throw RecognitionError("\(folder.path)/raster-cnn.json is not a raster model (it reads strokes)") }
        guard !strokes.readsImages else { throw RecognitionError("\(folder.path)/stroke-rnn.json is not a stroke model (it reads images)") }
        guard Set(file.members).count == file.members.count,
              file.members.allSatisfy({ !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") }) else {
            throw RecognitionError("\(ensembleURL.path): members must be distinct model names of this folder")
        }
        let members = try file.members.map { name in
            if name == raster.name { return raster }
            if name == strokes.name { return strokes }
            let url = folder.appendingPathComponent("\(name).json")
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw RecognitionError("\(ensembleURL.path): unknown member \(name) (no \(name).json beside it)")
            }
            return try ModelRecognizer(contentsOf: url)
        }
        return RecognizerSet(raster: raster, strokes: strokes, ensemble: try EnsembleRecognizer(members: members, weights: file.weights))
    }

    /// The recogniser of the given kind.
    public func recognizer(_ kind: RecognizerKind) -> SketchRecognizer {
        SketchRecognizer(kind: kind, models: self)
    }
}

/// Guesses what a sketch shows, with one recogniser of a ``RecognizerSet``.
public struct SketchRecognizer: Sendable {
    public let kind: RecognizerKind
    let models: RecognizerSet

    public var labels: [String] { models.raster.labels }

    /// Log-probabilities of every label.
    /// - Throws: for an empty sketch or unusable coordinates (``SketchwiseCore/SketchError``).
    public func logProbabilities(_ sketch: StrokeSketch) throws -> LogProbabilities {
        switch kind {
        case .raster: try models.raster.logProbabilities(sketch)
        case .strokes: try models.strokes.logProbabilities(sketch)
        case .ensemble: try models.ensemble.logProbabilities(sketch)
        }
    }

    /// Log-probabilities for a bitmap: the raster model's, or the ensemble's members that read
    /// images; the stroke model cannot read them.
    public func logProbabilities(_ image: GrayImage) throws -> LogProbabilities {
        switch kind {
        case .raster: try models.raster.logProbabilities(image)
        case .strokes: throw RecognitionError("bitmaps can only go to models that read images (raster, ensemble)")
        case .ensemble: try models.ensemble.logProbabilities(image)
        }
    }

    /// The `top` most probable labels, most probable first.
    public func classify(_ sketch: StrokeSketch, top: Int = 5) throws -> [Guess] {
        try logProbabilities(sketch).top(top)
    }

    /// The `top` most probable labels and the embedding of a sketch, simplifying it once and
    /// running the raster CNN only once for both (the ensemble reuses its raster member's run).
    public func analyze(_ sketch: StrokeSketch, top: Int = 5) throws -> SketchAnalysis {
        let sketch = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        let raster = try models.raster.describe(sketch)
        guard let embedding = raster.embedding else { throw RecognitionError("model \(models.raster.name) has no embedding output") }
        let answer: LogProbabilities = switch kind {
        case .raster: raster.logProbabilities
        case .strokes: try models.strokes.logProbabilities(sketch)
        case .ensemble:
            models.ensemble.combine(try models.ensemble.members.map { member in
                member === models.raster ? raster.logProbabilities : try member.logProbabilities(sketch)
            })
        }
        return SketchAnalysis(guesses: answer.top(top), embedding: embedding)
    }

    /// The sketch's embedding for visual similarity (always from the raster CNN).
    public func embedding(_ sketch: StrokeSketch) throws -> [Float] {
        try models.raster.embedding(sketch)
    }
}

/// What the recogniser makes of a sketch: its guesses and its embedding.
public struct SketchAnalysis: Sendable, Equatable {
    /// The most probable labels, most probable first.
    public var guesses: [Guess]
    /// The raster CNN's L2-normalised embedding.
    public var embedding: [Float]

    public init(guesses: [Guess], embedding: [Float]) {
        self.guesses = guesses
        self.embedding = embedding
    }
}
