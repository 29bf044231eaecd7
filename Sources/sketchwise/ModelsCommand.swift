import ArgumentParser
import Foundation
import SketchwiseModels

struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "The models of the models folder and the roles they serve.",
        subcommands: [ModelsListCommand.self]
    )
}

struct ModelsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every model (NAME.json + NAME.safetensors): version, SHA-256 of its weights, size, input, labels, source and active roles.",
        discussion: "Roles: raster (raster-cnn), strokes (stroke-rnn), embedding (the shortcut embedding: sketch-embedding, else raster-cnn), ensemble (the members of ensemble.json). A model whose files cannot be read is listed as broken, with why."
    )

    @OptionGroup var modelOptions: ModelOptions

    @Flag(help: "Print one JSON object: {\"models\": […], \"broken\": […]}.")
    var json = false

    func run() throws {
        let registry = ModelRegistry(folder: try modelOptions.load().folder)
        let (models, broken) = try registry.models()
        if json {
            struct Listing: Encodable { let models: [RegisteredModel]; let broken: [BrokenModel] }
            try printJSON(Listing(models: models, broken: broken))
            return
        }
        print("models in \(registry.folder.path) (\(registry.isBundled ? "bundled" : "local")):")
        for model in models {
            let roles = model.roles.isEmpty ? "-" : model.roles.joined(separator: ",")
            let columns = [model.name.padded(18), model.version.padded(7), model.input.padded(8), "\(model.labels) labels".padded(11),
                           "\(model.size) B".padded(11), "sha256 \(model.sha256.prefix(12))…", "active: \(roles)"]
            print("  " + columns.joined(separator: " "))
        }
        for model in broken { print("  \(model.name): broken: \(model.problem)") }
    }
}

extension String {
    /// The string padded with spaces to `width` characters (longer ones are kept whole).
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
