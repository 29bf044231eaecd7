import Foundation
import SketchwiseCore

/// One drawing read from any supported file, with its class and where it came from.
public struct LabeledDrawing: Sendable {
    public enum Content: Sendable {
        /// A stroke drawing with its record fields (non-ndjson sources get a record with only `word`).
        case strokes(QuickDrawRecord)
        /// A raster drawing, such as a row of Google's `numpy_bitmap` files.
        case bitmap(GrayImage)
    }

    public var label: String
    public var content: Content
    /// `file:line` or `file#index`, for messages.
    public var origin: String
    /// For drawings from NumPy files: the array (the `.npz` key, or nil for a `.npy`) and the
    /// drawing's index in it.
    public var arrayPosition: (array: String?, index: Int)?
    /// For records of ndjson, JSON-array and `.bin` files: the name of the folder holding the file
    /// (`simplified-extra` for `quickdraw/simplified-extra/car.ndjson`) and the record's 0-based
    /// index in the file (blank lines not counted; malformed records are).
    public var recordPosition: (folder: String, index: Int)?

    public init(
        label: String, content: Content, origin: String, arrayPosition: (array: String?, index: Int)? = nil,
        recordPosition: (folder: String, index: Int)? = nil
    ) {
        self.label = label
        self.content = content
        self.origin = origin
        self.arrayPosition = arrayPosition
        self.recordPosition = recordPosition
    }
}

/// The drawing file formats Sketchwise reads, recognised by file name.
public enum DrawingFileFormat: String, Sendable, CaseIterable {
    /// Quick, Draw! ndjson, raw or simplified (`.ndjson`, `.jsonl`).
    case ndjson
    /// A JSON array of Quick, Draw! records (`.json`).
    case jsonArray
    /// NumPy `.npy`: `(n, 784)` uint8 bitmaps, or an object array of stroke-3 drawings.
    case npy
    /// NumPy `.npz`: Sketch-RNN stroke-3 (`train`/`valid`/`test`) or bitmap arrays.
    case npz
    /// One Omniglot stroke drawing (`.txt`).
    case omniglotText
    /// A ZIP archive of Omniglot stroke drawings (`.zip`).
    case omniglotZip
    /// Google's binary format of simplified Quick, Draw! drawings (`.bin`), read as a stream.
    case quickDrawBinary

    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "ndjson", "jsonl": self = .ndjson
        case "json": self = .jsonArray
        case "npy": self = .npy
        case "npz": self = .npz
        case "txt": self = .omniglotText
        case "zip": self = .omniglotZip
        case "bin": self = .quickDrawBinary
        default: return nil
        }
    }
}

/// A file or a folder of drawing files (searched recursively, in name order). The class of a
/// drawing is its record's `word`, else the file name without extension; for Omniglot it is
/// `alphabet/character`.
public struct DrawingSource: Sendable {
    public let files: [(path: String, format: DrawingFileFormat)]
    /// When set, a stroke drawing beyond these limits is bad input (passed to `onError`).
    public var limits: SketchSizeLimits?
    /// Appended to the error of a drawing beyond ``limits``: how the caller's user raises them.
    public var limitsAdvice: String?

