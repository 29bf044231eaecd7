import Foundation

/// The spec of a model: the `<name>.json` file of docs/model-format.md.
public struct ModelSpec: Sendable, Decodable {
    /// Always `"sketchwise-model"`.
    public let format: String
    /// The format version (1).
    public let formatVersion: Int
    public let name: String
    public let version: String
    public let description: String?
    public let input: InputSpec
    /// One label per logit.
    public let labels: [String]
    public let outputs: OutputNames
    public let layers: [LayerSpec]
    /// Free-form training notes, kept as read.
    let training: JSONValue?
    /// When an embedding's personal shortcuts answer unknown, if the spec says.
    public let shortcuts: ShortcutCalibrationSpec?

    /// The labels the model was trained on, as its `training.labels` lists them (an embedding
    /// model's classes; empty when not listed).
    public var trainedLabels: Set<String> { trainingStrings("labels") }

    /// The labels the model's choices were made on, as its `training.validationLabels` lists
    /// them (labels it was not trained on, kept out of the few-shot test; empty when not listed).
    public var validationLabels: Set<String> { trainingStrings("validationLabels") }

    /// The strings of the list `training.<key>` (empty when there is none).
    private func trainingStrings(_ key: String) -> Set<String> {
        guard case let .object(members)? = training, case let .array(values)? = members[key] else { return [] }
        return Set(values.compactMap { if case let .string(value) = $0 { value } else { nil } })
    }
}

/// The spec's `shortcuts`: when an embedding's personal shortcuts answer unknown
/// (docs/shortcuts.md, `sketchwise_training.shortcut_calibration`).
public struct ShortcutCalibrationSpec: Sendable, Decodable, Equatable {
    /// The farthest cosine distance a query's nearest example may be for its label to answer,
    /// for a label of 1, 2, … examples (more use the last).
    public let unknownDistances: [Float]
}

/// What the model takes and how a drawing is turned into it. The runtime decodes and validates
/// this recipe with the rest of the spec, so that a bad one fails at load naming the file, but
/// applies none of it: Recognition, the library and photos turn drawings and photos into inputs.
public struct InputSpec: Sendable, Decodable {
    /// The input encoding and its preprocessing parameters.
    public enum Kind: Sendable, Equatable {
        /// A rendered image `[channels, size, size]`, one plane per raster channel.
        case raster(RasterInput)
        /// A `(Δx, Δy, pen-up)` sequence `[T, 3]`, `1 ≤ T ≤ maxLength`, fed unpadded.
        case strokes(StrokeInput)
        /// A photo `[3, size, size]` (RGB planes), scaled, centre-cropped and normalised as
        /// `ImageInput` says. Such a model classifies photos, not drawings.
        case image(ImageInput)
    }

    public let kind: Kind
    /// The input shape; for strokes the length dimension is the maximum length.
    public let shape: Shape
    /// The views of a drawing whose answers are averaged (test-time augmentation); the first
    /// view gives the embedding. `[.original]` when the spec names none.
    public let views: [InputView]
    /// Angles in degrees (clockwise on screen) at which a drawing is turned for its embedding,
    /// which is the L2-normalised mean of the turned drawings' embeddings (test-time
    /// augmentation of an embedding). Raster inputs only; `[0]` when the spec names none. A
    /// bitmap, having no strokes to turn, is embedded as it is.
    public let embeddingRotations: [Double]

    private enum CodingKeys: String, CodingKey { case kind, shape, raster, strokes, image, views, embeddingRotations }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kindName = try container.decode(String.self, forKey: .kind)
        let dims = try container.decodeIfPresent([Int?].self, forKey: .shape)
        views = try container.decodeIfPresent([InputView].self, forKey: .views) ?? [.original]
        guard !views.isEmpty, Set(views).count == views.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .views, in: container, debugDescription: "views must list each view at most once, and at least one")
        }
        embeddingRotations = try container.decodeIfPresent([Double].self, forKey: .embeddingRotations) ?? [0]
        guard !embeddingRotations.isEmpty, Set(embeddingRotations).count == embeddingRotations.count,
            embeddingRotations.allSatisfy({ $0.magnitude <= 180 }), kindName == "raster" || embeddingRotations == [0]
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .embeddingRotations, in: container,
                debugDescription:
                    "embeddingRotations must list distinct angles within ±180 degrees, at least one, and only for raster inputs")
        }
        func invalid(_ message: String) -> DecodingError {
            .dataCorruptedError(forKey: .shape, in: container, debugDescription: message)
        }
        switch kindName {
        case "raster":
            let raster = try container.decode(RasterInput.self, forKey: .raster)
            guard (1...4096).contains(raster.size) else { throw invalid("raster.size must be in 1...4096") }
            kind = .raster(raster)
            let planes = raster.channels.count
            shape = .image(channels: planes, height: raster.size, width: raster.size)
            if let dims, dims != [planes, raster.size, raster.size] {
                throw invalid("must be [\(planes), \(raster.size), \(raster.size)] for \(planes) raster channel(s) of size \(raster.size)")
            }
        case "strokes":
            let strokes = try container.decode(StrokeInput.self, forKey: .strokes)
            guard (1...65536).contains(strokes.maxLength) else { throw invalid("strokes.maxLength must be in 1...65536") }
            kind = .strokes(strokes)
            shape = .sequence(length: strokes.maxLength, channels: 3)
            if let dims,
                dims.count != 2 || dims[1] != 3
                    || !(dims[0] == nil || dims[0] == -1 || dims[0] == strokes.maxLength)
            {
                throw invalid("must be [\(strokes.maxLength), 3] (or [null, 3]) for strokes")
            }
        case "image":
            let image = try container.decode(ImageInput.self, forKey: .image)
            kind = .image(image)
            shape = .image(channels: 3, height: image.size, width: image.size)
            if let dims, dims != [3, image.size, image.size] {
                throw invalid("must be [3, \(image.size), \(image.size)] for an RGB image of size \(image.size)")
            }
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container, debugDescription: "unknown input kind '\(kindName)' (raster, strokes, image)")
        }
    }

    /// The longest sequence the model accepts, or nil for fixed-size inputs.
    public var maxLength: Int? {
        if case let .strokes(strokes) = kind { return strokes.maxLength }
        return nil
    }
}

