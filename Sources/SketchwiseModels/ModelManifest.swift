import Foundation
import SketchwiseDigest

/// A hosted models' manifest: JSON of the form
/// `{"models": [{"name", "version", "url", "sha256", "size", "spec": {"url", "sha256", "size"},
/// "minimumSketchwiseVersion"}]}`. `url` is the weights (`.safetensors`) and `spec` the JSON
/// spec; both may be relative to the manifest's own URL.
public struct ModelManifest: Sendable, Equatable, Codable {
    /// One hosted model version.
    public struct Entry: Sendable, Equatable, Codable {
        /// One file of the model: where, its SHA-256 (hexadecimal) and its size in bytes.
        public struct File: Sendable, Equatable, Codable {
            public var url: String
            public var sha256: String
            public var size: Int

            public init(url: String, sha256: String, size: Int) {
                self.url = url
                self.sha256 = sha256
                self.size = size
            }
        }

        public var name: String
        public var version: String
        /// The weights.
        public var url: String
        public var sha256: String
        public var size: Int
        public var spec: File
        public var minimumSketchwiseVersion: String?

        public init(name: String, version: String, weights: File, spec: File, minimumSketchwiseVersion: String? = nil) {
            self.name = name
            self.version = version
            url = weights.url
            sha256 = weights.sha256
            size = weights.size
            self.spec = spec
            self.minimumSketchwiseVersion = minimumSketchwiseVersion
        }

        /// The weights as a ``File``.
        public var weights: File { File(url: url, sha256: sha256, size: size) }

        /// Bytes of both files (`Int.max` when the sum would not fit: a manifest that is not
        /// checked, as ``ModelManifest/init(data:)`` checks it, may declare any size).
        public var totalSize: Int {
            let (sum, overflow) = size.addingReportingOverflow(spec.size)
            return overflow ? .max : sum
        }
    }

    public var models: [Entry]

    /// The largest model file (weights or spec) a manifest may declare: 4 GiB. Bigger sizes are
    /// refused before any transfer; `DownloadConditions.maximumBytes` is the smaller limit a
    /// download applies.
    public static let maximumFileSize = 4 << 30

    /// The largest manifest read: 4 MiB.
    public static let maximumManifestSize = 4 << 20

    public init(models: [Entry]) {
        self.models = models
    }

    /// Decodes and checks a manifest.
    /// - Throws: ``ModelLifecycleError/malformedManifest(_:)`` saying what is wrong.
    public init(data: Data) throws {
        let decoded: ModelManifest
        do {
            decoded = try JSONDecoder().decode(ModelManifest.self, from: data)
        } catch let error as DecodingError {
            throw ModelLifecycleError.malformedManifest(Self.describe(error))
        } catch {
            throw ModelLifecycleError.malformedManifest("\(error)")
        }
        for entry in decoded.models {
            guard ModelStore.isPlainName(entry.name), ModelStore.isPlainName(entry.version) else {
                throw ModelLifecycleError.malformedManifest(
                    "\(entry.name)@\(entry.version): names and versions are plain (letters, digits, . _ -)")
            }
            for file in [entry.weights, entry.spec] {
                guard file.sha256.count == 64, file.sha256.allSatisfy(\.isHexDigit) else {
                    throw ModelLifecycleError.malformedManifest("\(entry.name)@\(entry.version): sha256 must be 64 hexadecimal digits")
                }
                guard file.size > 0 else {
                    throw ModelLifecycleError.malformedManifest("\(entry.name)@\(entry.version): size must be positive")
                }
                guard file.size <= Self.maximumFileSize else {
                    throw ModelLifecycleError.malformedManifest(
                        "\(entry.name)@\(entry.version): \(file.url) declares \(file.size) bytes, over the \(Self.maximumFileSize) (4 GiB) a model file may have"
                    )
                }
            }
        }
        self = decoded
    }

    /// The newest version of `name` this Sketchwise can run, or the given version.
    /// - Throws: ``ModelLifecycleError/notInManifest(_:)``, or
    ///   ``ModelLifecycleError/needsNewerSketchwise(_:_:)`` when only versions too new are listed.
    public func entry(named name: String, version: String? = nil) throws -> Entry {
        let candidates = models.filter { $0.name == name && (version == nil || $0.version == version) }
        guard !candidates.isEmpty else { throw ModelLifecycleError.notInManifest(version.map { "\(name)@\($0)" } ?? name) }
        let runnable = candidates.filter {
            Self.compare($0.minimumSketchwiseVersion ?? "0", SketchwiseVersion.current) != .orderedDescending
        }
        guard let newest = runnable.max(by: { Self.compare($0.version, $1.version) == .orderedAscending }) else {
            let needed = candidates.compactMap(\.minimumSketchwiseVersion).min { Self.compare($0, $1) == .orderedAscending } ?? "?"
            throw ModelLifecycleError.needsNewerSketchwise(name, needed)
        }
        return newest
    }

