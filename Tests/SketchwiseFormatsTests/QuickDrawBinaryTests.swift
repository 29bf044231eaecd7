import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

/// Google's binary `.bin` format of simplified drawings: the layout, round trips, and every way a
/// file can be cut short or lie about its counts.
@Suite struct QuickDrawBinaryTests {
    let folder = TemporaryFolder()

    func record(_ key: String, strokes: [[(Double, Double)]], word: String = "cat") -> QuickDrawRecord {
        let sketch = StrokeSketch(strokes: strokes.map { Stroke(points: $0.map { Point(x: $0.0, y: $0.1) }) })
        return QuickDrawRecord(
            word: word, countryCode: "DE", timestamp: "2017-03-08 21:12:07 UTC", recognized: true,
            keyID: key, drawing: sketch)
    }

    func write(_ records: [QuickDrawRecord], to name: String) throws -> String {
        let path = folder.path(name)
        let writer = try QuickDrawBinaryWriter(path: path)
        for record in records { try writer.write(record) }
        try writer.finish()
        return path
    }

    /// Every drawing of `path` and the errors skipped, as ``DrawingSourceTests`` reads them.
    func collect(_ path: String, skipBad: Bool) throws -> (drawings: [LabeledDrawing], errors: [FormatError]) {
        try DrawingSourceTests().collect(path, skipBad: skipBad)
    }

