import Foundation

/// A loaded model: spec, labels, weights (folded) and the workspace plan. Immutable and shared by
/// every request; each request runs in its own `Session`.
public final class Model: Sendable {
    /// The spec as read from the `.json` file.
    public let spec: ModelSpec
    /// The `.json` file.
    public let url: URL
    /// The `.safetensors` file beside it.
    public let weightsURL: URL
    let program: Program

    /// One label per logit.
    public var labels: [String] { spec.labels }
    /// The input shape; for sequence models the length is the maximum, shorter sequences are accepted.
    public var inputShape: Shape { program.inputShape }
    /// The longest sequence accepted, or nil for fixed-size inputs.
    public var maxLength: Int? { spec.input.maxLength }
    /// Whether the model gives class scores; an embedding-only model gives only its embedding.
    public var hasLogits: Bool { spec.outputs.logits != nil }
    /// Size of the logits vector (the label count); for an embedding-only model, whose
    /// sessions' `logits` are its embedding, the embedding's size.
    public var logitsCount: Int { program.shapes[program.logits].count }
    /// Size of the embedding vector, if the model declares one.
    public var embeddingCount: Int? { program.embedding.map { program.shapes[$0].count } }

    /// How its products compute (dense layers, convolutions, LSTMs): `float32` or `int8`.
    public let densePrecision: DensePrecision

    /// Loads `<name>.json` at `url` and `<name>.safetensors` beside it, validating both; its dense
    /// layers compute in `densePrecision` (`auto` resolved for this CPU).
    public init(contentsOf url: URL, densePrecision: DensePrecision = .float32) throws(ModelError) {
        self.url = url
        self.densePrecision = densePrecision.resolved
        weightsURL = url.deletingPathExtension().appendingPathExtension("safetensors")
        (spec, program) = try Self.load(url: url, weightsURL: weightsURL, densePrecision: self.densePrecision)
    }

    /// A new session: its own workspace for one request at a time.
    public func makeSession() -> Session { Session(model: self) }

    private static func load(url: URL, weightsURL: URL, densePrecision: DensePrecision) throws(ModelError) -> (ModelSpec, Program) {
        let specError = { (kind: ModelError.Kind, message: String) in ModelError(kind, file: url, message) }

        let data: Data, spec: ModelSpec
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw specError(.unreadable, "cannot read the spec: \(error.localizedDescription)")
        }
        do {
            spec = try JSONDecoder().decode(ModelSpec.self, from: data)
        } catch {
            throw specError(.spec, "invalid spec: \((error as? DecodingError)?.readable ?? "\(error)")")
        }
        guard spec.format == "sketchwise-model" else { throw specError(.spec, "format is '\(spec.format)', expected 'sketchwise-model'") }
        guard spec.formatVersion == 1 else { throw specError(.spec, "formatVersion \(spec.formatVersion) is not supported (1)") }
        guard !spec.layers.isEmpty else { throw specError(.spec, "the model has no layers") }

        let weights = try SafeTensors(contentsOf: weightsURL)
        var nodes: [Program.Node] = []
        var shapes: [Shape] = []
        var indexOf: [String: Int] = [:]
        for (index, layerSpec) in spec.layers.enumerated() {
            let context = "layer '\(layerSpec.name)' (\(layerSpec.type))"
            do {
                guard layerSpec.name != "input", indexOf[layerSpec.name] == nil else {
                    throw LayerProblem(.spec, "the name is \(layerSpec.name == "input" ? "reserved" : "used twice")")
                }
                let layer = try LayerRegistry.make(layerSpec, weights: LayerWeights(file: weights, roles: layerSpec.weights ?? [:]))
                let inputs = try (layerSpec.inputs ?? [index == 0 ? "input" : spec.layers[index - 1].name]).map { name in
                    guard let input = name == "input" ? -1 : indexOf[name] else {
                        throw LayerProblem(.inputs, "input '\(name)' is not an earlier layer or 'input'")
                    }
                    return input
                }
                let arity = type(of: layer).inputCount
                guard arity.contains(inputs.count) else {
                    throw LayerProblem(
                        .inputs,
                        "takes \(arity.upperBound == Int.max ? "\(arity.lowerBound) or more" : "\(arity.lowerBound)") inputs, got \(inputs.count)"
                    )
                }
                let inputShapes = inputs.map { $0 < 0 ? spec.input.shape : shapes[$0] }
                let shape = try inputShapes.withUnsafeBufferPointer { try layer.outputShape(for: $0) }
                guard shape.count <= Program.maxFloats else {
                    throw LayerProblem(.layerShape, "output \(shape) is larger than the \(Program.maxFloats) values supported")
                }
                shapes.append(shape)
                nodes.append(Program.Node(name: layerSpec.name, layer: layer, inputs: inputs))
                indexOf[layerSpec.name] = index
            } catch let problem as LayerProblem {
                let inWeights: Set<ModelError.Kind> = [.missingTensor, .tensorShape, .nonFinite]
                throw ModelError(problem.kind, file: inWeights.contains(problem.kind) ? weightsURL : url, "\(context): \(problem.message)")
            } catch {
                throw specError(.spec, "\(context): \(error)")
            }
        }

        func output(_ role: String, _ name: String) throws(ModelError) -> Int {
            guard let index = indexOf[name] else { throw specError(.spec, "outputs.\(role) names no layer: '\(name)'") }
            guard shapes[index].rank == 1 else { throw specError(.spec, "outputs.\(role) '\(name)' is \(shapes[index]), not a vector") }
            return index
        }
        let logits = try spec.outputs.logits.map { name throws(ModelError) in try output("logits", name) }
        let embedding = try spec.outputs.embedding.map { name throws(ModelError) in try output("embedding", name) }
        guard let primary = logits ?? embedding else { throw specError(.spec, "outputs names neither logits nor an embedding") }
        let logitsCount = logits.map { shapes[$0].count } ?? 0
        guard logitsCount == spec.labels.count else {
            throw specError(
                .labels, "\(spec.labels.count) labels but the logits layer '\(spec.outputs.logits ?? "")' gives \(logitsCount) values")
        }
        do {
            return (
                spec,
                try Program(
                    nodes: nodes, inputShape: spec.input.shape, logits: primary, embedding: embedding,
                    lowering: densePrecision.lowered)
            )
        } catch {
            throw specError(.spec, "cannot plan the model: \(error)")
        }
    }
}
