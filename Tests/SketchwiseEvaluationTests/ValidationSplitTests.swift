@testable import SketchwiseEvaluation
import SketchwiseCore
import SketchwiseFormats
import Testing

@Suite struct ValidationSplitTests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 1000), "291e9a6c66994949b57ba5e650361e98fc36b1ba"),
    ])
    func sha1MatchesTheStandardVectors(message: String, digest: String) {
        #expect(hex(SHA1.digest(Array(message.utf8))) == digest)
    }

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
        let npz = LabeledDrawing(label: "pig", content: .strokes(QuickDrawRecord(word: "pig", drawing: StrokeSketch())), origin: "z", arrayPosition: ("train", 5))
        #expect(ValidationSplit.isValidation(npz) == true)
        let unknown = LabeledDrawing(label: "pig", content: .strokes(QuickDrawRecord(word: "pig", drawing: StrokeSketch())), origin: "w")
        #expect(ValidationSplit.isValidation(unknown) == nil)
        #expect(ValidationSplit.contains(unknown, in: .validation))
        #expect(!ValidationSplit.contains(unknown, in: .training))
        #expect(!ValidationSplit.contains(stroke, in: .validation) && ValidationSplit.contains(stroke, in: .training))
    }
}
