import Foundation
import SketchwiseTestSupport
import Testing
@testable import SketchwiseNN

/// Public Keras models (DoodleNet as TF.js and as HDF5, Sketcher as TF.js) converted by
/// `training/import_model.py` answer in our runtime like the original model, computed in numpy
/// from the original files (`training/keras_reference.py`, fixtures in `Fixtures/imported/`),
/// within 1e-4. The models themselves are never committed: the test converts `../shared/models`
/// and is skipped, with a message, when it is absent.
@Suite struct ImportedParityTests {
    static let sharedModels = SharedData.root.deletingLastPathComponent().appendingPathComponent("models")
    static let fixtures = Fixtures.folder.appendingPathComponent("imported")

    struct Fixture: Decodable {
        struct Case: Decodable {
            var name: String
            var image: [UInt8]
            var probabilities: [String: Float]
        }
        var model: String
        var source: String
        var tolerance: Float
        var cases: [Case]
    }

    @Test(arguments: ["doodlenet", "doodlenet-h5", "sketcher"])
    func convertedModelAnswersLikeTheOriginal(name: String) throws {
        guard FileManager.default.fileExists(atPath: Self.sharedModels.path) else {
            print("ImportedParityTests: skipped: public models not found at \(Self.sharedModels.path)")
            return
        }
        let fixture = try JSONDecoder().decode(
            Fixture.self, from: Data(contentsOf: Self.fixtures.appendingPathComponent("\(name).json")))
        let folder = TemporaryFolder()
        let source = SharedData.packageRoot.appendingPathComponent(fixture.source).standardized.path
        try runImporter(source: source, name: name, out: folder.url.path)

        let model = try Model(contentsOf: folder.url.appendingPathComponent("\(name).json"))
        #expect(model.inputShape == .image(channels: 1, height: 28, width: 28))
        #expect(model.labels.count == fixture.cases[0].probabilities.count)
        let session = model.makeSession()
        for item in fixture.cases {
            let probabilities = try session.run(input: item.image.map { Float($0) / 255 }).probabilities
            let ours = Dictionary(uniqueKeysWithValues: zip(model.labels.map(Self.key), probabilities))
            let worst = item.probabilities.map { abs((ours[Self.key($0.key)] ?? .infinity) - $0.value) }.max() ?? .infinity
            #expect(worst <= fixture.tolerance, "\(name), \(item.name): largest difference \(worst)")
        }
    }

    /// A label as the importer maps it: underscores are spaces, case does not matter.
    static func key(_ label: String) -> String { label.replacingOccurrences(of: "_", with: " ").lowercased() }

    func runImporter(source: String, name: String, out: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", SharedData.packageRoot.appendingPathComponent("training/import_model.py").path,
                             source, "--name", name, "--out", out]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "import_model.py failed: \(message)")
    }
}