    /// The bytes of one record written by hand: header, then each stroke's count, xs and ys.
    func rawRecord(strokeCount: UInt16, strokes: [[UInt8]] = [], declaredPoints: [UInt16]? = nil) -> [UInt8] {
        var bytes: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0, 0x55, 0x53, 1, 0, 0, 0, 0]
        bytes += [UInt8(strokeCount & 0xFF), UInt8(strokeCount >> 8)]
        for (i, stroke) in strokes.enumerated() {
            let count = declaredPoints?[i] ?? UInt16(stroke.count / 2)
            bytes += [UInt8(count & 0xFF), UInt8(count >> 8)] + stroke
        }
        return bytes
    }

    @Test func aRecordIsWrittenInGooglesLittleEndianLayout() throws {
        let bytes = try QuickDrawBinary.encode(record("258", strokes: [[(1, 2), (3, 4)]]))
        #expect(bytes == [2, 1, 0, 0, 0, 0, 0, 0, 0x44, 0x45, 1, 0xA7, 0x73, 0xC0, 0x58, 1, 0, 2, 0, 1, 3, 2, 4])
    }

    @Test func recordsRoundTripThroughTheWriterAndTheReaderWithTheirClassFromTheFileName() throws {
        let records = [
            record("5152802093400064", strokes: [[(0, 0), (255, 10), (30, 255)], [(7, 8)]]),
            record("18446744073709551615", strokes: [[(1, 1), (2, 2)]]),
        ]
        let path = try write(records, to: "cat.bin")
        let (drawings, errors) = try collect(path, skipBad: false)
        #expect(errors.isEmpty)
        #expect(drawings.count == 2)
        #expect(drawings.map(\.label) == ["cat", "cat"])
        #expect(drawings[1].origin == "\(path)#1")
        #expect(drawings[1].recordPosition?.index == 1)
        for (drawing, original) in zip(drawings, records) {
            guard case let .strokes(read) = drawing.content else { Issue.record("expected strokes"); continue }
            #expect(read == original)
        }
    }

    @Test func timestampsKeepWholeSecondsOfGooglesForm() {
        #expect(QuickDrawBinary.seconds(fromTimestamp: "2017-03-08 21:12:07.26604 UTC") == 1_489_007_527)
        #expect(QuickDrawBinary.timestamp(seconds: 1_489_007_527) == "2017-03-08 21:12:07 UTC")
        #expect(QuickDrawBinary.timestamp(seconds: 0) == "1970-01-01 00:00:00 UTC")
        #expect(QuickDrawBinary.timestamp(seconds: UInt32.max) == "2106-02-07 06:28:15 UTC")
        #expect(QuickDrawBinary.seconds(fromTimestamp: "yesterday") == nil)
        #expect(QuickDrawBinary.seconds(fromTimestamp: "1969-12-31 23:59:59 UTC") == nil)
    }

    @Test func drawingsTheFormatCannotHoldAreRefusedWhenWriting() throws {
        #expect(throws: RecordError.self) { try QuickDrawBinary.encode(record("1", strokes: [[(300, 0)]])) }
        #expect(throws: RecordError.self) { try QuickDrawBinary.encode(record("1", strokes: [[(1.5, 0)]])) }
        #expect(throws: RecordError.self) { try QuickDrawBinary.encode(record("1", strokes: [[(-1, 0)]])) }
        #expect(throws: RecordError.self) { try QuickDrawBinary.encode(record("1", strokes: [])) }
        #expect(throws: RecordError.self) { try QuickDrawBinary.encode(record("1", strokes: [[]])) }
        let writer = try QuickDrawBinaryWriter(path: folder.path("x.bin"))
        let error = try #require(throws: FormatError.self) { try writer.write(record("1", strokes: [[(256, 0)]])) }
        #expect(error.description.contains("x.bin:1: drawing 0: stroke 0 holds 256.0"))
    }

    @Test func aFileCutAtEveryByteGivesAnErrorWithTheByteOffsetNotATrap() throws {
        let whole =
            try QuickDrawBinary.encode(record("1", strokes: [[(1, 2), (3, 4)], [(5, 6)]]))
            + QuickDrawBinary.encode(record("2", strokes: [[(9, 9)]]))
        let firstEnd = whole.count - (QuickDrawBinary.headerSize + 4)
        for length in 0..<whole.count {
            let path = folder.path("cut.bin")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(whole.prefix(length))))
            let complete = length >= firstEnd ? 1 : 0
            if length == 0 || length == firstEnd {
                #expect(try collect(path, skipBad: false).drawings.count == complete)
                continue
            }
            let error = try #require(throws: FormatError.self) { try collect(path, skipBad: false) }
            let start = complete == 1 ? firstEnd : 0
            #expect(
                error.description.hasPrefix(
                    "\(path):\(complete + 1): drawing \(complete) at byte \(start): the file ends at byte \(length), inside "),
                "\(error)")
            let skipped = try collect(path, skipBad: true)
            #expect(skipped.drawings.count == complete && skipped.errors.count == 1)
        }
    }

    @Test func aHugeDeclaredCountIsATruncationNotAnAllocation() throws {
        let path = folder.path("huge.bin")
        let bytes = rawRecord(strokeCount: .max, strokes: [[1, 2, 3, 4]], declaredPoints: [.max])
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let error = try #require(throws: FormatError.self) { try collect(path, skipBad: false) }
        #expect(
            error.reason
                == "drawing 0 at byte 0: the file ends at byte 23, inside stroke 0 of 65535, which declares 65535 points (131070 bytes)")
    }

    @Test func recordsWithNoStrokesOrAnEmptyStrokeAreSkippedAndReadingGoesOn() throws {
        let path = folder.path("bad.bin")
        let bytes =
            rawRecord(strokeCount: 0) + rawRecord(strokeCount: 2, strokes: [[1, 2], []])
            + rawRecord(strokeCount: 1, strokes: [[10, 20, 30, 40]])
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(throws: FormatError(file: path, line: 1, reason: "drawing 0 at byte 0: a drawing with no strokes")) {
            try collect(path, skipBad: false)
        }
        let (drawings, errors) = try collect(path, skipBad: true)
        #expect(errors.map(\.reason) == ["drawing 0 at byte 0: a drawing with no strokes", "drawing 1 at byte 17: stroke 1 has no points"])
        #expect(drawings.count == 1 && drawings[0].origin == "\(path)#2")
        guard case let .strokes(read) = drawings.first?.content else { Issue.record("expected strokes"); return }
        #expect(read.drawing.strokes[0].points == [Point(x: 10, y: 30), Point(x: 20, y: 40)])
        #expect(read.countryCode == "US" && read.keyID == "1" && read.recognized == true)
    }

    @Test func aFileOfThousandsOfDrawingsIsReadLazilyInBoundedMemory() throws {
        let stroke = (0..<20).map { (Double($0), Double(255 - $0)) }
        let records = (0..<5000).map { record("\($0)", strokes: [stroke, stroke, stroke]) }
        let path = try write(records, to: "many.bin")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size == 5000 * (QuickDrawBinary.headerSize + 3 * 42))
        var reader = try QuickDrawBinaryReader(path: path, word: "many", chunkSize: 4096)
        _ = try reader.next()
        #expect(reader.peakBufferedBytes <= 4096)
        var count = 1
        while let result = try reader.next() {
            if case .failure = result { Issue.record("a record failed") }
            count += 1
        }
        #expect(count == 5000)
        #expect(reader.offset == size)
        #expect(reader.peakBufferedBytes < 8192)
    }

    @Test func aFolderOfBinFilesIsReadBesideOtherFormats() throws {
        _ = try write([record("1", strokes: [[(1, 1)]])], to: "dog.bin")
        try #"{"word":"cat","drawing":[[[1,2],[3,4]]]}"#.write(toFile: folder.path("cat.ndjson"), atomically: true, encoding: .utf8)
        #expect(try collect(folder.url.path, skipBad: false).drawings.map(\.label) == ["cat", "dog"])
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func googlesSimplifiedDrawingsRoundTripThroughBin() throws {
        let records = try collect(SharedData.quickDraw("simplified/cat.ndjson").path, skipBad: false).drawings.compactMap { drawing in
            if case let .strokes(record) = drawing.content { record } else { nil }
        }
        #expect(records.count > 10)
        let path = try write(records, to: "cat.bin")
        let read = try collect(path, skipBad: false).drawings
        #expect(read.count == records.count)
        for (drawing, original) in zip(read, records) {
            guard case let .strokes(back) = drawing.content else { Issue.record("expected strokes"); continue }
            #expect(back.drawing.strokes == original.drawing.strokes && back.keyID == original.keyID)
            #expect(back.countryCode == original.countryCode && back.recognized == original.recognized)
        }
    }
}
