import Foundation
import SketchwiseConversion
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

@Suite struct ConversionJobTests {
    let folder = TemporaryFolder()

    func writeInput(_ lines: [String]) throws -> String {
        let path = folder.path("cat.ndjson")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let good =
        #"{"word":"cat","countrycode":"DE","recognized":false,"key_id":"42","drawing":[[[10,400,400],[10,10,300],[0,50,99]]],"note":"kept"}"#
    let bad = #"{"word":"cat","drawing":[[[10,400],[10]]]}"#
    let empty = #"{"word":"cat","drawing":[]}"#

    @Test func simplifyWritesGoogleFormatAndKeepsEveryOtherField() throws {
        let input = try writeInput([good])
        let output = folder.path("out.ndjson")
        let report = try SimplifyJob.run(
            source: DrawingSource(path: input), writer: RecordWriter(.file(output)), policy: BadInputPolicy(skipBad: false))
        #expect(
            report
                == {
                    var r = BatchReport(); r.processed = 1; return r
                }())
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(
            text == #"{"word":"cat","countrycode":"DE","recognized":false,"key_id":"42","drawing":[[[0,255,255],[0,0,190]]],"note":"kept"}"#
                + "\n")
    }

    @Test func badAndEmptyDrawingsStopTheJobOrAreSkippedAndCounted() throws {
        let input = try writeInput([good, bad, empty, good])
        let output = folder.path("out.ndjson")
        #expect(throws: FormatError.self) {
            try SimplifyJob.run(
                source: DrawingSource(path: input), writer: RecordWriter(.file(output)), policy: BadInputPolicy(skipBad: false))
        }
        let skippedLines = LockedLines()
        let report = try SimplifyJob.run(
            source: DrawingSource(path: input), writer: RecordWriter(.file(output)),
            policy: BadInputPolicy(skipBad: true) { skippedLines.append($0.description) })
        #expect(report.processed == 2 && report.skipped == 2)
        #expect(skippedLines.lines.count == 2)
        #expect(skippedLines.lines[0].contains("cat.ndjson:2:"))
        #expect(skippedLines.lines[1].contains("cat.ndjson:3"))
        #expect(skippedLines.lines[1].contains("no points"))
        #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test func renderWritesANumpyBitmapFileWithLabels() throws {
        let input = try writeInput([good, good, good])
        let output = folder.path("cats.npy")
        let report = try RenderJob.run(
            source: DrawingSource(path: input), size: 28, output: .npy(output), policy: BadInputPolicy(skipBad: false))
        #expect(report.processed == 3)
        let array = try NPYArray(contentsOf: output)
        #expect(array.shape == [3, 784])
        #expect(array.elementType == .uint8)
        #expect(try String(contentsOfFile: folder.path("cats.labels.txt"), encoding: .utf8) == "cat\ncat\ncat\n")
    }

    @Test func renderWritesPNGsPerClassAndRefusesBitmapsOfAnotherSize() throws {
        let input = try writeInput([good, good])
        _ = try RenderJob.run(
            source: DrawingSource(path: input), size: 64, output: .pngFolder(folder.path("png")), invert: true,
            policy: BadInputPolicy(skipBad: false))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("png/cat")).sorted() == ["00000.png", "00001.png"])
        try NPYArray(shape: [1, 784], elementType: .uint8, bytes: [UInt8](repeating: 0, count: 784)).write(to: folder.path("b.npy"))
        #expect(throws: FormatError.self) {
            try RenderJob.run(
                source: DrawingSource(path: folder.path("b.npy")), size: 64, output: .npy(folder.path("x.npy")),
                policy: BadInputPolicy(skipBad: false))
        }
    }

    @Test func summaryCountsDrawingsStrokesAndPoints() throws {
        let input = try writeInput([good, good, #"{"word":"dog","drawing":[[[1],[2]],[[3,4],[5,6]]]}"#])
        let summary = try CollectionSummary.of(DrawingSource(path: input), policy: BadInputPolicy(skipBad: false))
        #expect(summary.totalDrawings == 3)
        #expect(summary.classes["cat"]?.points == 6)
        #expect(summary.classes["cat"]?.withTimestamps == 2)
        #expect(summary.classes["dog"]?.meanStrokesPerDrawing == 2)
        #expect(summary.table.contains("TOTAL (2 classes)\t3\t0"))
    }
}

/// Collects lines from a `@Sendable` callback.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}
