import Foundation
import SketchwiseTestSupport
import Testing
@testable import SketchwiseFormats

/// The ZIP container under `.npz` and the Omniglot archives: what we write is a valid archive
/// for other tools, what Python/NumPy write (ZIP64) reads, and damaged archives fail at once
/// (issue 14: a truncated deflate stream made the previous ZIP library loop forever).
@Suite struct ZipContainerTests {
    let folder = TemporaryFolder()

    /// Bytes that compress, but not to nothing.
    let files: [(name: String, bytes: [UInt8])] = [
        ("a.npy", (0..<5000).map { UInt8(truncatingIfNeeded: $0 * $0 / 7) }),
        ("folder/b.txt", Array("START\n1,2,0\nBREAK\n".utf8)),
        ("empty.bin", []),
    ]

    func read(_ path: String) throws -> [(String, [UInt8])] {
        var read: [(String, [UInt8])] = []
        try ZipContainer.forEachFile(in: path) { read.append(($0, $1)) }
        return read
    }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        return "no error"
    }

    @Test func writtenArchivesReadBackAndPassUnzipsIntegrityTest() throws {
        let path = folder.path("w.zip")
        try ZipContainer.write(files, to: path)
        let read = try read(path)
        #expect(read.map(\.0) == files.map(\.name) && read.map(\.1) == files.map(\.bytes))
        let unzip = try run("/usr/bin/unzip", ["-t", path])
        #expect(unzip.status == 0 && unzip.output.contains("No errors detected"), "\(unzip.output)")
    }

    @Test func archivesWrittenByPythonWithForcedZIP64Read() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            print("SKIPPED: /usr/bin/python3 is needed to write a ZIP64 archive the way NumPy does")
            return
        }
        let path = folder.path("py.zip")
        // numpy.savez writes every member with force_zip64=True; stored and deflated both.
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for name, method in (("s.bin", zipfile.ZIP_STORED), ("d.bin", zipfile.ZIP_DEFLATED)):
                    with z.open(zipfile.ZipInfo(name), "w", force_zip64=True) as f:
                        f.write(bytes(i * i % 251 for i in range(3000)))
            """
        #expect(try run("/usr/bin/python3", ["-c", script, path]).status == 0)
        let expected = (0..<3000).map { UInt8($0 * $0 % 251) }
        let read = try read(path)
        #expect(read.map(\.0) == ["s.bin", "d.bin"] && read.allSatisfy { $0.1 == expected })
    }

    /// An archive whose single deflated entry's stream is cut to `keep` of its bytes, with the
    /// sizes in both headers and the directory offset made consistent with the cut.
    func truncatedArchive(keeping fraction: Double) throws -> String {
        let source = folder.path("whole.zip")
        try ZipContainer.write([files[0]], to: source)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: source)))
        let fields = ByteFields(bytes), nameLength = Int(fields.u16(at: 26))
        let compressed = Int(fields.u32(at: 18)), kept = Int(Double(compressed) * fraction), dataStart = 30 + nameLength
        bytes.removeSubrange(dataStart + kept..<dataStart + compressed)
        func patch(_ value: Int, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        let directory = dataStart + kept
        patch(kept, at: 18)                        // local header: compressed size
        patch(kept, at: directory + 20)            // central header: compressed size
        patch(directory, at: bytes.count - 6)      // end record: directory offset
        let path = folder.path("cut-\(fraction).npz")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    @Test(arguments: [0.0, 0.3, 0.9])
    func aTruncatedDeflateStreamFailsInsteadOfLooping(fraction: Double) throws {
        let path = try truncatedArchive(keeping: fraction)
        let error = message { _ = try read(path) }
        #expect(error.contains("a.npy") && ["truncated", "corrupt", "can hold"].contains { error.contains($0) }, "\(error)")
    }

    @Test func aFlippedByteIsCaughtByTheCRCOrTheStream() throws {
        let path = folder.path("flip.zip")
        try ZipContainer.write([files[0]], to: path)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        bytes[30 + 5 + 40] ^= 0x55
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let error = message { _ = try read(path) }
        #expect(error.contains("CRC-32 mismatch") || error.contains("corrupt") || error.contains("inflates to"), "\(error)")
    }

    @Test func directoryEntriesThatPointOutsideTheArchiveAreRefused() throws {
        let path = folder.path("outside.zip")
        try ZipContainer.write([files[1]], to: path)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let directory = Int(ByteFields(bytes).u32(at: bytes.count - 6))
        bytes[directory + 42 + 3] = 0x7F           // local header offset far past the end
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        #expect(message { _ = try read(path) }.contains("outside the archive"))
    }

    func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
