import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

@testable import SketchwiseEvaluation

@Suite struct ValidationSplitTests {
    /// The same fractions as Python's `int.from_bytes(sha1(key)[:8], "big") / 2**64`.
    @Test func fractionsMatchTheTrainingCode() {
        #expect(ValidationSplit.fraction(of: "key/4647694628814848") == 0.7860173788962698)
        #expect(ValidationSplit.fraction(of: "bitmap/cat/0") == 0.01188262565630851)
        #expect(ValidationSplit.fraction(of: "npz/train/pig/5") == 0.011005820961261193)
    }

    @Test func drawingsAreSplitByKeyIDOrArrayPosition() {
        let record = QuickDrawRecord(word: "cat", keyID: "4647694628814848", drawing: StrokeSketch())
        let stroke = LabeledDrawing(label: "cat", content: .strokes(record), origin: "x")
        #expect(ValidationSplit.isValidation(stroke) == false)
        let bitmap = LabeledDrawing(label: "cat", content: .bitmap(GrayImage(width: 28, height: 28)), origin: "y", arrayPosition: (nil, 0))
        #expect(ValidationSplit.isValidation(bitmap) == true)
        let npz = LabeledDrawing(
            label: "pig", content: .strokes(QuickDrawRecord(word: "pig", drawing: StrokeSketch())), origin: "z", arrayPosition: ("train", 5)
        )
        #expect(ValidationSplit.isValidation(npz) == true)
        let unknown = LabeledDrawing(label: "pig", content: .strokes(QuickDrawRecord(word: "pig", drawing: StrokeSketch())), origin: "w")
        #expect(ValidationSplit.isValidation(unknown) == nil)
        #expect(ValidationSplit.contains(unknown, in: .validation))
        #expect(!ValidationSplit.contains(unknown, in: .training))
        #expect(!ValidationSplit.contains(stroke, in: .validation) && ValidationSplit.contains(stroke, in: .training))
    }

    /// Records without `key_id` (`quickdraw/simplified-extra`) are split by
    /// `<folder>/<class>/<index>`, as `record_split` in training/sketchwise_data/quickdraw.py.
    @Test func recordsWithoutKeyIDAreSplitByFolderClassAndIndex() throws {
        let record = try QuickDrawRecord(
            json: Data(#"{"word":"car","countrycode":"AF","drawing":[[[59,134,190],[201,212,204]],[[67,66],[99,58]]]}"#.utf8))
        #expect(record.keyID == nil && record.timestamp == nil && record.recognized == nil && record.countryCode == "AF")
        #expect(record.drawing.strokes.count == 2)
        #expect(ValidationSplit.fraction(of: "simplified-extra/car/12") == 0.16033756980983704)
        let twelfth = LabeledDrawing(label: "car", content: .strokes(record), origin: "a", recordPosition: ("simplified-extra", 12))
        #expect(ValidationSplit.splitKey(twelfth) == "simplified-extra/car/12" && ValidationSplit.isValidation(twelfth) == false)
        let fifteenth = LabeledDrawing(label: "car", content: .strokes(record), origin: "b", recordPosition: ("simplified-extra", 15))
        #expect(ValidationSplit.isValidation(fifteenth) == true, "fraction 0.0706")
        var keyed = record
        keyed.keyID = "4647694628814848"
        let withKey = LabeledDrawing(label: "car", content: .strokes(keyed), origin: "c", recordPosition: ("simplified-extra", 15))
        #expect(ValidationSplit.splitKey(withKey) == "key/4647694628814848", "a key_id keeps the key rule")

        // Read from a file: the folder's name and the index among the non-blank lines.
        let folder = TemporaryFolder()
        let extra = folder.url.appendingPathComponent("simplified-extra")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        let line = #"{"word":"car","countrycode":"AF","drawing":[[[0,10],[0,10]]]}"#
        try [line, "", line, line].joined(separator: "\n").write(
            to: extra.appendingPathComponent("car.ndjson"), atomically: true, encoding: .utf8)
        var keys: [String?] = []
        try DrawingSource(path: extra.path).forEach(onError: { throw $0 }) { keys.append(ValidationSplit.splitKey($0)) }
        #expect(keys == ["simplified-extra/car/0", "simplified-extra/car/1", "simplified-extra/car/2"])
    }

    /// The shared extra drawings of cars: every record reads, none has a key_id, and the split
    /// matches the training code's count (computed with quickdraw.record_split).
    @Test func theSharedExtraCarsReadAndSplitAsInTraining() throws {
        let path = SharedData.quickDraw("simplified-extra/car.ndjson").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("skipped: \(path) not found (the extra simplified drawings of ../shared/data)")
            return
        }
        var (count, withKey, validation) = (0, 0, 0)
        try DrawingSource(path: path).forEach(onError: { throw $0 }) { drawing in
            guard case let .strokes(record) = drawing.content else { return }
            count += 1
            if record.keyID != nil { withKey += 1 }
            if ValidationSplit.isValidation(drawing) == true { validation += 1 }
        }
        print("simplified-extra/car.ndjson: \(count) drawings, \(validation) in validation")
        #expect(count > 10_000 && withKey == 0)
        if count == 10_474 { #expect(validation == 1_615) }
        #expect(abs(Double(validation) / Double(count) - ValidationSplit.fraction) < 0.02)
    }
}
