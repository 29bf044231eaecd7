import Foundation
import SketchwiseModels
import SketchwiseTestSupport
import Testing

/// The registry over the bundled models and over a folder with a broken model.
@Suite struct ModelRegistryTests {
    static let bundled = SharedData.packageRoot.appendingPathComponent("Models")

    @Test func theBundledModelsAndTheirRoles() throws {
        let registry = ModelRegistry(folder: Self.bundled)
        #expect(registry.isBundled)
        let (models, broken) = try registry.models()
        #expect(broken.isEmpty)
        let byName = Dictionary(uniqueKeysWithValues: models.map { ($0.name, $0) })
        #expect(byName["raster-cnn"]?.roles == [.raster, .ensemble])
        #expect(byName["stroke-rnn"]?.roles == [.strokes])
        #expect(byName["sketch-embedding"]?.roles == [.embedding])
        #expect(byName["sketch-embedding"]?.labels == 0 && byName["raster-cnn"]?.labels == 345)
        #expect(byName["stroke-rnn"]?.input == .strokes && byName["raster-cnn"]?.source == .bundled)
        let weights = Self.bundled.appendingPathComponent("raster-cnn.safetensors")
        #expect(byName["raster-cnn"]?.sha256 == (try ModelRegistry.sha256(of: weights)))
        #expect(byName["raster-cnn"]?.sha256.count == 64)
    }

    @Test func aBrokenModelIsListedWithWhy() throws {
        let folder = TemporaryFolder()
        for ext in ["json", "safetensors"] {
            try FileManager.default.copyItem(
                at: Self.bundled.appendingPathComponent("raster-cnn.\(ext)"), to: folder.url.appendingPathComponent("raster-cnn.\(ext)"))
        }
        try Data("{\"format\": \"sketchwise-model\"".utf8).write(to: folder.url.appendingPathComponent("half.json"))
        try Data("{}".utf8).write(to: folder.url.appendingPathComponent("nameless.json"))
        let registry = ModelRegistry(folder: folder.url)
        #expect(!registry.isBundled)
        let (models, broken) = try registry.models()
        #expect(models.map(\.name) == ["raster-cnn"])
        #expect(models[0].roles == [.raster, .embedding], "without sketch-embedding, raster-cnn embeds shortcuts")
        #expect(models[0].source == .local)
        #expect(broken.map(\.name) == ["half", "nameless"])
        #expect(broken.allSatisfy { $0.problem.contains("invalid spec") })
    }
}
