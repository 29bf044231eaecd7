import Foundation

/// Every layer type the runtime knows — the one list to edit when adding a layer.
enum LayerRegistry {
    static let types: [any Layer.Type] = [
        Conv2D.self, DepthwiseConv2D.self, Conv1D.self, BatchNorm.self, ReLU.self, ReLU6.self, Tanh.self, MaxPool2D.self,
        AvgPool2D.self, GlobalAvgPool2D.self, Flatten.self, Dense.self, LSTM.self, SumTime.self, MeanTime.self, MaxTime.self,
        Concat.self, Add.self, SoftmaxLayer.self, L2Normalize.self,
    ]

    static let byName: [String: any Layer.Type] = Dictionary(uniqueKeysWithValues: types.map { ($0.typeName, $0) })

    /// Builds the layer `spec` describes: looks up its type, decodes its params, reads its weights.
    static func make(_ spec: LayerSpec, weights: LayerWeights) throws -> any Layer {
        guard let type = byName[spec.type] else {
            throw LayerProblem(.unknownLayer, "unknown layer type '\(spec.type)' (known: \(byName.keys.sorted().joined(separator: ", ")))")
        }
        let layer = try make(type, params: spec.params, weights: weights)
        try weights.requireAllUsed()
        return layer
    }

    private static func make<L: Layer>(_ type: L.Type, params: JSONValue?, weights: LayerWeights) throws -> any Layer {
        let decoded: L.Params
        do {
            let json = try JSONEncoder().encode(params == nil || params == .null ? JSONValue.object([:]) : params)
            decoded = try JSONDecoder().decode(L.Params.self, from: json)
        } catch let error as DecodingError {
            throw LayerProblem(.params, "params: \(error.readable)")
        }
        return try L(params: decoded, weights: weights)
    }
}