/// A way of looking at a drawing before it goes into the model.
public enum InputView: String, Sendable, Hashable, Decodable {
    /// The drawing as drawn.
    case original
    /// Its left-right mirror image: the image's columns reversed, or every Δx negated.
    case mirrored
}

/// One plane of a raster input.
public enum RasterChannel: String, Sendable, Hashable, Decodable {
    /// Every stroke drawn opaque: the plain rendering.
    case ink
    /// Strokes shaded by their order: the first opaque, the last at opacity 0.25, linearly between.
    /// A bitmap has no stroke order: a model with this plane takes no bitmaps or pictures.
    case order
}

/// Rendering parameters of a raster input.
public struct RasterInput: Sendable, Equatable, Decodable {
    /// Width and height in pixels.
    public let size: Int
    /// The rendering recipe (`"quickdraw"`).
    public let recipe: String
    /// Factor applied to pixel values 0…255.
    public let scale: Double
    /// The planes, in order; `[.ink]` when the spec names none.
    public let channels: [RasterChannel]

    public init(size: Int, recipe: String, scale: Double, channels: [RasterChannel] = [.ink]) {
        self.size = size
        self.recipe = recipe
        self.scale = scale
        self.channels = channels
    }

    private enum CodingKeys: String, CodingKey { case size, recipe, scale, channels }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Int.self, forKey: .size)
        recipe = try container.decode(String.self, forKey: .recipe)
        scale = try container.decode(Double.self, forKey: .scale)
        channels = try container.decodeIfPresent([RasterChannel].self, forKey: .channels) ?? [.ink]
        guard !channels.isEmpty, Set(channels).count == channels.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .channels, in: container, debugDescription: "raster.channels must list each channel at most once, and at least one")
        }
    }
}

/// How a photo becomes the model's input: scaled (keeping its aspect ratio) so that its shorter
/// side is `resize` pixels, the centre `size`×`size` square cut out, and each 8-bit RGB value `v`
/// of channel `c` fed as `(v / 255 − mean[c]) / std[c]`.
public struct ImageInput: Sendable, Equatable, Decodable {
    /// Width and height of the input in pixels.
    public let size: Int
    /// The shorter side after scaling, at least `size`.
    public let resize: Int
    /// Per-channel mean and standard deviation (R, G, B) on the 0…1 scale.
    public let mean: [Double]
    public let std: [Double]

    public init(size: Int, resize: Int, mean: [Double], std: [Double]) {
        (self.size, self.resize, self.mean, self.std) = (size, resize, mean, std)
    }

    private enum CodingKeys: String, CodingKey { case size, resize, mean, std }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Int.self, forKey: .size)
        resize = try container.decodeIfPresent(Int.self, forKey: .resize) ?? size
        mean = try container.decode([Double].self, forKey: .mean)
        std = try container.decode([Double].self, forKey: .std)
        guard (1...4096).contains(size), (size...8192).contains(resize) else {
            throw DecodingError.dataCorruptedError(
                forKey: .size, in: container, debugDescription: "image.size must be in 1...4096 and image.resize in size...8192")
        }
        guard mean.count == 3, std.count == 3, (mean + std).allSatisfy(\.isFinite), std.allSatisfy({ $0 > 0 }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .mean, in: container, debugDescription: "image.mean and image.std must have 3 finite values each, std positive")
        }
    }
}

/// Encoding parameters of a stroke-sequence input.
public struct StrokeInput: Sendable, Equatable, Decodable {
    /// How coordinates are normalised to 0…1.
    public enum Normalization: String, Sendable, Decodable {
        case perAxis, uniform
    }

    /// The most rows the model takes; longer drawings are cut.
    public let maxLength: Int
    public let normalization: Normalization
}

/// Which layers hold the outputs.
public struct OutputNames: Sendable, Decodable {
    /// The layer whose output is the class scores, before softmax; nil for an embedding-only
    /// model (no labels), which must then name its embedding.
    public let logits: String?
    /// The layer whose output is the embedding, if any.
    public let embedding: String?
}

/// One entry of `layers`.
public struct LayerSpec: Sendable, Decodable {
    public let name: String
    public let type: String
    /// The layers read (earlier names or `"input"`); nil means the previous layer.
    public let inputs: [String]?
    let params: JSONValue?
    /// Weight role (`weight`, `gamma`, ...) → tensor name in the weights file.
    public let weights: [String: String]?
}
