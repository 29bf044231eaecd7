import SketchwiseFormats
import SketchwisePreprocess

/// Simplifies every stroke drawing of a source the way Google made its "simplified" files and
/// writes the records, all other fields unchanged, as ndjson.
public enum SimplifyJob {
    public static func run(
        source: DrawingSource, writer: RecordWriter, policy: BadInputPolicy, progress: (Int) -> Void = { _ in }
    ) throws -> BatchReport {
        let simplifier = GoogleSimplifier()
        let report = try forEachDrawing(in: source, policy: policy, progress: progress) { drawing in
            guard case var .strokes(record) = drawing.content else {
                throw FormatError(file: drawing.origin, reason: "a bitmap has no strokes to simplify")
            }
            do {
                record.drawing = try simplifier.simplify(record.drawing)
            } catch {
                throw FormatError(file: drawing.origin, reason: "\(error)")
            }
            try writer.write(record)
        }
        try writer.finish()
        return report
    }
}
