import Foundation

/// Reading and writing the ZIP containers that `.npz` files and the Omniglot archives use:
/// stored and deflated entries, ZIP64 sizes and offsets (NumPy writes them), CRC-checked.
///
/// Every size and offset is checked against the file before anything is read or allocated, and
/// inflating is bounded by the entry's declared size, so a truncated, corrupt or lying archive
/// fails in time linear in its real size.
public enum ZipContainer {
    /// Entries larger than this are refused rather than inflated into memory.
    static let maximumEntrySize: UInt64 = 1 << 31
    /// Central directories larger than this (about 700,000 entries) are refused unread.
    static let maximumDirectorySize: UInt64 = 64 << 20

    /// One file or folder of an archive, as its central directory describes it.
    struct Entry {
        var path: String
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
        var isFolder: Bool { path.hasSuffix("/") }
    }

    /// Calls `body` with the path and contents of every file entry, in archive order.
    /// - Throws: ``FormatError`` at once for a file that is not a ZIP archive, and for the first
    ///   entry that is truncated, corrupt, encrypted or compressed other than stored or deflated.
    public static func forEachFile(in path: String, _ body: (String, [UInt8]) throws(FormatError) -> Void) throws(FormatError) {
        let file = try ArchiveFile(path: path)
        for entry in try file.entries() where !entry.isFolder {
            try body(entry.path, try file.contents(of: entry))
        }
    }

    /// Writes a ZIP archive with the given files, deflate-compressed, atomically. Entries carry a
    /// fixed 1980-01-01 time stamp, so the same arrays always give the same bytes.
    static func write(_ files: [(name: String, bytes: [UInt8])], to path: String) throws(FormatError) {
        var archive = ByteWriter(), directory = ByteWriter()
        for file in files {
            guard file.bytes.count < Int(UInt32.max) else {
                throw FormatError(file: path, reason: "\(file.name) is 4 GiB or more (ZIP64 is not written)")
            }
            let compressed: [UInt8]
            do { compressed = try Deflate.deflate(file.bytes) } catch { throw FormatError(file: path, reason: "\(file.name): \(error)") }
            let name = Array(file.name.utf8), crc = Deflate.crc32(file.bytes), offset = archive.bytes.count
            // Fields shared by the local header and the central directory record, in order:
            // version needed, flags (UTF-8 names), method (deflate), time, date, CRC, sizes, name length.
            func common(_ writer: inout ByteWriter) {
                writer.u16(20); writer.u16(0x0800); writer.u16(8); writer.u16(0); writer.u16(0x21)
                writer.u32(crc); writer.u32(UInt32(compressed.count)); writer.u32(UInt32(file.bytes.count)); writer.u16(UInt16(name.count))
            }
            archive.u32(Signature.localHeader); common(&archive); archive.u16(0)
            archive.append(name); archive.append(compressed)
            directory.u32(Signature.centralHeader); directory.u16(20); common(&directory)
            directory.u16(0); directory.u16(0); directory.u16(0); directory.u16(0); directory.u32(0); directory.u32(UInt32(offset))
            directory.append(name)
        }
        guard files.count < 0xFFFF, archive.bytes.count + directory.bytes.count < Int(UInt32.max) else {
            throw FormatError(file: path, reason: "too large for a ZIP archive without ZIP64")
        }
        let directoryOffset = archive.bytes.count
        archive.append(directory.bytes)
        archive.u32(Signature.endOfDirectory); archive.u16(0); archive.u16(0)
        archive.u16(UInt16(files.count)); archive.u16(UInt16(files.count))
        archive.u32(UInt32(directory.bytes.count)); archive.u32(UInt32(directoryOffset)); archive.u16(0)
        try writeFile(archive.bytes, to: path)
    }

    enum Signature {
        static let localHeader: UInt32 = 0x0403_4B50
        static let centralHeader: UInt32 = 0x0201_4B50
        static let endOfDirectory: UInt32 = 0x0605_4B50
        static let zip64EndOfDirectory: UInt32 = 0x0606_4B50
        static let zip64Locator: UInt32 = 0x0706_4B50
    }

    /// An archive on disk, read with bounded seeks.
    struct ArchiveFile {
        let path: String
        let size: UInt64
        /// Where the central directory starts and how many bytes and entries it has.
        let directory: (offset: UInt64, size: UInt64, count: UInt64)

