import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwisePreprocess

/// Which recogniser answers: one of the three roles of a models folder, or any model of the
/// folder by its plain name (`<name>.json` + `<name>.safetensors`).
public struct RecognizerKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// `raster`, `strokes`, `ensemble`, or a model's name.
    public let rawValue: String

    /// A kind from a role or a model name; nil unless `rawValue` is a plain name (not empty, no
    /// `/` or `\`, no leading `.`, no control characters, at most 200 characters).
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.count <= 200, !rawValue.hasPrefix("."),
            !rawValue.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 32 || $0.value == 127 })
        else { return nil }
        self.rawValue = rawValue
    }

    private init(role: String) { rawValue = role }

    /// The CNN on the 28×28 rendering (`raster-cnn`).
    public static let raster = RecognizerKind(role: "raster")
    /// The 1-D conv + bidirectional LSTM on the stroke sequence (`stroke-rnn`).
    public static let strokes = RecognizerKind(role: "strokes")
    /// The members of `ensemble.json` (any models of the folder), their log-probabilities
    /// averaged with weights chosen on validation data.
    public static let ensemble = RecognizerKind(role: "ensemble")
    /// The three roles, in this order.
    public static let roles: [RecognizerKind] = [.raster, .strokes, .ensemble]

    /// The model of the folder named `name`; nil unless it is a plain name.
    public static func named(_ name: String) -> RecognizerKind? { RecognizerKind(rawValue: name) }

    /// The file of the models folder this kind needs: `raster-cnn.json`, `stroke-rnn.json`,
    /// `ensemble.json`, or `<name>.json`.
    public var fileName: String { modelName.map { "\($0).json" } ?? "ensemble.json" }

    /// The model this kind runs (`raster-cnn`, `stroke-rnn` or the name itself); nil for the ensemble.
    var modelName: String? {
        switch self {
        case .raster: RecognizerSet.rasterModel
        case .strokes: RecognizerSet.strokeModel
        case .ensemble: nil
        default: rawValue
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let kind = RecognizerKind(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a plain model name: \(text)"))
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The recognisers of a models folder, loaded lazily: each model the first time it is asked
/// for, then kept (thread-safe), so a folder needs only the models that are used. The roles
/// are `raster-cnn` (``RecognizerKind/raster``, also the embedder of pictures), `stroke-rnn`
/// (``RecognizerKind/strokes``) and `ensemble.json` (``RecognizerKind/ensemble``, whose
/// members are any models of the folder); any other model answers by its name.
public final class RecognizerSet: @unchecked Sendable {
    /// The model of the ``RecognizerKind/raster`` role.
    public static let rasterModel = "raster-cnn"
    /// The model of the ``RecognizerKind/strokes`` role.
    public static let strokeModel = "stroke-rnn"
    /// The embedding of personal shortcuts (few-shot learning), when the folder has it.
    public static let shortcutEmbeddingModel = "sketch-embedding"

    /// The models folder.
    public let folder: URL
    /// Models found elsewhere than ``folder``: name → the folder holding its `<name>.json` and
    /// `<name>.safetensors` (the active downloaded versions of a model store).
    public let overrides: [String: URL]
    /// How the models' products compute (dense layers, convolutions, LSTMs).
    public let densePrecision: DensePrecision
    /// Guards `models` and `loadedEnsemble`; recursive because an ensemble loads its members.
    private let lock = NSRecursiveLock()
    private var models: [String: ModelRecognizer] = [:]
    /// Models whose files failed to load, with the files' modification dates before that load:
    /// asked for again, they fail at once with the same error (no request re-reads a broken
    /// file) until one of their files changes.
    private var failures: [String: (modified: [Date?], error: any Error)] = [:]
    private var loadedEnsemble: EnsembleRecognizer?

    /// The recognisers of `folder`, with the models of `overrides` read from their own folders and
    /// dense layers in `densePrecision`; nothing is read until a recogniser is asked for.
    public init(folder: URL, overrides: [String: URL] = [:], densePrecision: DensePrecision = .float32) {
        self.folder = folder
        self.overrides = overrides
        self.densePrecision = densePrecision
    }

    /// The folder that holds model `name`'s files.
    public func folder(of name: String) -> URL { overrides[name] ?? folder }

    /// The same set with other overrides: models already loaded from an unchanged place are
    /// kept, the others load anew on first use. Requests holding this set's models finish on them.
    public func replacing(overrides: [String: URL]) -> RecognizerSet {
        let next = RecognizerSet(folder: folder, overrides: overrides, densePrecision: densePrecision)
        lock.withLock {
            for (name, model) in models where folder(of: name) == next.folder(of: name) { next.models[name] = model }
        }
        return next
    }

    /// The path of a file of the set: a model's spec where that model lives, `ensemble.json` in ``folder``.
    private func path(of kind: RecognizerKind) -> String {
        (kind.modelName.map { folder(of: $0) } ?? folder).appendingPathComponent(kind.fileName).path
    }

    /// The weights and names of an ensemble, as in `ensemble.json`.
    struct EnsembleFile: Decodable {
        var members: [String]
        var weights: [Float]
        var bitmapWeights: [Float]?
    }

    /// The recognisers of `folder`, which must exist; models are loaded when first asked for, with
    /// dense layers in `densePrecision`.
    public static func load(from folder: URL, densePrecision: DensePrecision = .float32) throws -> RecognizerSet {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw RecognitionError("\(folder.path): no such models folder")
        }
        return RecognizerSet(folder: folder, densePrecision: densePrecision)
    }

    /// Whether the folder holds the file `kind` needs (``RecognizerKind/fileName``); it may
    /// still fail to load. A kind already loaded answers without asking the file system (this
    /// is asked on every request that names a model).
    public func has(_ kind: RecognizerKind) -> Bool {
        let loaded = lock.withLock { kind.modelName.map { models[$0] != nil } ?? (loadedEnsemble != nil) }
        return loaded || FileManager.default.fileExists(atPath: path(of: kind))
    }

    /// The raster CNN (`raster-cnn`), which also gives the embeddings of sketches and pictures.
    public var raster: ModelRecognizer {
        get throws {
            let model = try model(named: Self.rasterModel, for: .raster)
            guard model.readsImages else {
                throw RecognitionError(
                    "\(folder(of: Self.rasterModel).path)/\(Self.rasterModel).json is not a raster model (it reads strokes)")
            }
            return model
        }
    }

    /// The embedder of personal shortcuts: `sketch-embedding`, trained to tell apart drawings
    /// it has never seen, or the raster CNN's embedding when the folder lacks it.
    public var shortcutEmbedding: ModelRecognizer {
        get throws {
            guard has(.named(Self.shortcutEmbeddingModel)!) else { return try raster }
            let model = try model(named: Self.shortcutEmbeddingModel)
            guard model.readsImages, model.model.embeddingCount != nil else {
                throw RecognitionError(
                    "\(folder(of: Self.shortcutEmbeddingModel).path)/\(Self.shortcutEmbeddingModel).json is not a raster model with an embedding"
                )
            }
            return model
        }
    }

    /// The stroke model (`stroke-rnn`).
    public var strokes: ModelRecognizer {
        get throws {
            let model = try model(named: Self.strokeModel, for: .strokes)
            guard !model.readsImages else {
                throw RecognitionError(
                    "\(folder(of: Self.strokeModel).path)/\(Self.strokeModel).json is not a stroke model (it reads images)")
            }
            return model
        }
    }

    /// The ensemble of `ensemble.json`.
    public var ensemble: EnsembleRecognizer {
        get throws {
            try lock.withLock {
                if let loadedEnsemble { return loadedEnsemble }
                let url = folder.appendingPathComponent(RecognizerKind.ensemble.fileName)
                guard FileManager.default.fileExists(atPath: url.path) else { throw missing(.ensemble) }
                let file: EnsembleFile
                do {
                    file = try JSONDecoder().decode(EnsembleFile.self, from: Data(contentsOf: url))
                } catch {
                    throw RecognitionError("\(url.path): not a valid ensemble file (\(error))")
                }
                guard Set(file.members).count == file.members.count, file.members.allSatisfy({ RecognizerKind(rawValue: $0) != nil }) else {
                    throw RecognitionError("\(url.path): members must be distinct model names of this folder")
                }
                let members = try file.members.map { name in
                    guard FileManager.default.fileExists(atPath: folder(of: name).appendingPathComponent("\(name).json").path) else {
                        throw RecognitionError("\(url.path): unknown member \(name) (no \(name).json beside it)")
                    }
                    return try model(named: name)
                }
                let ensemble = try EnsembleRecognizer(members: members, weights: file.weights, bitmapWeights: file.bitmapWeights)
                loadedEnsemble = ensemble
                return ensemble
            }
        }
    }

    /// The model `<name>.json` (+ `<name>.safetensors`) of the folder, loaded on first use.
    /// - Throws: ``RecognitionError`` when `name` is not a plain name or the folder has no such
    ///   model; `ModelError` when its files are broken.
    public func model(named name: String) throws -> ModelRecognizer {
        guard let kind = RecognizerKind(rawValue: name) else {
            throw RecognitionError("\(name) is not a model name (a plain file name without / or a leading .)")
        }
        return try model(named: name, for: kind)
    }

    /// Models whose embeddings are compared with ones stored in float32: the raster model's with the
    /// picture index, the shortcut embedding's with the drawings people taught.
    static let storedEmbeddingModels: Set = [rasterModel, shortcutEmbeddingModel]

    /// How model `name` computes: ``densePrecision``, except that `auto` keeps the models of
    /// ``storedEmbeddingModels`` in float32.
    func precision(of name: String) -> DensePrecision {
        densePrecision == .auto && Self.storedEmbeddingModels.contains(name) ? .float32 : densePrecision
    }

    private func model(named name: String, for kind: RecognizerKind) throws -> ModelRecognizer {
        try lock.withLock {
            if let model = models[name] { return model }
            let url = folder(of: name).appendingPathComponent("\(name).json")
            guard FileManager.default.fileExists(atPath: url.path) else { throw missing(kind) }
            let modified = modificationDates(of: name)
            if let failure = failures[name], failure.modified == modified { throw failure.error }
            do {
                let model = ModelRecognizer(model: try Model(contentsOf: url, densePrecision: precision(of: name)))
                models[name] = model
                failures[name] = nil
                return model
            } catch {
                failures[name] = (modified, error)
                throw error
            }
        }
    }

    /// When the model's two files were last changed (nil for a missing one).
    private func modificationDates(of name: String) -> [Date?] {
        ["json", "safetensors"].map { ext in
            let path = folder(of: name).appendingPathComponent("\(name).\(ext)").path
            return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        }
    }

    /// The error for a kind whose file is not in the folder.
    private func missing(_ kind: RecognizerKind) -> RecognitionError {
        let what = RecognizerKind.roles.contains(kind) ? "the \(kind) model" : "a model named \(kind)"
        return RecognitionError("no \(kind.fileName) in \(folder.path) (needed for \(what))")
    }

    /// The recogniser of the given kind, loading what it needs.
    /// - Throws: ``RecognitionError`` naming the missing file when the folder lacks it, or saying
    ///   that the model gives no guesses (an embedding-only model such as `sketch-embedding`).
    public func recognizer(_ kind: RecognizerKind) throws -> SketchRecognizer {
        let answerer: SketchRecognizer.Answerer =
            switch kind {
            case .raster: .model(try raster)
            case .strokes: .model(try strokes)
            case .ensemble: .ensemble(try ensemble)
            default: .model(try guessing(try model(named: kind.rawValue, for: kind)))
            }
        return SketchRecognizer(kind: kind, answerer: answerer, models: self)
    }

    /// Whether the model of this kind gives guesses (it is loaded to know).
    /// - Throws: as ``recognizer(_:)`` for a missing or broken model.
    public func givesGuesses(_ kind: RecognizerKind) throws -> Bool {
        switch kind {
        case .raster, .strokes, .ensemble: true
        default: try model(named: kind.rawValue, for: kind).givesGuesses
        }
    }

    /// `model`, once known to give guesses.
    private func guessing(_ model: ModelRecognizer) throws -> ModelRecognizer {
        guard model.givesGuesses else { throw model.noGuesses }
        return model
    }
}

/// Guesses what a sketch shows, with one recogniser of a ``RecognizerSet``.
public struct SketchRecognizer: Sendable {
    /// What answers: one model, or an ensemble.
    enum Answerer: Sendable {
        case model(ModelRecognizer)
        case ensemble(EnsembleRecognizer)
    }

    public let kind: RecognizerKind
    let answerer: Answerer
    let models: RecognizerSet

    /// The labels of the answers, in order (a model may know only some of the official classes).
    public var labels: [String] { members[0].labels }

    /// The models that answer: the one model, or the ensemble's members.
    public var members: [ModelRecognizer] {
        switch answerer {
        case let .model(model): [model]
        case let .ensemble(ensemble): ensemble.members
        }
    }

    /// Log-probabilities of every label.
    /// - Throws: for an empty sketch or unusable coordinates (``SketchwiseCore/SketchError``).
    public func logProbabilities(_ sketch: StrokeSketch) throws -> LogProbabilities {
        switch answerer {
        case let .model(model): try model.logProbabilities(sketch)
        case let .ensemble(ensemble): try ensemble.logProbabilities(sketch)
        }
    }

    /// Log-probabilities for a bitmap: a raster model's, or the ensemble's members that read
    /// images; stroke models cannot read them.
    public func logProbabilities(_ image: GrayImage) throws -> LogProbabilities {
        switch answerer {
        case let .model(model): try model.logProbabilities(image)
        case let .ensemble(ensemble): try ensemble.logProbabilities(image)
        }
    }

    /// The `top` most probable labels, most probable first.
    public func classify(_ sketch: StrokeSketch, top: Int = 5) throws -> [Guess] {
        try logProbabilities(sketch).top(top)
    }

    /// The `top` most probable labels and the embedding of a sketch (always the raster CNN's),
    /// simplifying it once and running the raster CNN only once for both when it also answers.
    public func analyze(_ sketch: StrokeSketch, top: Int = 5) throws -> SketchAnalysis {
        let sketch = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        let embedder = try models.raster
        let raster = try embedder.describe(sketch)
        guard let embedding = raster.embedding else { throw RecognitionError("model \(embedder.name) has no embedding output") }
        func answer(_ model: ModelRecognizer) throws -> LogProbabilities {
            model === embedder ? raster.logProbabilities : try model.logProbabilities(sketch)
        }
        let answer: LogProbabilities =
            switch answerer {
            case let .model(model): try answer(model)
            case let .ensemble(ensemble): try ensemble.combine(answer)
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
