import ArgumentParser
import SketchwiseRecognition

extension RecognizerKind: ExpressibleByArgument {}

/// Which models to load.
struct ModelOptions: ParsableArguments {
    @Option(help: "Folder with raster-cnn, stroke-rnn and ensemble.json (default: $SKETCHWISE_MODELS, ./Models, or the package's Models).")
    var models: String?

    func load() throws -> RecognizerSet {
        try RecognizerSet.load(folder: models)
    }
}
import ArgumentParser
import SketchwiseEvaluation

extension ValidationSplit.Subset: ExpressibleByArgument {}
