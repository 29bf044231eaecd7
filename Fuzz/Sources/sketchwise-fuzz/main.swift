import Foundation
import SketchwiseFuzzing

/// The target named by `$SKETCHWISE_FUZZ_TARGET`, its scratch folder and the models folder.
let environment = ProcessInfo.processInfo.environment
guard let name = environment["SKETCHWISE_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("set SKETCHWISE_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
}
let scratch = URL(fileURLWithPath: environment["SKETCHWISE_FUZZ_SCRATCH"] ?? NSTemporaryDirectory())
    .appendingPathComponent("sketchwise-fuzz-\(getpid())")
try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
let models = URL(fileURLWithPath: environment["SKETCHWISE_MODELS"] ?? "Models")
nonisolated(unsafe) let setup = (target: target, scratch: scratch, models: models)

/// libFuzzer's driver (linked by `-sanitize=fuzzer`): parses its options from the command line
/// and calls `callback` with each input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// One input. Also exported under libFuzzer's own name, which its runtime refers to in builds
/// that keep every object (debug).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    setup.target.run(UnsafeRawBufferPointer(start: data, count: count), scratch: setup.scratch, models: setup.models)
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
