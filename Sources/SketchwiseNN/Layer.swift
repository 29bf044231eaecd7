import Foundation

/// A value during inference: `shape.count` floats at `data`, row-major (C order).
struct Tensor {
    var data: UnsafeMutablePointer<Float>
    var shape: Shape

    var buffer: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: data, count: shape.count) }
}

/// One layer type of the model format. Layers are immutable once built and shared by all
/// sessions; `forward` reads its inputs and writes only `output` and `scratch`.
///
/// Adding a layer type: one file in `Layers/`, one line in `LayerRegistry`, one test.
protocol Layer: Sendable {
    /// The params object of the spec (`{}` when the spec has none).
    associatedtype Params: Decodable
    /// The `type` string in the spec.
    static var typeName: String { get }
    /// How many inputs the layer takes.
    static var inputCount: ClosedRange<Int> { get }

    /// Builds the layer, reading and checking its weights.
    init(params: Params, weights: LayerWeights) throws
    /// The output shape for these input shapes; throws `LayerProblem(.layerShape, ...)` if they don't fit.
    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape
    /// Floats of scratch space `forward` needs for these input shapes.
    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int
    /// Computes the output. Shapes have been checked by `outputShape`; must not allocate.
    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>)
    /// This layer with `next` (which reads only this layer's output) folded in, or nil.
    func fused(with next: any Layer) -> (any Layer)?
    /// This layer made ready for inputs of these shapes (checked by `outputShape`), the largest it
    /// will run on: a convolution chooses its kernel. Called once, when a program is planned.
    func planned(for inputs: UnsafeBufferPointer<Shape>) -> any Layer
}

extension Layer {
    static var inputCount: ClosedRange<Int> { 1...1 }
    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int { 0 }
    func fused(with next: any Layer) -> (any Layer)? { nil }
    func planned(for inputs: UnsafeBufferPointer<Shape>) -> any Layer { self }
}

/// Params of layers that take none.
struct NoParams: Decodable {}

/// The largest size param accepted (channels, features, kernel, stride, padding), which keeps every
/// shape computation far from overflow.
let maxParamValue = 1 << 16

/// Throws unless every named param is in `minimum...maxParamValue`.
func requireParams(_ values: KeyValuePairs<String, Int>, atLeast minimum: Int) throws {
    for (name, value) in values where !(minimum...maxParamValue).contains(value) {
        throw LayerProblem(.params, "\(name) must be in \(minimum)...\(maxParamValue), is \(value)")
    }
}

extension Shape {
    /// Throws unless the shape has `rank` dimensions.
    func require(rank: Int, _ what: String) throws {
        guard self.rank == rank else { throw LayerProblem(.layerShape, "expects \(what), got \(self)") }
    }

    /// Throws unless dimension `axis` is `size`.
    func require(axis: Int, is size: Int, _ what: String) throws {
        guard self[axis] == size else {
            throw LayerProblem(.layerShape, "expects \(size) \(what), input \(self) has \(self[axis])")
        }
    }
}

/// The weights of one layer: the spec's role → tensor-name map over the weights file. Tracks
/// which roles were read so that unexpected roles are reported.
final class LayerWeights {
    private let file: SafeTensors
    private let roles: [String: String]
    private var used: Set<String> = []

    init(file: SafeTensors, roles: [String: String]) {
        self.file = file
        self.roles = roles
    }

    /// The tensor for `role`, checked to have `shape`.
    func require(_ role: String, shape: [Int]) throws -> [Float] {
        guard let values = try optional(role, shape: shape) else {
            throw LayerProblem(.spec, "weights has no '\(role)' entry")
        }
        return values
    }

    /// The tensor for `role`, checked to have `shape`, or nil if the spec lists no such role.
    func optional(_ role: String, shape: [Int]) throws -> [Float]? {
        guard let name = roles[role] else { return nil }
        used.insert(role)
        guard let entry = file.entries[name], let values = file.floats(name) else {
            throw LayerProblem(.missingTensor, "tensor '\(name)' (\(role)) is not in \(file.url.lastPathComponent)")
        }
        guard entry.shape == shape else {
            throw LayerProblem(.tensorShape, "tensor '\(name)' (\(role)) has shape \(entry.shape), the params imply \(shape)")
        }
        return values
    }

    /// Throws if the spec lists roles the layer did not read.
    func requireAllUsed() throws {
        let unused = Set(roles.keys).subtracting(used)
        guard unused.isEmpty else {
            throw LayerProblem(.spec, "unexpected weights \(unused.sorted().map { "'\($0)'" }.joined(separator: ", "))")
        }
    }
}
