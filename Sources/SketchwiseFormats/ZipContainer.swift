import Foundation
import ZIPFoundation

/// Reading and writing the ZIP containers that `.npz` files and the Omniglot archives use.
enum ZipContainer {
    /// Entries larger than this are refused rather than inflated into memory.
    static let maximumEntrySize: UInt64 = 1 << 31

    /// Calls `body` with the path and contents of every file entry, in archive order.
    /// - Throws: ``FormatError`` at once for a file that is not a ZIP archive (see ``checkSignatures(_:)``).
    static func forEachFile(in path: String, _ body: (String, [UInt8]) throws(FormatError) -> Void) throws(FormatError) {
        try checkSignatures(path)
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw FormatError(file: path, reason: "not a readable ZIP archive (truncated or corrupt?)")
        }
        for entry in archive where entry.type == .file {
            guard UInt64(entry.uncompressedSize) <= maximumEntrySize else {
                throw FormatError(file: path, reason: "entry \(entry.path) is larger than \(maximumEntrySize >> 20) MiB")
            }
            // The declared size is not trusted for memory: a lying header would reserve it all.
            var contents: [UInt8] = []
            contents.reserveCapacity(Int(min(UInt64(entry.uncompressedSize), 64 << 20)))
            do {
                _ = try archive.extract(entry) { contents.append(contentsOf: $0) }
            } catch {
                throw FormatError(file: path, reason: "entry \(entry.path) cannot be extracted (truncated or corrupt archive)")
            }
            try body(entry.path, contents)
        }
    }

    /// A ZIP archive starts with a local file header (`PK 3 4`, or `PK 5 6` when empty) and ends
    /// with an end-of-central-directory record (`PK 5 6`) within its last 65,557 bytes (22 bytes
    /// plus a comment of at most 65,535). Checking both reads at most 64 KiB, whatever the
    /// file's size; the ZIP library would otherwise scan a large non-ZIP file for minutes.
    static func checkSignatures(_ path: String) throws(FormatError) {
        let head = try readPrefix(path, count: 4)
        let local: [UInt8] = [0x50, 0x4B, 0x03, 0x04], end: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
        guard head == local || head == end else { throw FormatError(file: path, reason: "not a ZIP archive (no ZIP signature at its start)") }
        let tail = try readPrefix(path, count: 65_557, offset: -65_557)
        let found = tail.count >= 22 && (0...(tail.count - 22)).reversed().contains { Array(tail[$0..<$0 + 4]) == end }
        guard found else { throw FormatError(file: path, reason: "not a readable ZIP archive (no end-of-directory record: truncated?)") }
    }

    /// Writes a ZIP archive with the given files, deflate-compressed.
    static func write(_ files: [(name: String, bytes: [UInt8])], to path: String) throws(FormatError) {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.removeItem(at: url)
        do {
            let archive = try Archive(url: url, accessMode: .create)
            for file in files {
                let data = Data(file.bytes)
                try archive.addEntry(with: file.name, type: .file, uncompressedSize: Int64(data.count),
                                     compressionMethod: .deflate) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        } catch {
            throw FormatError(file: path, reason: "cannot write ZIP archive: \(error)")
        }
    }
}

/// A NumPy `.npz` file: named arrays in a ZIP container.
public enum NPZ {
    /// The arrays in archive order, keyed by name without the `.npy` suffix.
    public static func read(_ path: String) throws(FormatError) -> [(name: String, array: NPYArray)] {
        var arrays: [(String, NPYArray)] = []
        try ZipContainer.forEachFile(in: path) { (name, bytes) throws(FormatError) in
            guard name.hasSuffix(".npy") else { return }
            do {
                arrays.append((String(name.dropLast(4)), try NPYArray(npyBytes: bytes)))
            } catch {
                throw FormatError(file: path, reason: "\(name): \(error)")
            }
        }
        return arrays
    }

    /// Writes named arrays as a compressed `.npz` (like `numpy.savez_compressed`).
    public static func write(_ arrays: [(name: String, array: NPYArray)], to path: String) throws(FormatError) {
        try ZipContainer.write(arrays.map { ($0.name + ".npy", $0.array.npyBytes()) }, to: path)
    }
}
