// swift-tools-version:6.0
// The libFuzzer harness: one binary whose target is chosen by $SKETCHWISE_FUZZ_TARGET. Build
// and run it with scripts/fuzz.sh, which passes -sanitize=fuzzer,address to every module.
import PackageDescription

let package = Package(
    name: "SketchwiseFuzz",
    dependencies: [.package(name: "Sketchwise", path: "..")],
    targets: [
        .executableTarget(
            name: "sketchwise-fuzz",
            dependencies: [.product(name: "SketchwiseFuzzing", package: "Sketchwise")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
