import Foundation
import SketchwiseTestSupport
import Testing

@testable import SketchwiseFormats

/// Files that are not what they claim fail on their first bytes, whatever their size (issue 14:
/// a 1 GB non-ZIP `.npz` was scanned for 10 minutes; a 1 GB `.npy` was read whole before its
/// header was checked).
@Suite struct BoundedReadTests {
    let folder = TemporaryFolder()

    /// A sparse file of `size` bytes (no disk space used) that starts with `prefix`.
    func sparseFile(_ name: String, size: UInt64, prefix: [UInt8] = []) throws -> String {
        let path = folder.path(name)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(prefix)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: size)
        try handle.close()
        return path
    }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        return "no error"
    }

    @Test func aLargeFileThatIsNotZIPFailsOnItsSignature() throws {
        let path = try sparseFile("huge.npz", size: 1 << 30)
        #expect(message { _ = try NPZ.read(path) }.contains("no ZIP signature"))
    }

    @Test func aZIPWithoutItsEndRecordFailsAtOnce() throws {
        let path = try sparseFile("cut.npz", size: 1 << 30, prefix: [0x50, 0x4B, 0x03, 0x04])
        #expect(message { _ = try NPZ.read(path) }.contains("no end-of-directory record"))
    }

    @Test func aLargeFileThatIsNotNPYFailsOnItsMagicBytes() throws {
        let path = try sparseFile("huge.npy", size: 1 << 30)
        #expect(message { _ = try NPYArray(contentsOf: path) }.contains("bad magic bytes"))
    }

    @Test func anNPYShorterThanItsHeaderPromisesFailsBeforeItIsRead() throws {
        let header = NPYArray.header(descr: "<f4", shape: [1 << 28])
        let path = try sparseFile("short.npy", size: UInt64(header.count + 1000), prefix: header)
        #expect(message { _ = try NPYArray(contentsOf: path) }.contains("truncated .npy data"))
        let absurd = NPYArray.header(descr: "<f8", shape: [1 << 40, 1 << 40])
        let overflowing = try sparseFile("absurd.npy", size: UInt64(absurd.count), prefix: absurd)
        #expect(message { _ = try NPYArray(contentsOf: overflowing) }.contains("shape"))
    }

    /// Every drawing file format through the reader the CLI uses: a 1 GiB file that is not what
    /// its name says fails on its first bytes (or its first 16 MiB line), not after reading it all.
    @Test(arguments: ["huge.json", "huge.txt", "huge.ndjson"])
    func drawingFilesThatAreNotWhatTheyClaimFailEarly(name: String) throws {
        let path = try sparseFile(name, size: 1 << 30, prefix: Array("garbage".utf8))
        var errors: [String] = []
        try DrawingSource(path: path).forEach(onError: { errors.append("\($0)") }) { _ in }
        let expected = [
            "huge.json": "not a JSON array", "huge.txt": "not an Omniglot stroke file", "huge.ndjson": "line longer than 16 MiB",
        ]
        #expect(errors.count == 1 && errors[0].contains(expected[name]!), "\(errors)")
    }

    @Test func anOmniglotFileTooLargeToBeOneIsRefusedUnread() throws {
        let path = try sparseFile("big.txt", size: 1 << 30, prefix: Array("START\n1,2,0\n".utf8))
        var errors: [String] = []
        try DrawingSource(path: path).forEach(onError: { errors.append("\($0)") }) { _ in }
        #expect(errors.count == 1 && errors[0].contains("more than an Omniglot stroke file may hold"), "\(errors)")
    }

    @Test func realArchivesAndArraysStillRead() throws {
        let array = NPYArray(shape: [2, 3], elementType: .float32, bytes: [UInt8](repeating: 0, count: 24))
        let npz = folder.path("ok.npz"), npy = folder.path("ok.npy")
        try NPZ.write([("a", array)], to: npz)
        try array.write(to: npy)
        #expect(try NPZ.read(npz).map(\.name) == ["a"])
        #expect(try NPYArray(contentsOf: npy).shape == [2, 3])
    }
}
