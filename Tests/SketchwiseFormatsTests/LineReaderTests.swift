import Foundation
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

@Suite struct LineReaderTests {
    func lines(of text: String) throws -> [String] {
        let folder = TemporaryFolder()
        let path = folder.path("t.txt")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var reader = try LineReader(path: path)
        var out: [String] = []
        while let line = try reader.next() { out.append(String(decoding: line, as: UTF8.self)) }
        return out
    }

    @Test func splitsOnLFAndCRLFAndKeepsALastLineWithoutNewline() throws {
        #expect(try lines(of: "a\r\nb\n\nc") == ["a", "b", "", "c"])
        #expect(try lines(of: "") == [])
    }

    @Test func linesLongerThanAChunkAreReassembled() throws {
        let long = String(repeating: "x", count: 3_000_000)
        #expect(try lines(of: "a\n\(long)\nb\n") == ["a", long, "b"])
    }

    @Test func aLargeFileStreamsInBoundedMemory() throws {
        let folder = TemporaryFolder()
        let path = folder.path("big.ndjson")
        let line = Data((String(repeating: "y", count: 999) + "\n").utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let block = Array(repeating: line, count: 10_000).reduce(Data(), +)
        for _ in 0..<10 { try handle.write(contentsOf: block) }   // 100 MB
        try handle.close()
        var reader = try LineReader(path: path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 100_000)
        #expect(reader.peakBufferedBytes < 4 << 20, "buffered \(reader.peakBufferedBytes) bytes of a 100 MB file")
    }

    @Test func aMissingFileIsAClearError() {
        #expect(throws: FormatError.self) { try LineReader(path: "/nonexistent/file.ndjson") }
    }
}
