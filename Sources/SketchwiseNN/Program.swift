/// The executable form of a model: the layers after folding (batchnorm and relu into the
/// preceding conv/dense), pruning (layers no output needs) and planning (each layer made ready for
/// its largest input), and a workspace plan for that input, so that sessions never allocate while
/// running.
struct Program: Sendable {
    struct Step: Sendable {
        /// The name of the last spec layer folded into this step.
        let name: String
        let layer: any Layer
        /// Value ids: 0 is the model input, `k + 1` the output of step `k`.
        let inputs: [Int]
    }

    /// A layer of the spec, checked, with its inputs as layer indexes (-1: the model input).
    struct Node {
        var name: String
        var layer: any Layer
        var inputs: [Int]
    }

    let steps: [Step]
    /// The planned (largest) input shape.
    let inputShape: Shape
    /// Planned shape of every value (index: value id).
    let shapes: [Shape]
    /// Workspace offset and capacity, in floats, of every step output (index: value id; 0 unused).
    let offsets: [Int], capacities: [Int]
    /// Scratch region shared by all steps.
    let scratchOffset: Int, scratchCapacity: Int
    /// Floats in a session's workspace.
    let workspaceCount: Int
    /// The most inputs of any step.
    let maxInputs: Int
    /// Value ids of the outputs.
    let logits: Int, embedding: Int?

    /// Folds, prunes and plans `nodes`, whose shapes have been checked for `inputShape`; each
    /// folded layer is then `lowered` (to another implementation of the same layer) and `planned`
    /// for its input shapes.
    init(nodes: [Node], inputShape: Shape, logits: Int, embedding: Int?, lowering lowered: (any Layer) -> any Layer = { $0 }) throws {
        let outputs = [logits] + (embedding.map { [$0] } ?? [])
        let kept = Self.needed(Self.folded(nodes, outputs: outputs), outputs: outputs)
        let valueIDs = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($0.element.index, $0.offset + 1) })
        func valueID(_ index: Int) throws -> Int {
            guard index >= 0 else { return 0 }
            guard let id = valueIDs[index] else { throw LayerProblem(.inputs, "layer \(index) was folded away but is still read") }
            return id
        }
        let unplanned = try kept.map {
            Step(name: $0.node.name, layer: lowered($0.node.layer), inputs: try $0.node.inputs.map(valueID))
        }
        self.inputShape = inputShape
        self.logits = try valueID(logits)
        self.embedding = try embedding.map(valueID)
        maxInputs = unplanned.map(\.inputs.count).max() ?? 1

        var shapes = [inputShape]
        var scratch = 0
        var steps: [Step] = []
        for step in unplanned {
            let inputShapes = step.inputs.map { shapes[$0] }
            try inputShapes.withUnsafeBufferPointer { inputs in
                shapes.append(try step.layer.outputShape(for: inputs))
                let layer = step.layer.planned(for: inputs)
                scratch = max(scratch, layer.scratchCount(for: inputs))
                steps.append(Step(name: step.name, layer: layer, inputs: step.inputs))
            }
        }
        self.steps = steps
        self.shapes = shapes

        // Liveness: a value is needed until its last reader runs; outputs until the end.
        var lastUse = Array(0..<shapes.count)
        for (k, step) in steps.enumerated() {
            for value in step.inputs { lastUse[value] = k + 1 }
        }
        for output in [self.logits, self.embedding].compactMap({ $0 }) { lastUse[output] = Int.max }

        // Each step output goes into a buffer whose previous value is dead: the smallest that
        // fits, else the largest (grown).
        var buffers: [(capacity: Int, busyUntil: Int)] = []
        var bufferOf = [Int](repeating: -1, count: shapes.count)
        for value in 1..<shapes.count {
            let need = shapes[value].count
            let free = buffers.indices.filter { buffers[$0].busyUntil < value }
            let chosen =
                free.filter { buffers[$0].capacity >= need }.min { buffers[$0].capacity < buffers[$1].capacity }
                ?? free.max { buffers[$0].capacity < buffers[$1].capacity }
            let index = chosen ?? buffers.count
            if index == buffers.count { buffers.append((0, 0)) }
            buffers[index] = (max(buffers[index].capacity, need), lastUse[value])
            bufferOf[value] = index
        }
        var bufferOffsets: [Int] = []
        var total = 0
        for buffer in buffers {
            bufferOffsets.append(total)
            total += Self.aligned(buffer.capacity)
        }
        offsets = bufferOf.map { $0 < 0 ? 0 : bufferOffsets[$0] }
        capacities = bufferOf.map { $0 < 0 ? 0 : buffers[$0].capacity }
        scratchOffset = total
        scratchCapacity = scratch
        workspaceCount = total + Self.aligned(scratch)
        guard workspaceCount <= Self.maxFloats else {
            throw LayerProblem(.layerShape, "a session would need \(workspaceCount) floats, more than the \(Self.maxFloats) supported")
        }
    }

    /// The most floats one value, or a session's whole workspace, may hold (1 GiB).
    static let maxFloats = 1 << 28

    /// Rounds a float count up to whole 64-byte lines.
    static func aligned(_ count: Int) -> Int { (count + 15) / 16 * 16 }

    /// Folds every node into its single input's producer when that producer feeds nothing else
    /// and can absorb it (conv + batchnorm + relu, ...). Folded-away nodes are marked nil.
    private static func folded(_ nodes: [Node], outputs: [Int]) -> [Node?] {
        var nodes: [Node?] = nodes
        func readers(_ index: Int) -> Int {
            nodes.reduce(outputs.filter { $0 == index }.count) { count, node in
                count + (node?.inputs.filter { $0 == index }.count ?? 0)
            }
        }
        for j in nodes.indices {
            while let node = nodes[j], node.inputs.count == 1, let i = node.inputs.first, i >= 0,
                let producer = nodes[i], readers(i) == 1, let fused = producer.layer.fused(with: node.layer)
            {
                nodes[j] = Node(name: node.name, layer: fused, inputs: producer.inputs)
                nodes[i] = nil
            }
        }
        return nodes
    }

    /// The nodes the outputs depend on, with their indexes, in order.
    private static func needed(_ nodes: [Node?], outputs: [Int]) -> [(index: Int, node: Node)] {
        var needed = Set<Int>()
        var pending = outputs
        while let index = pending.popLast() {
            guard index >= 0, needed.insert(index).inserted, let node = nodes[index] else { continue }
            pending += node.inputs
        }
        return nodes.indices.compactMap { index in
            guard needed.contains(index), let node = nodes[index] else { return nil }
            return (index, node)
        }
    }
}
