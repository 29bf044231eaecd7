import Foundation
import SketchwiseFuzzing
import SketchwiseTestSupport
import Testing

/// Replays every input the fuzzer found (`Fuzz/Regressions/TARGET`) through its target, as the
/// harness does, and checks a few hostile inputs written by hand: each is read or refused with
/// an error, never a trap, and refused at once whatever it claims to hold.
@Suite struct FuzzRegressionTests {
    let scratch = TemporaryFolder()
    let models = SharedData.packageRoot.appendingPathComponent("Models")

    func run(_ target: FuzzTarget, _ bytes: [UInt8]) -> FuzzTarget.Outcome {
        bytes.withUnsafeBytes { target.run($0, scratch: scratch.url, models: models) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func foundInputsAreReadOrRefused(target: FuzzTarget) throws {
        let folder = SharedData.packageRoot.appendingPathComponent("Fuzz/Regressions/\(target.rawValue)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in files.sorted() where !name.hasPrefix(".") {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            let outcome = run(target, bytes)
            #expect(outcome.read > 0 || !outcome.errors.isEmpty, "\(target.rawValue)/\(name) gave neither a result nor an error")
            let silent = outcome.errors.filter(\.isEmpty).count
            #expect(silent == 0, "\(target.rawValue)/\(name): an error without a message")
        }
    }

    @Test func realInputsAreRead() throws {
        let record = #"{"word":"cat","drawing":[[[0,10,20],[0,10,0]],[[5,6],[5,6]]]}"#
        #expect(run(.json, Array(record.utf8)).read == 1)
        #expect(run(.ndjson, Array((record + "\n" + record + "\n").utf8)).read == 2)
        #expect(run(.omniglot, Array("START\n1,2,0\n3,4,10\nBREAK\n".utf8)).read == 1)
        let spec = try [UInt8](Data(contentsOf: models.appendingPathComponent("raster-cnn-lite.json")))
        let outcome = run(.modelSpec, spec)
        #expect(outcome.read == 1 && outcome.errors.isEmpty, "\(outcome.errors)")
    }

    @Test func lyingSizesAreRefused() {
        // A .npy header claiming 2^62 elements, with 4 data bytes.
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }"
        let padded = header + String(repeating: " ", count: (64 - (10 + header.utf8.count + 1) % 64) % 64) + "\n"
        let npy =
            [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(padded.utf8.count & 0xFF), UInt8(padded.utf8.count >> 8)] + Array(padded.utf8) + [
                0, 0, 0, 0,
            ]
        #expect(run(.stroke3, npy).errors.count == 1)
        #expect(run(.npy, npy).read == 0)
        // safetensors whose header length is 2^63.
        #expect(run(.safetensors, [0, 0, 0, 0, 0, 0, 0, 0x80] + Array("{}".utf8)).errors.count == 1)
        // A JSON text nested a million levels deep.
        #expect(run(.json, [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)).errors.count == 1)
    }
}
