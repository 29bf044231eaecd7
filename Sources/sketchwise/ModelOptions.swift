import ArgumentParser
import Foundation
import SketchwiseEvaluation
import SketchwiseLibrary
import SketchwiseModels
import SketchwiseNN
import SketchwisePhotos
import SketchwiseRecognition

extension RecognizerKind: ExpressibleByArgument {}
extension KernelVariant: ExpressibleByArgument {}
extension DensePrecision: ExpressibleByArgument {}

/// Where the models are: the bundled folder and the model store (the `models` commands, which
/// read and write the folders without running a model).
struct ModelFolderOptions: ParsableArguments {
    @Option(
        help:
            "The models folder: raster-cnn, stroke-rnn, ensemble.json and any other models, each loaded only when used (default: $SKETCHWISE_MODELS, the installation's share/sketchwise/models, or the source tree's Models)."
    )
    var models: String?

    @Option(
        help:
            "The model store: downloaded models whose active versions serve instead of the bundled ones (default: $SKETCHWISE_MODEL_STORE, else models/ in the data folder, out/). With --models named, commands other than serve use it only when it is named too."
    )
    var modelStore: String?

    @Flag(help: "Only the models folder: leave the model store's downloaded versions out.")
    var noModelStore = false

    /// The store of `--model-store`, else of the data folder.
    func store(dataDirectory: String = "out") -> ModelStore {
        modelStore.map { ModelStore(folder: URL(fileURLWithPath: $0)) } ?? ModelStore.forDataDirectory(URL(fileURLWithPath: dataDirectory))
    }

    /// The store of ``store(dataDirectory:)``, first cleared of what an interrupted download left
    /// (the `models` commands do this, as the server does at start), saying what went.
    func recoveredStore() -> ModelStore {
        let store = store()
        for removed in store.recover() { StandardError.print("model store: removed \(removed), left by an interrupted download") }
        return store
    }

    /// Every model of the models folder, of `store` and the fetched models.
    func registry(store: ModelStore) throws -> ModelRegistry {
        ModelRegistry(folder: try RecognizerSet.load(folder: models).folder, store: store, fetched: PhotoModels.folder)
    }
}

/// Which models to load, and how they compute.
struct ModelOptions: ParsableArguments {
    /// The help of every command's `--model`.
    static let modelHelp = "raster, strokes, ensemble, or the name of a model in the models folder (NAME.json + NAME.safetensors)"

    @OptionGroup var folders: ModelFolderOptions

    @Option(
        help:
            "How the models' products compute (dense layers, convolutions, LSTMs): float32 (as trained), int8 (a quarter of their weights' memory and faster), or auto: int8 on CPUs with VNNI, except raster-cnn and sketch-embedding, whose embeddings are compared with stored ones (see docs/runtime.md)."
    )
    var densePrecision: DensePrecision = .auto

    /// `--models`.
    var models: String? { folders.models }

    /// The store of `--model-store`, else of the data folder.
    func store(dataDirectory: String = "out") -> ModelStore { folders.store(dataDirectory: dataDirectory) }

    /// The models folder's recognisers, with the store's active versions in place of the bundled
    /// ones, each said on standard error. A models folder named with `--models` is what was asked
    /// for: the store replaces its models only when `--model-store` is named too.
    func load(dataDirectory: String = "out") throws -> RecognizerSet {
        let folder = try RecognizerSet.load(folder: models, densePrecision: densePrecision)
        guard !folders.noModelStore, models == nil || folders.modelStore != nil else { return folder }
        let overrides = store(dataDirectory: dataDirectory).activeFolders()
        for (name, version) in overrides.sorted(by: { $0.key < $1.key }) {
            StandardError.print("\(name): the model store's version in \(version.path) (--no-model-store for the models folder's)")
        }
        return folder.replacing(overrides: overrides)
    }
}

extension ValidationSplit.Subset: ExpressibleByArgument {}
extension PictureStyle: ExpressibleByArgument {}

extension ModelUpdatePolicy: ExpressibleByArgument {}
