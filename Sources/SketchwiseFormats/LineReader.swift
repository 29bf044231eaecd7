import Foundation

/// Reads a file line by line in fixed-size chunks, so files of any size stream in bounded memory.
public struct LineReader {
    /// Lines longer than this are reported as errors instead of being buffered without end.
    public static let maximumLineLength = 16 << 20

    private let handle: FileHandle
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline resumes (bytes before it hold none).
    private var scanFrom = 0
    private var atEOF = false
    /// The 1-based number of the line returned last.
    public private(set) var lineNumber = 0
    /// The most bytes held in memory at once so far (about one chunk plus the longest line).
    public private(set) var peakBufferedBytes = 0

    public init(path: String) throws(FormatError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FormatError(file: path, reason: "cannot open for reading")
        }
        self.handle = handle
        self.path = path
    }

    /// The next line without its terminator (`\n` or `\r\n`), or nil at the end of the file.
    public mutating func next() throws(FormatError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[scanFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                scanFrom = start
                return line
            }
            if atEOF {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = buffer[start...]
                start = buffer.count
                scanFrom = start
                return line
            }
            guard buffer.count - start <= Self.maximumLineLength else {
                throw FormatError(file: path, line: lineNumber + 1,
                                  reason: "line longer than \(Self.maximumLineLength >> 20) MiB")
            }
            scanFrom = buffer.count
            try fill()
        }
    }

    private mutating func fill() throws(FormatError) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanFrom -= start
            start = 0
        }
        do {
            if let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
                peakBufferedBytes = max(peakBufferedBytes, buffer.count)
            } else {
                atEOF = true
            }
        } catch {
            throw FormatError(file: path, line: lineNumber + 1, reason: "read failed: \(error.localizedDescription)")
        }
    }
}