    /// Compares dotted versions number by number (`1.10` > `1.9`); parts that are not numbers
    /// compare as text.
    public static func compare(_ a: String, _ b: String) -> ComparisonResult {
        let left = a.split(separator: "."), right = b.split(separator: ".")
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? String(left[index]) : "0", y = index < right.count ? String(right[index]) : "0"
            if let i = Int(x), let j = Int(y) {
                if i != j { return i < j ? .orderedAscending : .orderedDescending }
            } else if x != y {
                return x < y ? .orderedAscending : .orderedDescending
            }
        }
        return .orderedSame
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, context): "missing \"\(key.stringValue)\" at \(path(context))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context): "wrong type at \(path(context)): \(context.debugDescription)"
        case let .dataCorrupted(context): "not JSON: \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty
            ? "the top level" : context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

/// Why a hosted model was not fetched, installed or activated. Each case says why in its
/// description, which the CLI prints and the server logs.
public enum ModelLifecycleError: Error, Equatable, CustomStringConvertible {
    case malformedManifest(String)
    case notInManifest(String)
    case needsNewerSketchwise(String, String)
    case noManifest
    case http(url: String, status: Int)
    case network(url: String, reason: String)
    case timedOut(url: String)
    case deadlineExceeded(url: String, seconds: Double)
    case truncated(url: String, received: Int, expected: Int)
    case tooLarge(name: String, bytes: Int, limit: Int)
    case checksumMismatch(file: String, expected: String, actual: String)
    case invalidModel(String)
    case writeFailed(String)
    case conditionsNotMet(String)
    case notInstalled(String)
    case invalidExperiment(String)

    public var description: String {
        switch self {
        case let .malformedManifest(reason): "malformed manifest: \(reason)"
        case let .notInManifest(name): "the manifest lists no \(name)"
        case let .needsNewerSketchwise(name, version): "\(name) needs Sketchwise \(version) or newer (this is \(SketchwiseVersion.current))"
        case .noManifest: "no manifest URL: pass --manifest URL or set SKETCHWISE_MODEL_MANIFEST"
        case let .http(url, status): "\(url) answered HTTP \(status)"
        case let .network(url, reason): "\(url): \(reason)"
        case let .timedOut(url): "\(url) timed out (it stalled)"
        case let .deadlineExceeded(url, seconds): "\(url) timed out: not done within the deadline of \(String(format: "%g", seconds)) s"
        case let .truncated(url, received, expected): "\(url) was cut off after \(received) of \(expected) bytes"
        case let .tooLarge(name, bytes, limit): "\(name) is \(bytes) bytes, over the limit of \(limit)"
        case let .checksumMismatch(file, expected, actual): "\(file): SHA-256 is \(actual), the manifest says \(expected)"
        case let .invalidModel(reason): "the model failed validation: \(reason)"
        case let .writeFailed(reason): "could not install: \(reason)"
        case let .conditionsNotMet(reason): "download conditions not met: \(reason)"
        case let .notInstalled(what): "\(what) is not installed"
        case let .invalidExperiment(reason): reason
        }
    }

    /// Whether trying again later may succeed (a network fault or a server error), so a retry
    /// with back-off is worth it.
    public var isTransient: Bool {
        switch self {
        case let .http(_, status): status >= 500 || status == 429 || status == 408
        case .network, .timedOut, .truncated: true
        default: false
        }
    }
}

extension ModelManifest {
    /// The manifest of a folder of models (each `<name>.json` with `<name>.safetensors`), with
    /// URLs relative to the manifest: what `sketchwise models serve-manifest` serves. Files that
    /// are not model specs are left out.
    public static func describing(folder: URL) throws -> ModelManifest {
        struct Versioned: Decodable { let version: String }
        var entries: [Entry] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".json") {
            let name = String(file.dropLast(5))
            let spec = folder.appendingPathComponent(file), weights = folder.appendingPathComponent("\(name).safetensors")
            guard ModelStore.isPlainName(name), FileManager.default.fileExists(atPath: weights.path),
                let data = try? Data(contentsOf: spec), let version = try? JSONDecoder().decode(Versioned.self, from: data).version
            else { continue }
            let weightsSize = try FileManager.default.attributesOfItem(atPath: weights.path)[.size] as? Int ?? 0
            var specHash = SHA256()
            specHash.update(data)
            entries.append(
                Entry(
                    name: name, version: version,
                    weights: Entry.File(url: "\(name).safetensors", sha256: try ModelRegistry.sha256(of: weights), size: weightsSize),
                    spec: Entry.File(url: file, sha256: specHash.hexDigest(), size: data.count),
                    minimumSketchwiseVersion: SketchwiseVersion.current))
        }
        return ModelManifest(models: entries)
    }
}
