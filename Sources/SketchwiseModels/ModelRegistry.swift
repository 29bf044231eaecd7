import Foundation
import SketchwiseDigest
import SketchwiseNN
import SketchwiseRecognition

/// One model of a models folder as the registry lists it: what it is, which files, which
/// checksum, and the roles it is active in.
public struct RegisteredModel: Sendable, Equatable, Encodable {
    public let name: String
    public let version: String
    /// SHA-256 of the weights file (`<name>.safetensors`), hexadecimal.
    public let sha256: String
    /// Bytes of the spec and the weights together.
    public let size: Int
    /// `raster` or `strokes`.
    public let input: String
    /// The labels it answers (0 for an embedding-only model).
    public let labels: Int
    /// Where it comes from: `bundled` (the models folder shipped with Sketchwise), `local` (another
    /// models folder) or `hosted` (downloaded into the model store).
    public let source: String
    /// `active` (it serves under its name), `fallback` (a bundled model a downloaded version
    /// replaces for now), `previous` (what ``ModelStore/rollback(_:)`` goes back to) or `installed`.
    public let status: String
    /// The roles it serves now: `raster`, `strokes`, `embedding` (shortcuts), `ensemble`.
    public let roles: [String]
}

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
    /// The downloaded versions, whose active ones serve instead of the folder's models.
    public let store: ModelStore?

    public init(folder: URL, isBundled: Bool, store: ModelStore? = nil) {
        self.folder = folder
        self.isBundled = isBundled
        self.store = store
    }

    /// The registry of a models folder; bundled when the folder holds the model card that ships
    /// with Sketchwise's own models (`MODEL_CARD.md`).
    public init(folder: URL, store: ModelStore? = nil) {
        self.init(folder: folder, isBundled: FileManager.default.fileExists(atPath: folder.appendingPathComponent("MODEL_CARD.md").path), store: store)
    }

    /// The usable models, by name, and the broken ones. Reads every spec and hashes every weights file.
    public func models() throws -> (models: [RegisteredModel], broken: [BrokenModel]) {
        let overrides = store?.activeFolders() ?? [:]
        let roles = activeRoles(overrides: overrides)
        func rolesOf(_ name: String) -> [String] { roles.filter { $0.model == name }.map(\.role) }
        var models: [RegisteredModel] = [], broken: [BrokenModel] = []
        func add(_ name: String, in modelFolder: URL, source: String, status: String) {
            do {
                models.append(try describe(name, in: modelFolder, source: source, status: status, roles: status == "active" ? rolesOf(name) : []))
            } catch {
                broken.append(BrokenModel(name: source == "hosted" ? "\(name)@\(modelFolder.lastPathComponent)" : name, problem: Self.describe(error)))
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") && $0 != "ensemble.json" && !$0.hasPrefix(".") }
            .map { String($0.dropLast(5)) }
            .sorted()
        for name in names { add(name, in: folder, source: isBundled ? "bundled" : "local", status: overrides[name] == nil ? "active" : "fallback") }
        if let store {
            for name in store.names() {
                let state = store.state(of: name)
                for version in store.versions(of: name) {
                    let status = version == state.active ? "active" : version == state.previous ? "previous" : "installed"
                    add(name, in: store.folder(of: name, version: version), source: "hosted", status: status)
                }
            }
        }
        return (models, broken)
    }

    private func describe(_ name: String, in modelFolder: URL, source: String, status: String, roles: [String]) throws -> RegisteredModel {
        let spec = modelFolder.appendingPathComponent("\(name).json"), weights = modelFolder.appendingPathComponent("\(name).safetensors")
        let specData = try Data(contentsOf: spec)
        let decoded = try JSONDecoder().decode(ModelSpec.self, from: specData)
        let weightsSize = try FileManager.default.attributesOfItem(atPath: weights.path)[.size] as? Int ?? 0
        let input: String = if case .raster = decoded.input.kind { "raster" } else { "strokes" }
        return RegisteredModel(
            name: name, version: decoded.version, sha256: try Self.sha256(of: weights), size: specData.count + weightsSize,
            input: input, labels: decoded.labels.count, source: source, status: status, roles: roles)
    }

    /// Which model serves each role: raster-cnn, stroke-rnn, the shortcut embedding
    /// (sketch-embedding, else raster-cnn) and the members of ensemble.json.
    func activeRoles(overrides: [String: URL] = [:]) -> [(role: String, model: String)] {
        let has = { (name: String) in
            overrides[name] != nil || FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name).json").path)
        }
        var roles: [(role: String, model: String)] = []
        if has(RecognizerSet.rasterModel) { roles.append(("raster", RecognizerSet.rasterModel)) }
        if has(RecognizerSet.strokeModel) { roles.append(("strokes", RecognizerSet.strokeModel)) }
        let embedding = has(RecognizerSet.shortcutEmbeddingModel) ? RecognizerSet.shortcutEmbeddingModel : RecognizerSet.rasterModel
        if has(embedding) { roles.append(("embedding", embedding)) }
        struct Ensemble: Decodable { let members: [String] }
        if let data = try? Data(contentsOf: folder.appendingPathComponent("ensemble.json")),
           let ensemble = try? JSONDecoder().decode(Ensemble.self, from: data) {
            roles += ensemble.members.map { ("ensemble", $0) }
        }
        return roles
    }

    /// The hexadecimal SHA-256 of a file, read in 1 MiB pieces.
    public static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(chunk) }
        return hash.hexDigest()
    }

    private static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError { return "invalid spec (\(decoding))" }
        return (error as NSError).localizedDescription
    }
}
