import Foundation
import SketchwiseDigest
import SketchwiseNN
import SketchwiseRecognition

/// A model whose files are there but cannot be used, with the reason.
public struct BrokenModel: Sendable, Equatable, Encodable {
    public let name: String
    public let problem: String
}

/// Every model of a models folder (each `<name>.json` with `<name>.safetensors` beside it), every
/// version in the model store, and the roles they play: the registry behind `sketchwise models
/// list` and `GET /api/models`.
public struct ModelRegistry: Sendable {
    public let folder: URL
    /// Whether the folder is the one shipped with Sketchwise.
    public let isBundled: Bool
    /// The source of the folder's models: `bundled` or `local`.
    public var folderSource: RegisteredModel.Source { isBundled ? .bundled : .local }
    /// The downloaded versions, whose active ones serve instead of the folder's models.
    public let store: ModelStore?
    /// Models fetched and imported at install time rather than shipped (the photo model), listed
    /// with source `fetched`; nil or a missing folder lists none.
    public let fetched: URL?

    public init(folder: URL, isBundled: Bool, store: ModelStore? = nil, fetched: URL? = nil) {
        self.folder = folder
        self.isBundled = isBundled
        self.store = store
        self.fetched = fetched
    }

    /// The registry of a models folder; bundled when the folder holds the model card that ships
    /// with Sketchwise's own models (`MODEL_CARD.md`).
    public init(folder: URL, store: ModelStore? = nil, fetched: URL? = nil) {
        let isBundled = FileManager.default.fileExists(atPath: folder.appendingPathComponent("MODEL_CARD.md").path)
        self.init(folder: folder, isBundled: isBundled, store: store, fetched: fetched)
    }

    /// The usable models, by name, and the broken ones. Reads every spec and hashes every weights file.
    /// - Parameter serving: the downloaded versions that serve, name → folder (default: the
    ///   store's active ones); a version is `active` only if it is there.
    public func models(overrides serving: [String: URL]? = nil) throws -> (models: [RegisteredModel], broken: [BrokenModel]) {
        let overrides = serving ?? store?.activeFolders() ?? [:]
        let roles = activeRoles(overrides: overrides)
        func rolesOf(_ name: String) -> [RegisteredModel.Role] { roles.filter { $0.model == name }.map(\.role) }
        var models: [RegisteredModel] = [], broken: [BrokenModel] = []
        func add(_ name: String, in modelFolder: URL, source: RegisteredModel.Source, status: RegisteredModel.Status) {
            do {
                models.append(
                    try describe(name, in: modelFolder, source: source, status: status, roles: status == .active ? rolesOf(name) : []))
            } catch {
                broken.append(
                    BrokenModel(name: source == .hosted ? "\(name)@\(modelFolder.lastPathComponent)" : name, problem: Self.describe(error))
                )
            }
        }
        for name in try Self.modelNames(in: folder) {
            add(name, in: folder, source: folderSource, status: overrides[name] == nil ? .active : .fallback)
        }
        if let fetched, FileManager.default.fileExists(atPath: fetched.path) {
            for name in try Self.modelNames(in: fetched) { add(name, in: fetched, source: .fetched, status: .active) }
        }
        if let store {
            for name in store.names() {
                let state = store.state(of: name)
                for version in store.versions(of: name) {
                    let folder = store.folder(of: name, version: version)
                    let status: RegisteredModel.Status =
                        overrides[name] == folder ? .active : version == state.previous ? .previous : .installed
                    add(name, in: folder, source: .hosted, status: status)
                }
            }
        }
        return (models, broken)
    }

    /// The names of the `<name>.json` specs of a folder (not `ensemble.json`), sorted.
    private static func modelNames(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") && $0 != "ensemble.json" && !$0.hasPrefix(".") }
            .map { String($0.dropLast(5)) }
            .sorted()
    }

    private func describe(
        _ name: String, in modelFolder: URL, source: RegisteredModel.Source, status: RegisteredModel.Status, roles: [RegisteredModel.Role]
    ) throws -> RegisteredModel {
        let spec = modelFolder.appendingPathComponent("\(name).json"), weights = modelFolder.appendingPathComponent("\(name).safetensors")
        let specData = try Data(contentsOf: spec)
        let decoded = try JSONDecoder().decode(ModelSpec.self, from: specData)
        let weightsSize = try FileManager.default.attributesOfItem(atPath: weights.path)[.size] as? Int ?? 0
        let input = RegisteredModel.Input(decoded.input.kind)
        // An active photo model serves `POST /api/photo`.
        let allRoles = input == .image && status == .active ? roles + [.photo] : roles
        return RegisteredModel(
            name: name, version: decoded.version, sha256: try Self.sha256(of: weights), size: specData.count + weightsSize,
            input: input, labels: decoded.labels.count, source: source, status: status, roles: allRoles)
    }

    /// Which model serves each role: raster-cnn, stroke-rnn, the shortcut embedding
    /// (sketch-embedding, else raster-cnn) and the members of ensemble.json.
    func activeRoles(overrides: [String: URL] = [:]) -> [(role: RegisteredModel.Role, model: String)] {
        let has = { (name: String) in
            overrides[name] != nil || FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name).json").path)
        }
        var roles: [(role: RegisteredModel.Role, model: String)] = []
        if has(RecognizerSet.rasterModel) { roles.append((.raster, RecognizerSet.rasterModel)) }
        if has(RecognizerSet.strokeModel) { roles.append((.strokes, RecognizerSet.strokeModel)) }
        let embedding = has(RecognizerSet.shortcutEmbeddingModel) ? RecognizerSet.shortcutEmbeddingModel : RecognizerSet.rasterModel
        if has(embedding) { roles.append((.embedding, embedding)) }
        struct Ensemble: Decodable { let members: [String] }
        if let data = try? Data(contentsOf: folder.appendingPathComponent("ensemble.json")),
            let ensemble = try? JSONDecoder().decode(Ensemble.self, from: data)
        {
            roles += ensemble.members.map { (.ensemble, $0) }
        }
        return roles
    }

    /// Checksums already computed, by path, with the size and modification date they were for.
    private static let checksums = Checksums()

    /// The hexadecimal SHA-256 of a file, read in 1 MiB pieces; remembered while the file's
    /// size and modification date stay the same.
    public static func sha256(of url: URL) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let stamp = "\(attributes[.size] as? Int ?? -1) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let known = checksums.value(for: url.path, stamp: stamp) { return known }
        let digest = try SHA256.hexDigest(ofFileAt: url)
        checksums.set(digest, for: url.path, stamp: stamp)
        return digest
    }

    private static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError { return "invalid spec (\(decoding))" }
        return (error as NSError).localizedDescription
    }
}

/// A thread-safe memo of file checksums, by path and stamp (size and modification date).
private final class Checksums: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [String: (stamp: String, digest: String)] = [:]

    func value(for path: String, stamp: String) -> String? {
        lock.withLock { known[path].flatMap { $0.stamp == stamp ? $0.digest : nil } }
    }

    func set(_ digest: String, for path: String, stamp: String) {
        lock.withLock { known[path] = (stamp, digest) }
    }
}
