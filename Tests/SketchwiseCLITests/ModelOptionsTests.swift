import ArgumentParser
import Foundation
import SketchwiseModels
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

@testable import sketchwise

/// Which raster model a command loads when the model store holds an active download.
@Suite struct ModelOptionsTests {
    @Test func aNamedModelsFolderWinsOverTheStoreUnlessTheStoreIsNamedToo() throws {
        let data = TemporaryFolder()
        let store = ModelStore.forDataDirectory(data.url)
        let hosted = try TestModels.hostedRaster(version: "2.0.0")
        let staging = try store.makeStagingFolder(for: "raster-cnn")
        for file in ["raster-cnn.json", "raster-cnn.safetensors"] {
            try FileManager.default.copyItem(at: hosted.url.appendingPathComponent(file), to: staging.appendingPathComponent(file))
        }
        try store.install(staging, name: "raster-cnn", version: "2.0.0", origin: .init(url: "test", sha256: "", installedAt: Date()))
        try store.activate("raster-cnn", version: "2.0.0")
        let bundled = TestModels.bundled.path
        func rasterVersion(_ arguments: [String]) throws -> String {
            try ModelOptions.parse(arguments).load(dataDirectory: data.url.path).raster.model.spec.version
        }
        let bundledVersion = try Model(contentsOf: TestModels.bundled.appendingPathComponent("raster-cnn.json")).spec.version
        #expect(try rasterVersion([]) == "2.0.0", "by default the store's active version serves")
        #expect(try rasterVersion(["--models", bundled]) == bundledVersion, "a named folder is used as it is")
        #expect(try rasterVersion(["--models", bundled, "--model-store", store.folder.path]) == "2.0.0")
        #expect(try rasterVersion(["--no-model-store"]) == bundledVersion)
    }
}
