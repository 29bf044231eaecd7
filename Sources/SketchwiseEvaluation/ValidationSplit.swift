import SketchwiseDigest
import SketchwiseFormats

/// The training split rule (training/sketchwise_data/quickdraw.py), so evaluation can keep to the
/// drawings the models never trained on. A drawing is in validation when the first 8 bytes of
/// SHA-1 of its key, read as a big-endian fraction of 2⁶⁴, are below 0.15. Keys: `key/<key_id>`
/// for stroke records (raw and simplified copies agree), `bitmap/<class>/<index>` for `.npy`
/// bitmaps, `npz/<array>/<class>/<index>` for `.npz` drawings, and `<folder>/<class>/<index>`
/// for ndjson or JSON-array records without a `key_id` (`simplified-extra/car/12` for the 13th
/// record of `quickdraw/simplified-extra/car.ndjson`; `record_split` in quickdraw.py).
public enum ValidationSplit {
    public static let fraction = 0.15

    /// Which drawings to evaluate.
    public enum Subset: String, Sendable, CaseIterable, Codable {
        /// Every drawing.
        case all
        /// Only drawings of the validation split (none the models trained on).
        case validation
        /// Only drawings of the training split.
        case training
    }

    /// Whether `drawing` belongs to the validation split; nil when it has no key the rule can use
    /// (no `key_id`, not from a NumPy file, no record index: an Omniglot drawing, say).
    public static func isValidation(_ drawing: LabeledDrawing) -> Bool? {
        guard let key = splitKey(drawing) else { return nil }
        return fraction(of: key) < Self.fraction
    }

    /// The text whose hash places `drawing` (see the type's documentation), or nil.
    public static func splitKey(_ drawing: LabeledDrawing) -> String? {
        if case let .strokes(record) = drawing.content, let key = record.keyID, !key.isEmpty { return "key/\(key)" }
        if let position = drawing.arrayPosition {
            return "\(position.array.map { "npz/\($0)" } ?? "bitmap")/\(drawing.label)/\(position.index)"
        }
        if case .strokes = drawing.content, let position = drawing.recordPosition {
            return "\(position.folder)/\(drawing.label)/\(position.index)"
        }
        return nil
    }

    /// Whether `drawing` is in `subset`; drawings without a split key count as validation
    /// (they come from outside the training data).
    public static func contains(_ drawing: LabeledDrawing, in subset: Subset) -> Bool {
        switch subset {
        case .all: true
        case .validation: isValidation(drawing) ?? true
        case .training: !(isValidation(drawing) ?? true)
        }
    }

    static func fraction(of text: String) -> Double {
        let digest = SHA1.digest(Array(text.utf8))
        let high = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(high) / 18_446_744_073_709_551_616.0
    }
}
