import Foundation

/// Writes Quick, Draw! records as ndjson to standard output, one file, or one file per class in a
/// folder (`<folder>/<word>.ndjson`, as Google publishes them). A file named `*.bin` is written in
/// Google's binary format of simplified drawings instead (``QuickDrawBinaryWriter``).
public final class RecordWriter {
    public enum Destination: Sendable {
        case standardOutput
        case file(String)
        case folderPerClass(String)
    }

    private let destination: Destination
    private var handles: [String: FileHandle] = [:]
    private var pending: [String: String] = [:]
    private let binary: QuickDrawBinaryWriter?
    private static let flushThreshold = 1 << 20

    public init(_ destination: Destination) throws(FormatError) {
        self.destination = destination
        if case let .file(path) = destination, DrawingFileFormat(path: path) == .quickDrawBinary {
            binary = try QuickDrawBinaryWriter(path: path)
        } else {
            binary = nil
        }
        if case let .folderPerClass(folder) = destination {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw FormatError(file: folder, reason: "cannot create the output folder: \(error.localizedDescription)")
            }
        }
    }

    /// Appends one record (buffered; call ``finish()`` at the end).
    public func write(_ record: QuickDrawRecord) throws(FormatError) {
        if let binary { return try binary.write(record) }
        let key: String =
            switch destination {
            case .standardOutput, .file: ""
            case .folderPerClass: record.word
            }
        pending[key, default: ""] += record.ndjsonLine + "\n"
        if pending[key]!.utf8.count >= Self.flushThreshold { try flush(key) }
    }

    /// Writes what is buffered and closes the files.
    public func finish() throws(FormatError) {
        try binary?.finish()
        for key in pending.keys { try flush(key) }
        for handle in handles.values where handle !== FileHandle.standardOutput { try? handle.close() }
        handles = [:]
    }

    private func flush(_ key: String) throws(FormatError) {
        guard let text = pending[key], !text.isEmpty else { return }
        pending[key] = ""
        let handle = try handle(for: key)
        do { try handle.write(contentsOf: Data(text.utf8)) } catch {
            throw FormatError(file: path(for: key) ?? "standard output", reason: "write failed: \(error.localizedDescription)")
        }
    }

    private func path(for key: String) -> String? {
        switch destination {
        case .standardOutput: nil
        case let .file(path): path
        case let .folderPerClass(folder):
            (folder as NSString).appendingPathComponent(key.replacingOccurrences(of: "/", with: "_") + ".ndjson")
        }
    }

    private func handle(for key: String) throws(FormatError) -> FileHandle {
        if let handle = handles[key] { return handle }
        guard let path = path(for: key) else {
            handles[key] = .standardOutput
            return .standardOutput
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw FormatError(file: path, reason: "cannot create the file")
        }
        handles[key] = handle
        return handle
    }
}

/// Writes a `(n, rowLength)` uint8 `.npy` file row by row, without knowing `n` in advance: the
/// header is written with room to spare and rewritten with the final count by ``finish()``.
public final class NPYRowWriter {
    public let rowLength: Int
    public private(set) var rows = 0
    private let path: String
    private let handle: FileHandle
    private static let headerSize = 128

    public init(path: String, rowLength: Int) throws(FormatError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw FormatError(file: path, reason: "cannot create the file")
        }
        self.path = path
        self.handle = handle
        self.rowLength = rowLength
        try write(header())
    }

    /// Appends one row of exactly ``rowLength`` bytes.
    public func append(_ row: [UInt8]) throws(FormatError) {
        precondition(row.count == rowLength, "row length \(row.count) differs from \(rowLength)")
        try write(row)
        rows += 1
    }

    /// Rewrites the header with the final row count and closes the file.
    public func finish() throws(FormatError) {
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: header())
            try handle.close()
        } catch {
            throw FormatError(file: path, reason: "cannot finish the file: \(error.localizedDescription)")
        }
    }

    private func header() -> Data {
        Data(NPYArray.header(descr: "|u1", shape: [rows, rowLength], minimumLength: Self.headerSize))
    }

    private func write(_ bytes: some DataProtocol) throws(FormatError) {
        do { try handle.write(contentsOf: bytes) } catch {
            throw FormatError(file: path, reason: "write failed: \(error.localizedDescription)")
        }
    }
}
