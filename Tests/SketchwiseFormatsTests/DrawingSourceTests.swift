import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseTestSupport
import Synchronization
import Testing

@Suite struct DrawingSourceTests {
    func collect(_ path: String, skipBad: Bool) throws -> (drawings: [LabeledDrawing], errors: [FormatError]) {
        var drawings: [LabeledDrawing] = []
        var errors: [FormatError] = []
        try DrawingSource(path: path).forEach(onError: { error in
            guard skipBad else { throw error }
            errors.append(error)
        }) { drawings.append($0) }
        return (drawings, errors)
    }

    @Test func aFolderOfMixedFormatsIsReadInNameOrderWithClassesFromFileNames() throws {
        let folder = TemporaryFolder()
        try #"{"word":"cat","drawing":[[[1,2],[3,4]]]}"#.appending("\n\n").write(
            toFile: folder.path("a.ndjson"), atomically: true, encoding: .utf8)
        try #"[{"drawing":[[[1],[2]]]},{"word":"dog","drawing":[]}]"#.write(
            toFile: folder.path("b tree.json"), atomically: true, encoding: .utf8)
        try NPYArray(shape: [3, 784], elementType: .uint8, bytes: [UInt8](repeating: 7, count: 3 * 784)).write(to: folder.path("c.npy"))
        try "START\n1,2,0\nBREAK\n".write(toFile: folder.path("d.txt"), atomically: true, encoding: .utf8)
        try "ignored".write(toFile: folder.path("notes.md"), atomically: true, encoding: .utf8)
        let (drawings, _) = try collect(folder.url.path, skipBad: false)
        #expect(drawings.map(\.label).prefix(6) == ["cat", "b tree", "dog", "c", "c", "c"])
        #expect(drawings.count == 7)
        if case let .bitmap(image) = drawings[3].content {
            #expect(image.width == 28 && image.height == 28 && image.pixels[0] == 7)
        } else {
            Issue.record("expected a bitmap")
        }
        #expect(drawings[0].origin.hasSuffix("a.ndjson:1"))
    }

    /// `render --npy NAME.npy` writes each row's class to `NAME.labels.txt`: read back, the rows
    /// have those classes (not the file name), and the labels file is no drawing of its own.
    @Test func aNPYsLabelsFileNamesEachRowsClass() throws {
        let folder = TemporaryFolder()
        try NPYArray(shape: [3, 784], elementType: .uint8, bytes: [UInt8](repeating: 9, count: 3 * 784)).write(to: folder.path("three.npy"))
        try "cat\ndog\napple\n".write(toFile: folder.path("three.labels.txt"), atomically: true, encoding: .utf8)
        #expect(try collect(folder.url.path, skipBad: false).drawings.map(\.label) == ["cat", "dog", "apple"])
        try "cat\ndog\n".write(toFile: folder.path("three.labels.txt"), atomically: true, encoding: .utf8)
        let reason = "2 labels for the 3 drawings of \(folder.path("three.npy")): one line per drawing"
        #expect(throws: FormatError(file: folder.path("three.labels.txt"), reason: reason)) {
            try collect(folder.path("three.npy"), skipBad: false)
        }
    }

    @Test func badLinesStopTheReadOrAreSkippedAndCountedWithTheirLine() throws {
        let folder = TemporaryFolder()
        let path = folder.path("cat.ndjson")
        try """
        {"word":"cat","drawing":[[[1,2],[3,4]]]}
        {"word":"cat","drawing":[[[1,2],[3]]]}
        not json
        {"word":"cat","drawing":[[[5],[6]]]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: FormatError(file: path, line: 2, reason: "stroke 0: stroke arrays differ in length: x has 2 values, y has 1")) {
            try collect(path, skipBad: false)
        }
        let (drawings, errors) = try collect(path, skipBad: true)
        #expect(drawings.count == 2)
        #expect(errors.map(\.line) == [2, 3])
        #expect(errors[1].description.hasPrefix("\(path):3: not a JSON object"))
    }

    @Test func unknownFilesAndEmptyFoldersAreClearErrors() throws {
        let folder = TemporaryFolder()
        #expect(throws: FormatError.self) { try DrawingSource(path: folder.url.path) }
        try "x".write(toFile: folder.path("a.csv"), atomically: true, encoding: .utf8)
        #expect(throws: FormatError.self) { try DrawingSource(path: folder.path("a.csv")) }
        #expect(throws: FormatError.self) { try DrawingSource(path: folder.path("missing.ndjson")) }
    }

    @Test func bitmapsOfTheWrongTypeAreRejected() throws {
        let folder = TemporaryFolder()
        try NPYArray(shape: [2, 5], elementType: .float32, bytes: [UInt8](repeating: 0, count: 40)).write(to: folder.path("x.npy"))
        #expect(throws: FormatError.self) { try collect(folder.path("x.npy"), skipBad: false) }
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func readsEveryFormatOfTheSharedData() throws {
        let raw = try collect(SharedData.quickDraw("raw/cat.ndjson").path, skipBad: false).drawings
        #expect(raw.count > 10)
        guard case let .strokes(record) = raw[0].content else { Issue.record("no strokes"); return }
        #expect(record.drawing.strokes.allSatisfy { $0.hasTimestamps })
        let omniglot = try collect(SharedData.omniglot("strokes_background_small1.zip").path, skipBad: false).drawings
        #expect(omniglot.count == 2720)
        #expect(omniglot[0].label == "Balinese/character01")
        let sketchRNN = try collect(SharedData.quickDraw("sketchrnn/radio.npz").path, skipBad: false).drawings
        #expect(sketchRNN.count > 2000)
        #expect(sketchRNN.allSatisfy { $0.label == "radio" })
    }

    @Test func aBadInputPolicySkipsAndReportsOrThrows() throws {
        let error = FormatError(file: "a.ndjson", reason: "broken")
        let reported = Mutex<[String]>([])
        try BadInputPolicy(skipBad: true) { skipped in reported.withLock { $0.append(skipped.description) } }.skip(error)
        #expect(reported.withLock { $0 } == [error.description])
        #expect(throws: FormatError.self) { try BadInputPolicy(skipBad: false).skip(error) }
    }
}
