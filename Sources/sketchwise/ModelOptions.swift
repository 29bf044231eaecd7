import ArgumentParser
import SketchwiseLibrary
import SketchwiseRecognition

extension RecognizerKind: ExpressibleByArgument {}

/// Which models to load.
struct ModelOptions: ParsableArguments {
    /// The help of every command's `--model`.
    static let modelHelp = "raster, strokes, ensemble, or the name of a model in the models folder (NAME.json + NAME.safetensors)"

    @Option(help: "The models folder: raster-cnn, stroke-rnn, ensemble.json and any other models, each loaded only when used (default: $SKETCHWISE_MODELS, ./Models, or the package's Models).")
    var models: String?

    func load() throws -> RecognizerSet {
        try RecognizerSet.load(folder: models)
    }
}
import ArgumentParser
import SketchwiseEvaluation

extension ValidationSplit.Subset: ExpressibleByArgument {}
extension PictureStyle: ExpressibleByArgument {}