    public init(path: String) throws(FormatError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw FormatError(file: path, reason: "no such file or folder")
        }
        if !isFolder.boolValue {
            guard let format = DrawingFileFormat(path: path) else {
                throw FormatError(
                    file: path,
                    reason: "unknown drawing format; expected .ndjson, .jsonl, .json, .bin, .npy, .npz, .txt (Omniglot) or .zip (Omniglot)")
            }
            files = [(path, format)]
            return
        }
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [(String, DrawingFileFormat)] = []
        while let relative = enumerator?.nextObject() as? String {
            let parts = relative.split(separator: "/")
            guard !parts.contains(where: { $0.hasPrefix(".") || $0 == "__MACOSX" }) else { continue }
            let full = (path as NSString).appendingPathComponent(relative)
            // A `.npy`'s classes beside it (`render --npy`) are not drawings of their own.
            if relative.hasSuffix(Self.labelsSuffix) { continue }
            if let format = DrawingFileFormat(path: full) { found.append((full, format)) }
        }
        files = found.sorted { $0.0 < $1.0 }
        guard !files.isEmpty else { throw FormatError(file: path, reason: "the folder holds no drawing files") }
    }

    /// Reads every drawing in order. A bad record or file is passed to `onError`, which either
    /// throws (stop) or returns (skip it and go on).
    public func forEach(
        onError: (FormatError) throws -> Void,
        _ body: (LabeledDrawing) throws -> Void
    ) throws {
        let limits = limits, advice = limitsAdvice.map { " (\($0))" } ?? ""
        for (path, format) in files {
            do {
                try Self.read(path, format: format, onError: onError) { drawing in
                    if let limits, case let .strokes(record) = drawing.content {
                        do {
                            try limits.check(record.drawing.strokes)
                        } catch {
                            return try onError(FormatError(file: drawing.origin, reason: "\(error)\(advice)"))
                        }
                    }
                    try body(drawing)
                }
            } catch let error as FormatError {
                try onError(error)
            }
        }
    }

    private static func read(
        _ path: String, format: DrawingFileFormat,
        onError: (FormatError) throws -> Void, _ body: (LabeledDrawing) throws -> Void
    ) throws {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        switch format {
        case .ndjson:
            var lines = try LineReader(path: path)
            var index = 0
            while let line = try lines.next() {
                guard line.contains(where: { $0 > 32 }) else { continue }
                let number = lines.lineNumber
                defer { index += 1 }
                do {
                    let record = try QuickDrawRecord(json: Data(line), fallbackWord: stem)
                    try body(
                        LabeledDrawing(
                            label: record.word, content: .strokes(record), origin: "\(path):\(number)", recordPosition: (folder, index)))
                } catch let error as RecordError {
                    try onError(FormatError(file: path, line: number, reason: "\(error)"))
                }
            }
        case .quickDrawBinary:
            var reader = try QuickDrawBinaryReader(path: path, word: stem)
            while let result = try reader.next() {
                let index = reader.recordIndex - 1
                switch result {
                case let .success(record):
                    try body(
                        LabeledDrawing(
                            label: record.word, content: .strokes(record), origin: "\(path)#\(index)", recordPosition: (folder, index)))
                case let .failure(error):
                    try onError(error)
                }
            }
        case .jsonArray:
            let document = try readFile(path, startingWith: "[", maximumSize: 1 << 30, format: "a JSON array of Quick, Draw! records")
            guard case let .array(objects)? = try? JSONValue.parse(document) else {
                throw FormatError(file: path, reason: "not a JSON array of Quick, Draw! records")
            }
            for (index, value) in objects.enumerated() {
                do {
                    guard case let .object(object) = value else { throw RecordError("element is not an object") }
                    let record = try QuickDrawRecord(object: object, fallbackWord: stem)
                    try body(
                        LabeledDrawing(
                            label: record.word, content: .strokes(record), origin: "\(path)#\(index)", recordPosition: (folder, index)))
                } catch let error as RecordError {
                    try onError(FormatError(file: path, line: index + 1, reason: "record \(index): \(error)"))
                }
            }
        case .npy:
            let array = try NPYArray(contentsOf: path)
            let labels = try rowLabels(of: path, rows: array.shape.first ?? 0)
            try readArray(array, key: nil, name: stem, labels: labels, path: path, onError: onError, body)
        case .npz:
            for (key, array) in try NPZ.read(path) {
                try readArray(array, key: key, name: stem, path: path, onError: onError, body)
            }
        case .omniglotText:
            let text = String(
                decoding: try readFile(path, startingWith: "START", maximumSize: 16 << 20, format: "an Omniglot stroke file"), as: UTF8.self
            )
            let components = (path as NSString).pathComponents
            let label = components.dropLast().suffix(2).joined(separator: "/")
            try omniglot(text, label: label, origin: path, onError: onError, body)
        case .omniglotZip:
            try ZipContainer.forEachFile(in: path) { (name, bytes) throws(FormatError) in
                let parts = name.split(separator: "/")
                guard name.hasSuffix(".txt"), !parts.contains(where: { $0.hasPrefix(".") || $0 == "__MACOSX" }) else { return }
                let label = parts.dropLast().suffix(2).joined(separator: "/")
                do {
                    try omniglot(String(decoding: bytes, as: UTF8.self), label: label, origin: "\(path)#\(name)", onError: onError, body)
                } catch let error as FormatError { throw error } catch {
                    throw FormatError(file: path, reason: "\(error)")
                }
            }
        }
    }

    private static func omniglot(
        _ text: String, label: String, origin: String,
        onError: (FormatError) throws -> Void, _ body: (LabeledDrawing) throws -> Void
    ) throws {
        do {
            let sketch = try OmniglotStrokes.parse(text, label: label)
            try body(LabeledDrawing(label: label, content: .strokes(QuickDrawRecord(word: label, drawing: sketch)), origin: origin))
        } catch let error as RecordError {
            try onError(FormatError(file: origin, reason: "\(error)"))
        }
    }

    /// The file beside a `.npy` that names each row's class, one per line: `NAME.labels.txt` for
    /// `NAME.npy`, as `render --npy` writes it.
    static let labelsSuffix = ".labels.txt"

    /// The class of each of the `rows` rows of the `.npy` at `path`, from its labels file, or nil
    /// when it has none (Google's files: the class is the file name).
    /// - Throws: ``FormatError`` when the labels file cannot be read or has another number of lines.
    static func rowLabels(of path: String, rows: Int) throws(FormatError) -> [String]? {
        let labelsPath = (path as NSString).deletingPathExtension + labelsSuffix
        guard FileManager.default.fileExists(atPath: labelsPath) else { return nil }
        let text = String(decoding: try readFile(labelsPath), as: UTF8.self)
        var labels = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if labels.last == "" { labels.removeLast() }
        guard labels.count == rows else {
            throw FormatError(file: labelsPath, reason: "\(labels.count) labels for the \(rows) drawings of \(path): one line per drawing")
        }
        return labels
    }

    /// Bitmaps: `(n, k·k)` or `(n, h, w)` uint8. Stroke-3: a 1-D object array of `(m, 3)` arrays.
    /// Each drawing's class is `labels[index]`, else `name`.
    private static func readArray(
        _ array: NPYArray, key: String?, name: String, labels: [String]? = nil, path: String,
        onError: (FormatError) throws -> Void, _ body: (LabeledDrawing) throws -> Void
    ) throws {
        switch array.storage {
        case let .objects(elements):
            for (index, element) in elements.enumerated() {
                do {
                    let label = labels?[index] ?? name
                    let sketch = StrokeSketch(stroke3: try element.stroke3Rows(), label: label)
                    try body(
                        LabeledDrawing(
                            label: label, content: .strokes(QuickDrawRecord(word: label, drawing: sketch)),
                            origin: "\(path)#\(key.map { "\($0)/" } ?? "")\(index)", arrayPosition: (key, index)))
                } catch let error as RecordError {
                    try onError(FormatError(file: path, line: index + 1, reason: "drawing \(index): \(error)"))
                }
            }
        case let .numeric(type, bytes):
            let side = array.shape.count == 2 ? Int(Double(array.shape[1]).squareRoot()) : 0
            let (height, width) = array.shape.count == 3 ? (array.shape[1], array.shape[2]) : (side, side)
            guard type == .uint8, array.shape.count == 2 || array.shape.count == 3, width > 0,
                width * height == array.elementCount / max(array.shape[0], 1)
            else {
                throw FormatError(
                    file: path, reason: "expected uint8 bitmaps of shape (n, 784) or (n, h, w), found \(type.rawValue) \(array.shape)")
            }
            let pixels = width * height
            for index in 0..<array.shape[0] {
                let image = GrayImage(width: width, height: height, pixels: Array(bytes[index * pixels..<(index + 1) * pixels]))
                try body(
                    LabeledDrawing(
                        label: labels?[index] ?? name, content: .bitmap(image), origin: "\(path)#\(key.map { "\($0)/" } ?? "")\(index)",
                        arrayPosition: (key, index)))
            }
        }
    }
}
