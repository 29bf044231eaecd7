// swift-tools-version:6.0
import Foundation
import PackageDescription

/// `make test` sets `SKETCHWISE_OPTIMIZE_DEBUG=1`: the targets with hot loops (parsing, simplifying,
/// rasterising, inference, picture search, photos, model checksums) are then compiled with `-O` in debug builds
/// too, so that the tests that run models and build the library index take minutes, not tens of
/// minutes. Off by default: unsafe flags are refused when Sketchwise is another package's dependency.
let hotLoops: [SwiftSetting] =
    ProcessInfo.processInfo.environment["SKETCHWISE_OPTIMIZE_DEBUG"] == "1" ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []

/// The same for the C kernels (`CKernels`), which SwiftPM builds with -O0 in debug.
let hotCLoops: [CSetting] =
    ProcessInfo.processInfo.environment["SKETCHWISE_OPTIMIZE_DEBUG"] == "1" ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []

/// The C maths library, for the targets that import no Foundation yet take square roots: an
/// unoptimised build calls `sqrt`, and a program that links them alone would miss it on Linux.
let mathLibrary: [LinkerSetting] = [.linkedLibrary("m", .when(platforms: [.linux]))]

let package = Package(
    name: "Sketchwise",
    products: [.executable(name: "sketchwise", targets: ["sketchwise"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // ---- Utilities: the sketch model, threads, digests, installed files, system libraries, HTTP hardening; no feature
        // The sketch model and its geometry. No I/O.
        .target(name: "SketchwiseCore", swiftSettings: hotLoops, linkerSettings: mathLibrary),
        // A bounded pool of threads for CPU-heavy work, with deadlines and stop signals; pools of reusable workers.
        .target(name: "SketchwiseWork"),
        // SHA-256, streaming: model files' checksums, stored token digests. SHA-1: the training split's hash rule.
        .target(name: "SketchwiseDigest", swiftSettings: hotLoops),
        // Where the installed read-only files are (web app, bundled models, tables), beside the binary or in the source tree.
        .target(name: "SketchwiseInstallation"),
        // The languages Sketchwise speaks: the locale of a request (`lang`, Accept-Language), the class-name tables,
        // CLDR's emoji names per language, and finding classes by what a person types.
        .target(name: "SketchwiseLocalization", dependencies: ["SketchwiseInstallation"], exclude: ["Resources"]),
        // zlib (inflate, deflate, CRC-32 for ZIP containers), as a module.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libcairo, as a module.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // librsvg (SVG documents drawn with Cairo), as a module.
        .systemLibrary(name: "CRSVG", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        // FreeType and Cairo's FreeType font backend (colour emoji glyphs), as a module.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // gdk-pixbuf (PNG, JPEG, GIF… decoding), as a module.
        .systemLibrary(name: "CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        // libcurl (model downloads with a deadline and a byte limit enforced as bytes arrive), as a module.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Connection hardening that knows nothing about sketches: timers, per-client limits, malformed HTTP, WebSocket checks.
        .target(
            name: "SketchwiseTransport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // ---- Pipeline: drawings in, guesses out
        // Reading and writing drawings: Quick, Draw! ndjson, .npy/.npz, stroke-3/5, Omniglot, SVG; batches over
        // drawing sources with a bad-input policy.
        .target(name: "SketchwiseFormats", dependencies: ["SketchwiseCore", "CZlib"], swiftSettings: hotLoops),
        // Google-exact simplification and the sequence encodings of the stroke model.
        .target(name: "SketchwisePreprocess", dependencies: ["SketchwiseCore", "SketchwiseWork"], swiftSettings: hotLoops),
        // Rasterising sketches, SVG pictures and emoji to grayscale buffers and PNG.
        .target(
            name: "SketchwiseRaster", dependencies: ["SketchwiseCore", "SketchwiseWork", "CCairo", "CRSVG", "CFreeType", "CGdkPixbuf"],
            swiftSettings: hotLoops),
        // The inference runtime: model files, tensors, layers and kernels. It runs no sketch code: the spec's input
        // recipe (views, rotations, raster planes, photo normalisation) it only decodes and validates, for Recognition.
        .target(name: "SketchwiseNN", dependencies: ["CKernels", "SketchwiseWork"], swiftSettings: hotLoops),
        // The runtime's hot kernels in C, compiled for each instruction set (baseline, AVX2 + FMA, AVX-512) and chosen
        // at first use from the CPU's features.
        .target(name: "CKernels", cSettings: hotCLoops),
        // Sketch → model input → guesses and embeddings; ensembles; any model by name.
        .target(
            name: "SketchwiseRecognition",
            dependencies: [
                "SketchwiseCore", "SketchwiseInstallation", "SketchwisePreprocess", "SketchwiseRaster", "SketchwiseNN", "SketchwiseWork",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: hotLoops
        ),
        // ---- Features: pictures, suggestions, shortcuts, personal data, scenes, photos, the model lifecycle
        // Suggestion sources (Open Clip Art, Noto Color Emoji) and their index in SQLite (GRDB).
        .target(
            name: "SketchwiseLibrary",
            dependencies: [
                "SketchwiseCore", "SketchwiseFormats", "SketchwiseInstallation", "SketchwiseLocalization", "SketchwiseNN",
                "SketchwiseRaster", "SketchwiseRecognition", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Resources"],
            swiftSettings: hotLoops
        ),
        // Guesses plus pictures for a sketch: the Suggestion type and its ranking, providers (local
        // library, web image search), the service (composed once for the server and the CLI) and the
        // latest-wins query pipeline.
        .target(
            name: "SketchwiseSuggestions",
            dependencies: ["SketchwiseCore", "SketchwiseRaster", "SketchwiseRecognition", "SketchwiseLibrary", "SketchwiseWork"],
            swiftSettings: hotLoops
        ),
        // Personal shortcuts: an updatable k-NN over drawing embeddings, and few-shot episodes.
        .target(name: "SketchwiseShortcuts", swiftSettings: hotLoops, linkerSettings: mathLibrary),
        // Per-person state: users and tokens, shortcuts' examples and corrections (SQLite via
        // GRDB, behind the PersonalStore protocol) and the update task that teaches a shortcut.
        .target(
            name: "SketchwisePersonal",
            dependencies: [
                "SketchwiseCore", "SketchwiseDigest", "SketchwiseFormats", "SketchwiseNN", "SketchwiseRecognition", "SketchwiseShortcuts",
                "SketchwiseWork", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The personal store in PostgreSQL (PostgresNIO), for replicas that share one database,
        // and `PersonalDatabase`, which opens either backend from a `--database` path or URL.
        .target(
            name: "SketchwisePostgres",
            dependencies: [
                "SketchwisePersonal", "SketchwiseCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Scenes: several objects on one canvas, grouped from strokes, boxed, labelled and tracked.
        .target(
            name: "SketchwiseScenes",
            dependencies: [
                "SketchwiseCore", "SketchwiseNN", "SketchwisePreprocess", "SketchwiseRaster", "SketchwiseRecognition", "SketchwiseWork",
            ],
            swiftSettings: hotLoops),
        // Photos: PNG/JPEG decoding with limits, the image classifier (EfficientNet-Lite0 imported
        // from PyTorch), the ImageNet → drawing class table and the photo's pictures.
        .target(
            name: "SketchwisePhotos",
            dependencies: [
                "CGdkPixbuf", "SketchwiseCore", "SketchwiseRaster", "SketchwiseNN", "SketchwiseWork", "SketchwiseLibrary",
                "SketchwiseRecognition",
                "SketchwiseSuggestions", "SketchwiseInstallation", .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: hotLoops
        ),
        // The model registry: every model of a models folder, its checksum and the roles it serves;
        // hosted models' manifest, downloads, store and A/B tests.
        .target(
            name: "SketchwiseModels",
            dependencies: ["CCurl", "SketchwiseCore", "SketchwiseDigest", "SketchwiseNN", "SketchwiseRecognition"]),
        // ---- Tools: batch jobs, evaluation, fuzzing, test fixtures
        // Batch jobs over drawing collections (simplify, render, summarise) and their benchmark.
        .target(
            name: "SketchwiseConversion",
            dependencies: ["SketchwiseCore", "SketchwiseFormats", "SketchwisePreprocess", "SketchwiseRaster"],
            swiftSettings: hotLoops
        ),
        // Accuracy of the recognisers over drawing collections, the training split rule, confusion pictures.
        .target(
            name: "SketchwiseEvaluation",
            dependencies: [
                "SketchwiseCore", "SketchwiseDigest", "SketchwiseNN", "SketchwiseRecognition", "SketchwiseFormats", "SketchwiseRaster",
                "SketchwiseShortcuts", "SketchwiseScenes",
            ],
            swiftSettings: hotLoops
        ),
        // Every parser as a fuzz target: for the libFuzzer harness (Fuzz/) and its regression tests.
        .target(
            name: "SketchwiseFuzzing",
            dependencies: [
                "SketchwiseCore", "SketchwiseFormats", "SketchwisePreprocess", "SketchwiseNN", "SketchwiseLibrary", "SketchwisePhotos",
                "SketchwiseTransport",
            ]
        ),
        // Fixtures and helpers shared by the tests (locating ../shared/data, temporary folders).
        .target(name: "SketchwiseTestSupport"),
        // ---- Apps: model serving, the server, the command-line tool
        // Model serving: the snapshot requests are answered with, hot switches to activated versions,
        // re-indexing the library for a new raster model, hosted models at start, A/B arms and their counts.
        .target(
            name: "SketchwiseServing",
            dependencies: [
                "SketchwiseLibrary", "SketchwiseModels", "SketchwisePersonal", "SketchwiseRecognition", "SketchwiseSuggestions",
                "SketchwiseWork", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `sketchwise serve`: the web app (Web/) and the HTTP/WebSocket API on Hummingbird.
        .target(
            name: "SketchwiseServer",
            dependencies: [
                "SketchwiseCore", "SketchwiseFormats", "SketchwiseRaster", "SketchwiseRecognition", "SketchwiseLibrary",
                "SketchwiseLocalization", "SketchwiseSuggestions",
                "SketchwiseWork", "SketchwisePersonal", "SketchwiseModels", "SketchwiseShortcuts", "SketchwiseScenes", "SketchwisePhotos",
                "SketchwiseServing", "SketchwiseTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            exclude: ["Web"]
        ),
        // The command-line tool: argument parsing and printing only.
        .executableTarget(
            name: "sketchwise",
            dependencies: [
                "SketchwiseCore", "SketchwiseFormats", "SketchwisePreprocess", "SketchwiseRaster", "SketchwiseNN", "SketchwiseConversion",
                "SketchwiseRecognition", "SketchwiseEvaluation", "SketchwiseLibrary", "SketchwiseSuggestions", "SketchwiseServer",
                "SketchwiseShortcuts", "SketchwisePersonal", "SketchwisePostgres", "SketchwiseModels", "SketchwiseScenes",
                "SketchwiseInstallation", "SketchwiseLocalization", "SketchwiseTransport",
                "SketchwisePhotos", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // ---- Tests
        .testTarget(name: "SketchwiseCoreTests", dependencies: ["SketchwiseCore"]),
        .testTarget(name: "SketchwiseWorkTests", dependencies: ["SketchwiseWork"]),
        .testTarget(name: "SketchwiseInstallationTests", dependencies: ["SketchwiseInstallation"]),
        .testTarget(name: "SketchwiseLocalizationTests", dependencies: ["SketchwiseLocalization"]),
        .testTarget(
            name: "SketchwisePhotosTests",
            dependencies: [
                "SketchwisePhotos", "SketchwiseNN", "SketchwiseRecognition", "SketchwiseWork", "CGdkPixbuf",
            ]
        ),
        .testTarget(name: "SketchwiseShortcutsTests", dependencies: ["SketchwiseShortcuts"]),
        .testTarget(
            name: "SketchwiseScenesTests",
            dependencies: ["SketchwiseScenes", "SketchwiseCore", "SketchwiseRaster", "SketchwiseRecognition", "SketchwiseTestSupport"]
        ),
        .testTarget(name: "SketchwiseDigestTests", dependencies: ["SketchwiseDigest"]),
        .testTarget(name: "SketchwiseModelsTests", dependencies: ["SketchwiseModels", "SketchwiseTestSupport"]),
        .testTarget(
            name: "SketchwisePersonalTests",
            dependencies: [
                "SketchwisePersonal", "SketchwisePostgres", "SketchwiseCore", "SketchwiseNN", "SketchwiseRecognition",
                "SketchwiseShortcuts", "SketchwiseTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SketchwiseFuzzingTests", dependencies: ["SketchwiseFuzzing", "SketchwiseTestSupport"]),
        .testTarget(name: "SketchwiseFormatsTests", dependencies: ["SketchwiseFormats", "SketchwiseCore", "SketchwiseTestSupport"]),
        .testTarget(
            name: "SketchwisePreprocessTests",
            dependencies: ["SketchwisePreprocess", "SketchwiseCore"]
        ),
        .testTarget(
            name: "SketchwiseRasterTests",
            dependencies: ["SketchwiseRaster", "SketchwiseCore", "SketchwiseFormats", "SketchwiseTestSupport", "CCairo"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SketchwiseConversionTests",
            dependencies: ["SketchwiseConversion", "SketchwiseFormats", "SketchwiseTestSupport"]
        ),
        .testTarget(
            name: "SketchwiseRecognitionTests",
            dependencies: [
                "SketchwiseRecognition", "SketchwiseCore", "SketchwiseFormats", "SketchwiseNN", "SketchwiseRaster", "SketchwiseTestSupport",
            ]
        ),
        .testTarget(
            name: "SketchwiseEvaluationTests",
            dependencies: [
                "SketchwiseEvaluation", "SketchwiseCore", "SketchwiseRecognition", "SketchwiseFormats", "SketchwiseRaster",
                "SketchwiseTestSupport",
            ]
        ),
        .testTarget(
            name: "SketchwiseLibraryTests",
            dependencies: [
                "SketchwiseLibrary", "SketchwiseCore", "SketchwiseLocalization", "SketchwiseNN", "SketchwiseRaster",
                "SketchwiseRecognition", "SketchwiseTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SketchwiseNNTests",
            dependencies: ["CKernels", "SketchwiseNN", "SketchwiseTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SketchwiseSuggestionsTests",
            dependencies: [
                "SketchwiseSuggestions", "SketchwiseCore", "SketchwiseLibrary", "SketchwiseRecognition", "SketchwiseRaster",
                "SketchwiseTestSupport", "SketchwiseWork",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "SketchwiseServerTests",
            dependencies: [
                "SketchwiseServer", "SketchwiseCore", "SketchwiseRecognition", "SketchwiseServing", "SketchwiseTestSupport",
                "SketchwiseWork", "SketchwiseLibrary", "SketchwiseLocalization",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SketchwiseTransportTests", dependencies: ["SketchwiseTransport"]),
        .testTarget(
            name: "SketchwiseCLITests",
            dependencies: [
                "sketchwise", "SketchwiseFormats", "SketchwiseModels", "SketchwiseNN", "SketchwiseRecognition", "SketchwiseTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every target imports only what it declares above, and the compiler checks it: a member of a
// module that is not imported in that file is an error.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// Every layer can be embedded: each library target is a product of its own (the test fixtures aside).
package.products += package.targets.filter { $0.type == .regular && $0.name != "SketchwiseTestSupport" }
    .map { .library(name: $0.name, targets: [$0.name]) }
