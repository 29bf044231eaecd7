import Foundation

/// Why a model could not be loaded. `description` names the file and the problem.
public struct ModelError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The class of problem, for callers that react to it.
    public enum Kind: String, Sendable {
        /// The file could not be read.
        case unreadable
        /// The safetensors header is missing, truncated or not valid JSON.
        case header
        /// Tensor data offsets outside the file, overlapping, or not matching the shape.
        case offsets
        /// A tensor dtype other than F32.
        case dtype
        /// A tensor named by the spec is not in the weights file.
        case missingTensor
        /// A tensor's shape differs from what the spec's params imply.
        case tensorShape
        /// A NaN or infinite weight.
        case nonFinite
        /// The spec is not valid JSON, misses fields, or has invalid values.
        case spec
        /// A layer's params are missing or invalid.
        case params
        /// A layer type the runtime does not know.
        case unknownLayer
        /// A layer's `inputs` name an unknown or later layer, or the wrong number of layers.
        case inputs
        /// A layer's input shape does not fit the layer.
        case layerShape
        /// The label count differs from the logits size.
        case labels
    }

    public let kind: Kind
    /// The file with the problem (the spec `.json` or the `.safetensors` weights).
    public let file: URL
    /// What is wrong, in words.
    public let problem: String

    public init(_ kind: Kind, file: URL, _ problem: String) {
        self.kind = kind
        self.file = file
        self.problem = problem
    }

    public var description: String { "\(file.path): \(problem)" }
    public var errorDescription: String? { description }
}

/// Why a request could not run.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The input shape does not fit the model's input.
    case inputShape(expected: String, got: Shape)
    /// The input buffer's element count differs from the input shape's.
    case inputCount(expected: Int, got: Int)
    /// A caller-provided output buffer has the wrong size.
    case outputCount(output: String, expected: Int, got: Int)
    /// A layer cannot handle this (valid but unusual) input, e.g. a sequence too short for a convolution.
    case layer(name: String, problem: String)
    /// The run was asked to stop (its ``SketchwiseWork/StopSignal`` was raised) between two layers.
    case stopped

    public var description: String {
        switch self {
        case let .inputShape(expected, got): "input shape \(got) does not fit the model input \(expected)"
        case let .inputCount(expected, got): "input has \(got) values but its shape needs \(expected)"
        case let .outputCount(output, expected, got): "\(output) buffer has room for \(got) values, needs \(expected)"
        case let .layer(name, problem): "layer '\(name)': \(problem)"
        case .stopped: "the run was stopped"
        }
    }

    public var errorDescription: String? { description }
}

/// A problem found by a layer or the weights accessor; the loader adds the file and layer name.
struct LayerProblem: Error {
    let kind: ModelError.Kind
    let message: String

    init(_ kind: ModelError.Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
