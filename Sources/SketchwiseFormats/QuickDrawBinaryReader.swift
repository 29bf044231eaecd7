import Foundation
import SketchwiseCore

/// Reads Google's `.bin` drawings (``QuickDrawBinary``) one record at a time, in fixed-size
/// chunks, so files of any size stream in bounded memory: about one chunk plus the longest stroke
/// (at most 128 KiB), whatever the counts a record declares.
public struct QuickDrawBinaryReader {
    private let handle: FileHandle
    private let path: String
    private let word: String
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes dropped from the front of ``buffer`` so far.
    private var dropped = 0
    private var atEOF = false
    private var finished = false
    /// The 0-based index of the next record.
    public private(set) var recordIndex = 0
    /// The most bytes held in memory at once so far.
    public private(set) var peakBufferedBytes = 0

    /// Opens `path`; its records are of class `word` (the file name, as Google publishes them).
    public init(path: String, word: String, chunkSize: Int = 1 << 20) throws(FormatError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FormatError(file: path, reason: "cannot open for reading")
        }
        self.handle = handle
        self.path = path
        self.word = word
        self.chunkSize = max(chunkSize, 64)
    }

    /// The file offset of the next unread byte.
    public var offset: Int { dropped + start }

    /// The next record, nil at the end of the file. A record whose layout is sound but whose
    /// drawing is not (no strokes, a stroke of no points, over ``QuickDrawBinary/maximumPoints``
    /// points) is returned as a failure, and the next call reads the record after it.
    /// - Throws: ``FormatError`` naming the record and its byte offset when the file ends inside
    ///   a record; reading stops there (later calls return nil).
    public mutating func next() throws(FormatError) -> Result<QuickDrawRecord, FormatError>? {
        guard !finished else { return nil }
        let index = recordIndex, recordStart = offset
        func failure(_ reason: String) -> FormatError {
            FormatError(file: path, line: index + 1, reason: "drawing \(index) at byte \(recordStart): \(reason)")
        }
        func truncated(_ what: String) -> FormatError {
            finished = true
            return failure("the file ends at byte \(dropped + buffer.count), inside \(what)")
        }
        guard try available(QuickDrawBinary.headerSize) else {
            finished = true
            if start == buffer.count { return nil }
            throw truncated("the drawing's \(QuickDrawBinary.headerSize)-byte header")
        }
        let keyID = load(8), country = [buffer[start + 8], buffer[start + 9]], recognized = buffer[start + 10]
        let seconds = UInt32(load(4, at: 11)), strokeCount = Int(load(2, at: 15))
        start += QuickDrawBinary.headerSize
        recordIndex += 1

        var problem: String? = strokeCount == 0 ? "a drawing with no strokes" : nil
        var strokes: [Stroke] = []
        var points = 0
        for s in 0..<strokeCount {
            guard try available(2) else { throw truncated("stroke \(s) of \(strokeCount): its point count") }
            let count = Int(load(2))
            start += 2
            guard try available(2 * count) else {
                throw truncated("stroke \(s) of \(strokeCount), which declares \(count) points (\(2 * count) bytes)")
            }
            points += count
            if problem == nil, count == 0 { problem = "stroke \(s) has no points" }
            if problem == nil, points > QuickDrawBinary.maximumPoints {
                problem = "more than \(QuickDrawBinary.maximumPoints) points"
            }
            if problem == nil {
                var stroke: [Point] = []
                stroke.reserveCapacity(count)
                for i in 0..<count {
                    stroke.append(Point(x: Double(buffer[start + i]), y: Double(buffer[start + count + i])))
                }
                strokes.append(Stroke(points: stroke))
            }
            start += 2 * count
        }
        if let problem { return .failure(failure(problem)) }
        let countryCode = String(decoding: country.prefix { $0 != 0 }, as: UTF8.self)
        let record = QuickDrawRecord(
            word: word, countryCode: countryCode.isEmpty ? nil : countryCode,
            timestamp: QuickDrawBinary.timestamp(seconds: seconds), recognized: recognized != 0,
            keyID: String(keyID), drawing: StrokeSketch(strokes: strokes, label: word))
        return .success(record)
    }

    /// A little-endian unsigned integer of `byteCount` bytes at `start + offset`.
    private func load(_ byteCount: Int, at offset: Int = 0) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<byteCount).reversed() { value = value << 8 | UInt64(buffer[start + offset + i]) }
        return value
    }

    /// Whether `count` bytes are buffered from ``start``, reading more as needed.
    private mutating func available(_ count: Int) throws(FormatError) -> Bool {
        while buffer.count - start < count {
            guard !atEOF else { return false }
            try fill()
        }
        return true
    }

    private mutating func fill() throws(FormatError) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            dropped += start
            start = 0
        }
        do {
            if let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
                peakBufferedBytes = max(peakBufferedBytes, buffer.count)
            } else {
                atEOF = true
            }
        } catch {
            atEOF = true
            throw FormatError(file: path, reason: "read failed at byte \(offset): \(error.localizedDescription)")
        }
    }
}
