import Foundation

/// Writes simplified Quick, Draw! records to a `.bin` file (``QuickDrawBinary``), buffered.
public final class QuickDrawBinaryWriter {
    private let path: String
    private let handle: FileHandle
    private var pending: [UInt8] = []
    private static let flushThreshold = 1 << 20
    /// Records written so far.
    public private(set) var count = 0

    /// Creates (or empties) the file at `path`.
    public init(path: String) throws(FormatError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw FormatError(file: path, reason: "cannot create the file")
        }
        self.path = path
        self.handle = handle
    }

    /// Appends one record (buffered; call ``finish()`` at the end).
    /// - Throws: ``FormatError`` for a drawing the format cannot hold (see
    ///   ``QuickDrawBinary/encode(_:)``), naming the record by its 1-based number.
    public func write(_ record: QuickDrawRecord) throws(FormatError) {
        do {
            pending += try QuickDrawBinary.encode(record)
        } catch {
            throw FormatError(file: path, line: count + 1, reason: "drawing \(count): \(error)")
        }
        count += 1
        if pending.count >= Self.flushThreshold { try flush() }
    }

    /// Writes what is buffered and closes the file.
    public func finish() throws(FormatError) {
        try flush()
        do { try handle.close() } catch {
            throw FormatError(file: path, reason: "cannot finish the file: \(error.localizedDescription)")
        }
    }

    private func flush() throws(FormatError) {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        do { try handle.write(contentsOf: pending) } catch {
            throw FormatError(file: path, reason: "write failed: \(error.localizedDescription)")
        }
    }
}
