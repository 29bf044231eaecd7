import Foundation

/// Small model files in the Sketchwise format, written by tests.
public enum TestModels {
    /// The bundled models of the package (`Models/`).
    public static let bundled = SharedData.packageRoot.appendingPathComponent("Models")

    /// A folder holding the bundled raster-cnn under another version, like a hosted source.
    public static func hostedRaster(version: String) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        var spec =
            try JSONSerialization.jsonObject(with: Data(contentsOf: bundled.appendingPathComponent("raster-cnn.json"))) as! [String: Any]
        spec["version"] = version
        try JSONSerialization.data(withJSONObject: spec).write(to: folder.url.appendingPathComponent("raster-cnn.json"))
        try FileManager.default.copyItem(
            at: bundled.appendingPathComponent("raster-cnn.safetensors"), to: folder.url.appendingPathComponent("raster-cnn.safetensors"))
        return folder
    }

    /// Writes `<name>.json` and `<name>.safetensors` into `folder`: a 4×4 raster model (flatten,
    /// dense with zero weights) over `labels` whose answer is always `labels[favourite]`, with
    /// probability ≈ 0.9 when there are few labels.
    public static func writeConstantRaster(name: String, labels: [String], favorite: Int = 0, in folder: URL) throws {
        let spec: [String: Any] = [
            "format": "sketchwise-model", "formatVersion": 1, "name": name, "version": "1",
            "input": ["kind": "raster", "shape": [1, 4, 4], "raster": ["size": 4, "recipe": "quickdraw", "scale": 1.0 / 255]],
            "labels": labels,
            "outputs": ["logits": "fc"],
            "layers": [
                ["name": "flat", "type": "flatten"],
                [
                    "name": "fc", "type": "dense", "params": ["inFeatures": 16, "outFeatures": labels.count],
                    "weights": ["weight": "fc.weight", "bias": "fc.bias"],
                ],
            ] as [[String: Any]],
        ]
        try JSONSerialization.data(withJSONObject: spec, options: [.sortedKeys]).write(to: folder.appendingPathComponent("\(name).json"))
        var bias = [Float](repeating: 0, count: labels.count)
        bias[favorite] = 5
        try safetensors([
            ("fc.weight", [labels.count, 16], [Float](repeating: 0, count: 16 * labels.count)), ("fc.bias", [labels.count], bias),
        ])
        .write(to: folder.appendingPathComponent("\(name).safetensors"))
    }

    /// A safetensors file of F32 tensors (u64 header length, JSON header, data), as the exporter
    /// writes it; `transform` may alter the header first.
    public static func safetensors(
        _ tensors: [(name: String, shape: [Int], values: [Float])], header transform: (inout [String: Any]) -> Void = { _ in }
    ) -> Data {
        var header: [String: Any] = [:]
        var body = Data()
        for tensor in tensors {
            header[tensor.name] = [
                "dtype": "F32", "shape": tensor.shape, "data_offsets": [body.count, body.count + 4 * tensor.values.count],
            ]
            tensor.values.withUnsafeBytes { body.append(contentsOf: $0) }
        }
        transform(&header)
        var json = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data()
        json.append(contentsOf: [UInt8](repeating: 0x20, count: (8 - json.count % 8) % 8))
        var data = Data()
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { data.append(contentsOf: $0) }
        return data + json + body
    }
}