        /// Reads the end-of-directory record: a ZIP archive starts with a local file header
        /// (`PK 3 4`, or `PK 5 6` when empty) and ends with that record within its last 65,557
        /// bytes (22 bytes plus a comment of at most 65,535), so at most 64 KiB are read.
        init(path: String) throws(FormatError) {
            self.path = path
            size = UInt64(try fileSize(path))
            let head = try readPrefix(path, count: 4)
            guard head.count == 4, [Signature.localHeader, Signature.endOfDirectory].contains(ByteFields(head).u32(at: 0)) else {
                throw FormatError(file: path, reason: "not a ZIP archive (no ZIP signature at its start)")
            }
            let tail = try readPrefix(path, count: 65_557, offset: -65_557)
            let tailStart = size - UInt64(tail.count), reader = ByteFields(tail)
            // The last record signature whose comment length reaches no further than the file.
            let found =
                tail.count < 22
                ? nil
                : (0...(tail.count - 22)).reversed().first {
                    reader.u32(at: $0) == Signature.endOfDirectory && $0 + 22 + Int(reader.u16(at: $0 + 20)) <= tail.count
                }
            guard let end = found else {
                throw FormatError(file: path, reason: "not a readable ZIP archive (no end-of-directory record: truncated?)")
            }
            var directory = (
                offset: UInt64(reader.u32(at: end + 16)), size: UInt64(reader.u32(at: end + 12)), count: UInt64(reader.u16(at: end + 10))
            )
            var directoryEnd = tailStart + UInt64(end)
            if end >= 20, reader.u32(at: end - 20) == Signature.zip64Locator {
                let recordOffset = reader.u64(at: end - 12)
                guard recordOffset <= directoryEnd - 20, directoryEnd - 20 - recordOffset >= 56 else {
                    throw FormatError(file: path, reason: "corrupt ZIP64 end-of-directory locator")
                }
                let record = ByteFields(try readPrefix(path, count: 56, offset: Int(recordOffset)))
                guard record.u32(at: 0) == Signature.zip64EndOfDirectory else {
                    throw FormatError(file: path, reason: "corrupt ZIP64 end-of-directory record")
                }
                directory = (offset: record.u64(at: 48), size: record.u64(at: 40), count: record.u64(at: 32))
                directoryEnd = recordOffset
            }
            guard directory.size <= ZipContainer.maximumDirectorySize, directory.offset <= directoryEnd,
                directory.size <= directoryEnd - directory.offset,
                directory.count <= directory.size / 46
            else {
                throw FormatError(
                    file: path,
                    reason:
                        "corrupt ZIP central directory (\(directory.count) entries, \(directory.size) bytes at \(directory.offset) do not fit the file)"
                )
            }
            self.directory = directory
        }

        /// The central directory's entries, in archive order, with ZIP64 sizes resolved.
        func entries() throws(FormatError) -> [Entry] {
            let bytes = try readPrefix(path, count: Int(directory.size), offset: Int(directory.offset))
            let reader = ByteFields(bytes)
            var entries: [Entry] = [], position = 0
            for index in 0..<Int(directory.count) {
                guard position + 46 <= bytes.count, reader.u32(at: position) == Signature.centralHeader else {
                    throw FormatError(file: path, reason: "corrupt ZIP central directory at entry \(index)")
                }
                let nameLength = Int(reader.u16(at: position + 28)), extraLength = Int(reader.u16(at: position + 30))
                let commentLength = Int(reader.u16(at: position + 32))
                let next = position + 46 + nameLength + extraLength + commentLength
                guard next <= bytes.count else { throw FormatError(file: path, reason: "corrupt ZIP central directory at entry \(index)") }
                var entry = Entry(
                    path: String(decoding: bytes[position + 46..<position + 46 + nameLength], as: UTF8.self),
                    method: reader.u16(at: position + 10), flags: reader.u16(at: position + 8), crc32: reader.u32(at: position + 16),
                    compressedSize: UInt64(reader.u32(at: position + 20)), uncompressedSize: UInt64(reader.u32(at: position + 24)),
                    localHeaderOffset: UInt64(reader.u32(at: position + 42)))
                try resolveZip64(&entry, extra: reader.slice(position + 46 + nameLength, count: extraLength))
                entries.append(entry)
                position = next
            }
            return entries
        }

