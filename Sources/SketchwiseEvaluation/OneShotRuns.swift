import Foundation
import SketchwiseFormats
import SketchwiseShortcuts

/// One-shot classification runs in the Omniglot layout (Lake et al.): a folder or a ZIP archive of
/// `runNN/` folders, each with `training/*.png` (one image per class), `test/*.png` and
/// `class_labels.txt`, whose lines are `test/<file>.png training/<file>.png` (paths may also
/// start with `runNN/`). Each test image is classified by its nearest training image.
public struct OneShotRuns: Sendable {
    /// One run: its images and which training image each test image belongs to.
    public struct Run: Sendable {
        public let name: String
        public let answers: [(test: String, training: String)]
        /// Path inside the run (`training/class01.png`) → file bytes.
        public let images: [String: [UInt8]]
    }

    public let runs: [Run]

    /// Reads every run under `path` (a folder or a `.zip`).
    /// - Throws: ``FormatError`` for an unreadable archive, a run without `class_labels.txt`, a
    ///   malformed line, or a line naming an image the run lacks.
    public init(path: String) throws {
        var files: [String: [UInt8]] = [:]
        if path.lowercased().hasSuffix(".zip") {
            try ZipContainer.forEachFile(in: path) { name, bytes in files[name] = bytes }
        } else {
            let root = URL(fileURLWithPath: path).standardizedFileURL
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
                throw FormatError(file: path, reason: "not a readable folder")
            }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
                guard relative.hasSuffix(".png") || relative.hasSuffix("class_labels.txt") else { continue }
                files[relative] = [UInt8](try Data(contentsOf: url))
            }
        }
        var runs: [Run] = []
        for labels in files.keys.filter({ $0.hasSuffix("class_labels.txt") }).sorted() {
            let folder = String(labels.dropLast("class_labels.txt".count))
            let name = folder.split(separator: "/").last.map(String.init) ?? "run"
            var answers: [(test: String, training: String)] = []
            for (index, line) in String(decoding: files[labels]!, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
                let fields = line.split(separator: " ").map { Self.insideRun(String($0), run: name) }
                guard fields.count == 2, fields[0].hasPrefix("test/"), fields[1].hasPrefix("training/") else {
                    throw FormatError(
                        file: "\(path)#\(labels)", reason: "line \(index + 1): expected \"test/<file>.png training/<file>.png\"")
                }
                for image in fields where files[folder + image] == nil {
                    throw FormatError(file: "\(path)#\(labels)", reason: "line \(index + 1): no image \(folder + image)")
                }
                answers.append((fields[0], fields[1]))
            }
            let images = files.filter { $0.key.hasPrefix(folder) && $0.key.hasSuffix(".png") }
            runs.append(
                Run(
                    name: name, answers: answers,
                    images: Dictionary(uniqueKeysWithValues: images.map { (String($0.key.dropFirst(folder.count)), $0.value) })))
        }
        guard !runs.isEmpty else { throw FormatError(file: path, reason: "no runNN/class_labels.txt inside") }
        self.runs = runs
    }

    /// A path of `class_labels.txt` relative to its run (a leading `runNN/` dropped).
    private static func insideRun(_ path: String, run: String) -> String {
        path.hasPrefix(run + "/") ? String(path.dropFirst(run.count + 1)) : path
    }

    /// The share of test images whose nearest training image (cosine distance of `embed`'s
    /// vectors: a 1-nearest-neighbour ``NearestNeighborClassifier`` that never answers unknown)
    /// is their own class, and the number of test images.
    /// - Throws: ``FormatError`` naming the first image that `embed` fails on, with its reason.
    public func accuracy(embed: ([UInt8]) throws -> [Float]) throws -> (accuracy: Double, queries: Int) {
        var right = 0, queries = 0
        let oneShot = NearestNeighborClassifier.Configuration(k: 1, weighting: .uniform, unknownDistance: 2, minimumExamples: 1)
        for run in runs {
            // An image that cannot be embedded is named in the error.
            func embedding(_ image: String) throws -> [Float] {
                do { return try embed(run.images[image]!) } catch {
                    throw FormatError(file: "\(run.name)/\(image)", reason: "\(error)")
                }
            }
            var nearest: NearestNeighborClassifier?
            for training in run.images.keys.filter({ $0.hasPrefix("training/") }).sorted() {
                let vector = try embedding(training)
                nearest = nearest ?? NearestNeighborClassifier(dimension: vector.count, configuration: oneShot)
                try nearest!.add(label: training, embeddings: [vector])
            }
            guard let nearest else { continue }
            for (test, answer) in run.answers {
                if try nearest.predict(try embedding(test)).label == answer { right += 1 }
                queries += 1
            }
        }
        return (queries == 0 ? 0 : Double(right) / Double(queries), queries)
    }
}
