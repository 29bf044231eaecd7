import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseNN
import SketchwisePhotos
import SketchwisePreprocess
import SketchwiseTransport

/// The parsers fed with arbitrary bytes: by the libFuzzer harness in `Fuzz/` (`scripts/fuzz.sh`)
/// and by the regression tests, which replay every input the fuzzer found. Each target reads the
/// bytes exactly as the product does (the same reader on a file of the format's extension, or the
/// same in-memory parser) and then uses what it got (a drawing is validated and simplified). A
/// target must never trap, whatever the bytes: errors are the expected answer to bad input.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON parser of request bodies and records.
    case json
    /// A Quick, Draw! `.ndjson` file, through ``SketchwiseFormats/DrawingSource``.
    case ndjson
    /// Google's binary `.bin` file of simplified Quick, Draw! drawings, through
    /// ``SketchwiseFormats/DrawingSource``.
    case quickDrawBinary = "quickdraw-bin"
    /// A `.npy` file (bitmaps, or object arrays of stroke-3 drawings).
    case npy
    /// A `.npz` file: the ZIP container and the arrays in it.
    case npz
    /// A `.npy` object array of Sketch-RNN stroke-3 drawings, in memory.
    case stroke3
    /// An Omniglot stroke file (`START`, `x,y,t`, `BREAK`).
    case omniglot
    /// A model's safetensors weights, beside a real spec.
    case safetensors
    /// A model's JSON spec, beside real weights.
    case modelSpec = "model-spec"
    /// The metadata of an SVG picture.
    case svgMetadata = "svg-metadata"
    /// A PNG or JPEG photo, decoded as `POST /api/photo` does: its centre square at the photo
    /// model's 256 pixels, within the default limits.
    case photo
    /// A client's bytes on a new connection, through the server's connection pipeline (the guard,
    /// the HTTP/1 decoder, the WebSocket handshake checks and upgrader); the first byte says where
    /// the rest is split into two reads.
    case connection

    /// The extension the file-based targets write their input with.
    var fileExtension: String? {
        switch self {
        case .ndjson: "ndjson"
        case .quickDrawBinary: "bin"
        case .npy: "npy"
        case .npz: "npz"
        case .omniglot: "txt"
        case .json, .stroke3, .safetensors, .modelSpec, .svgMetadata, .photo, .connection: nil
        }
    }

    /// What a target made of its input: how many things (values, drawings, models) it read,
    /// and the errors it refused the rest with.
    public struct Outcome: Sendable, Equatable {
        public var read = 0
        public var errors: [String] = []
    }

    /// Feeds `bytes` to the target's parser and uses what it returns.
    /// - Parameter scratch: a folder for the input files of file-based targets (best on tmpfs).
    /// - Parameter models: the models folder, for the real half of the model targets.
    @discardableResult
    public func run(_ bytes: UnsafeRawBufferPointer, scratch: URL, models: URL) -> Outcome {
        var outcome = Outcome()
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
                outcome.read += 1
            } catch {
                outcome.errors.append("\(error)")
            }
        }
        switch self {
        case .json:
            attempt { _ = try JSONValue.parse(bytes) }
        case .stroke3:
            attempt {
                let array = try NPYArray(npyBytes: Array(bytes))
                let elements = if case let .objects(objects) = array.storage { objects } else { [array] }
                for element in elements { try Self.use(StrokeSketch(stroke3: try element.stroke3Rows())) }
            }
        case .svgMetadata:
            attempt { _ = try ClipArtMetadata.parse(Array(bytes)) }
        case .connection:
            let bytes = Array(bytes)
            let split = bytes.first.map { Int($0) * max(1, bytes.count - 1) / 255 } ?? 0
            let answer = ConnectionFuzzing.feed(Array(bytes.dropFirst()), splits: [split])
            if answer.written.isEmpty { outcome.errors.append("nothing written") } else { outcome.read += 1 }
        case .photo:
            attempt { _ = try PhotoDecoder.decodeSquare(Array(bytes), side: Self.photoSide) }
        case .safetensors:
            attempt { try runModel(weights: bytes, spec: nil, scratch: scratch, models: models) }
        case .modelSpec:
            attempt { try runModel(weights: nil, spec: bytes, scratch: scratch, models: models) }
        case .ndjson, .quickDrawBinary, .npy, .npz, .omniglot:
            let file = scratch.appendingPathComponent("input.\(fileExtension!)")
            guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes)) else {
                outcome.errors.append("cannot write \(file.path)")
                break
            }
            do {
                try DrawingSource(path: file.path).forEach(onError: { outcome.errors.append("\($0)") }) { drawing in
                    do {
                        if case let .strokes(record) = drawing.content { try Self.use(record.drawing) }
                        outcome.read += 1
                    } catch {
                        outcome.errors.append("\(error)")
                    }
                }
            } catch {
                outcome.errors.append("\(error)")
            }
        }
        return outcome
    }

    /// The side of the square the `photo` target decodes: EfficientNet-Lite0's `resize`.
    static let photoSide = 256

    /// A small real model whose spec or weights the model targets replace.
    static let realModel = "raster-cnn-lite"

    /// Loads a model from a spec and weights, one of them the input, the other the real model's.
    private func runModel(weights: UnsafeRawBufferPointer?, spec: UnsafeRawBufferPointer?, scratch: URL, models: URL) throws {
        let specFile = scratch.appendingPathComponent("model.json")
        let weightsFile = scratch.appendingPathComponent("model.safetensors")
        let realSpec = models.appendingPathComponent("\(Self.realModel).json")
        let realWeights = models.appendingPathComponent("\(Self.realModel).safetensors")
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: specFile)
        try? fileManager.removeItem(at: weightsFile)
        if let spec {
            try Data(spec).write(to: specFile)
            try fileManager.createSymbolicLink(at: weightsFile, withDestinationURL: realWeights)
        }
        if let weights {
            try Data(weights).write(to: weightsFile)
            try fileManager.createSymbolicLink(at: specFile, withDestinationURL: realSpec)
        }
        _ = try Model(contentsOf: specFile)
    }

    /// What the product does with a drawing it read: validate and simplify it (an empty one is
    /// left as it is).
    static func use(_ sketch: StrokeSketch) throws {
        try sketch.validate()
        if !sketch.isEmpty { _ = try GoogleSimplifier().simplify(sketch) }
    }
}