        /// ZIP64 keeps the sizes and offset that do not fit 32 bits (marked 0xFFFFFFFF) in an
        /// extra field of ID 1, in a fixed order, only those that are marked.
        private func resolveZip64(_ entry: inout Entry, extra: ByteFields) throws(FormatError) {
            var position = 0
            while position + 4 <= extra.count {
                let id = extra.u16(at: position), length = Int(extra.u16(at: position + 2))
                guard position + 4 + length <= extra.count else { break }
                if id == 1 {
                    var field = position + 4
                    for keyPath in [\Entry.uncompressedSize, \Entry.compressedSize, \Entry.localHeaderOffset]
                    where entry[keyPath: keyPath] == 0xFFFF_FFFF {
                        guard field + 8 <= position + 4 + length else {
                            throw FormatError(file: path, reason: "\(entry.path): corrupt ZIP64 extra field")
                        }
                        entry[keyPath: keyPath] = extra.u64(at: field)
                        field += 8
                    }
                }
                position += 4 + length
            }
        }

        /// The uncompressed bytes of `entry`, CRC-checked.
        func contents(of entry: Entry) throws(FormatError) -> [UInt8] {
            func fail(_ reason: String) -> FormatError { FormatError(file: path, reason: "entry \(entry.path): \(reason)") }
            guard entry.flags & 1 == 0 else { throw fail("encrypted entries are not supported") }
            guard entry.method == 0 || entry.method == 8 else {
                throw fail("compression method \(entry.method) is not supported (only stored and deflate)")
            }
            guard entry.uncompressedSize <= maximumEntrySize else { throw fail("larger than \(maximumEntrySize >> 20) MiB") }
            guard entry.localHeaderOffset <= directory.offset, directory.offset - entry.localHeaderOffset >= 30 else {
                throw fail("its header lies outside the archive")
            }
            let header = ByteFields(try readPrefix(path, count: 30, offset: Int(entry.localHeaderOffset)))
            guard header.count == 30, header.u32(at: 0) == Signature.localHeader else {
                throw fail("no local header where the directory says (corrupt archive)")
            }
            let dataOffset = entry.localHeaderOffset + 30 + UInt64(header.u16(at: 26)) + UInt64(header.u16(at: 28))
            guard dataOffset <= directory.offset, entry.compressedSize <= directory.offset - dataOffset else {
                throw fail("its \(entry.compressedSize) compressed bytes run past the end of the data (truncated archive)")
            }
            let compressed = try readPrefix(path, count: Int(entry.compressedSize), offset: Int(dataOffset))
            let contents: [UInt8]
            if entry.method == 0 {
                guard entry.compressedSize == entry.uncompressedSize else {
                    throw fail("stored with \(entry.compressedSize) bytes but declares \(entry.uncompressedSize)")
                }
                contents = compressed
            } else {
                do { contents = try Deflate.inflate(compressed, expectedSize: Int(entry.uncompressedSize)) } catch {
                    throw fail("\(error)")
                }
            }
            guard Deflate.crc32(contents) == entry.crc32 else { throw fail("CRC-32 mismatch (corrupt data)") }
            return contents
        }
    }
}

/// Random access to the little-endian fields of a byte buffer; reads past the end give zero (callers check lengths).
struct ByteFields {
    let bytes: ArraySlice<UInt8>
    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    var count: Int { bytes.count }

    func slice(_ offset: Int, count: Int) -> ByteFields { ByteFields(bytes[bytes.startIndex + offset..<bytes.startIndex + offset + count]) }
    func u16(at offset: Int) -> UInt16 { UInt16(truncatingIfNeeded: value(at: offset, width: 2)) }
    func u32(at offset: Int) -> UInt32 { UInt32(truncatingIfNeeded: value(at: offset, width: 4)) }
    func u64(at offset: Int) -> UInt64 { value(at: offset, width: 8) }

    private func value(at offset: Int, width: Int) -> UInt64 {
        guard offset >= 0, offset + width <= bytes.count else { return 0 }
        var result: UInt64 = 0
        for index in (0..<width).reversed() { result = result << 8 | UInt64(bytes[bytes.startIndex + offset + index]) }
        return result
    }
}

/// Little-endian fields appended to a byte buffer.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u16(_ value: UInt16) { append(value, width: 2) }
    mutating func u32(_ value: UInt32) { append(value, width: 4) }
    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
    private mutating func append(_ value: some FixedWidthInteger, width: Int) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
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
