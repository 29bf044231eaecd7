import SketchwiseWork

/// Runs one request at a time on a shared `Model`. Owns a workspace planned at load for the largest
/// input: running allocates nothing. Not `Sendable`: give each task its own session.
public final class Session {
    /// The outputs of one run, valid only inside the closure they are passed to.
    public struct OutputView {
        /// The class scores, before softmax.
        public let logits: UnsafeBufferPointer<Float>
        /// The embedding, if the model declares one.
        public let embedding: UnsafeBufferPointer<Float>?
    }

    /// The outputs of one run, copied.
    public struct Outputs: Sendable, Equatable {
        public let logits: [Float]
        public let embedding: [Float]?
        /// The softmax of the logits.
        public var probabilities: [Float] { Softmax.probabilities(logits) }
    }

    public let model: Model
    private let program: Program
    /// Step outputs and scratch; allocated once, at creation.
    let workspace: UnsafeMutablePointer<Float>
    /// The current value of every value id.
    private let values: UnsafeMutablePointer<Tensor>
    /// The inputs of the current step, and their shapes.
    private let arguments: UnsafeMutablePointer<Tensor>
    private let argumentShapes: UnsafeMutablePointer<Shape>

    init(model: Model) {
        self.model = model
        program = model.program
        let count = max(program.workspaceCount, 16)
        workspace = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64).bindMemory(to: Float.self, capacity: count)
        workspace.initialize(repeating: 0, count: count)
        values = .allocate(capacity: program.shapes.count)
        values.initialize(repeating: Tensor(data: workspace, shape: .vector(0)), count: program.shapes.count)
        arguments = .allocate(capacity: program.maxInputs)
        arguments.initialize(repeating: Tensor(data: workspace, shape: .vector(0)), count: program.maxInputs)
        argumentShapes = .allocate(capacity: program.maxInputs)
        argumentShapes.initialize(repeating: .vector(0), count: program.maxInputs)
    }

    deinit {
        workspace.deallocate()
        values.deallocate()
        arguments.deallocate()
        argumentShapes.deallocate()
    }

    /// Runs on `input` (row-major, `shape`; nil means the model's input shape, or for sequences
    /// `[input.count / C, C]`) and passes views of the outputs to `body`. Copies nothing.
    public func run<R>(input: UnsafeBufferPointer<Float>, shape: Shape? = nil, _ body: (OutputView) throws -> R) throws -> R {
        try execute(input: input, shape: shape)
        return try body(OutputView(
            logits: UnsafeBufferPointer(values[program.logits].buffer),
            embedding: program.embedding.map { UnsafeBufferPointer(values[$0].buffer) }))
    }

    /// Runs on `input` and writes the logits (and the embedding, when a buffer is given) into caller buffers
    /// of exactly `model.logitsCount` (`model.embeddingCount`) floats.
    public func run(
        input: UnsafeBufferPointer<Float>, shape: Shape? = nil,
        logits: UnsafeMutableBufferPointer<Float>, embedding: UnsafeMutableBufferPointer<Float>? = nil
    ) throws(InferenceError) {
        guard logits.count == model.logitsCount else {
            throw .outputCount(output: "logits", expected: model.logitsCount, got: logits.count)
        }
        if let embedding, embedding.count != model.embeddingCount ?? 0 {
            throw .outputCount(output: "embedding", expected: model.embeddingCount ?? 0, got: embedding.count)
        }
        try execute(input: input, shape: shape)
        _ = logits.update(fromContentsOf: UnsafeBufferPointer(values[program.logits].buffer))
        if let embedding, let value = program.embedding {
            _ = embedding.update(fromContentsOf: UnsafeBufferPointer(values[value].buffer))
        }
    }

    /// Runs on `input` and returns copies of the outputs.
    public func run(input: [Float], shape: Shape? = nil) throws(InferenceError) -> Outputs {
        try input.withUnsafeBufferPointer { (buffer) throws(InferenceError) in
            try execute(input: buffer, shape: shape)
            return Outputs(
                logits: Array(values[program.logits].buffer),
                embedding: program.embedding.map { Array(values[$0].buffer) })
        }
    }

    /// The input shape for `count` values, checked against the model input.
    private func inputShape(count: Int, shape: Shape?) throws(InferenceError) -> Shape {
        let planned = program.inputShape
        let shape = shape ?? (model.maxLength == nil ? planned : .sequence(length: count / planned[1], channels: planned[1]))
        if let maxLength = model.maxLength {
            guard shape.rank == 2, shape[1] == planned[1], (1...maxLength).contains(shape[0]) else {
                throw .inputShape(expected: "[1…\(maxLength), \(planned[1])]", got: shape)
            }
        } else if shape != planned {
            throw .inputShape(expected: planned.description, got: shape)
        }
        guard shape.count == count else { throw .inputCount(expected: shape.count, got: count) }
        return shape
    }

    /// Runs every step; afterwards `values` hold the outputs. Stops between steps when the work
    /// running on this thread is asked to (``SketchwiseWork/StopSignal``).
    private func execute(input: UnsafeBufferPointer<Float>, shape: Shape?) throws(InferenceError) {
        let inputShape = try inputShape(count: input.count, shape: shape)
        let planned = inputShape == program.inputShape
        values[0] = Tensor(data: UnsafeMutablePointer(mutating: input.baseAddress ?? UnsafePointer(workspace)), shape: inputShape)
        let scratch = workspace + program.scratchOffset
        let stop = StopSignal.current
        for (k, step) in program.steps.enumerated() {
            if stop?.isRaised == true { throw .stopped }
            let value = k + 1
            for (a, input) in step.inputs.enumerated() {
                arguments[a] = values[input]
                argumentShapes[a] = values[input].shape
            }
            let inputs = UnsafeBufferPointer(start: arguments, count: step.inputs.count)
            var outputShape = program.shapes[value]
            if !planned {
                let shapes = UnsafeBufferPointer(start: argumentShapes, count: step.inputs.count)
                do {
                    outputShape = try step.layer.outputShape(for: shapes)
                } catch {
                    throw .layer(name: step.name, problem: (error as? LayerProblem)?.message ?? "\(error)")
                }
                guard outputShape.count <= program.capacities[value],
                      step.layer.scratchCount(for: shapes) <= program.scratchCapacity
                else { throw .layer(name: step.name, problem: "input \(inputShape) needs more memory than planned") }
            }
            let output = Tensor(data: workspace + program.offsets[value], shape: outputShape)
            step.layer.forward(inputs, into: output, scratch: scratch)
            values[value] = output
        }
    }
}
