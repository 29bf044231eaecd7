import Foundation
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

@Suite struct NumpyTests {
    @Test func numericArraysRoundTrip() throws {
        let folder = TemporaryFolder()
        let array = NPYArray(shape: [2, 784], elementType: .uint8, bytes: (0..<1568).map { UInt8($0 % 256) })
        try array.write(to: folder.path("a.npy"))
        let back = try NPYArray(contentsOf: folder.path("a.npy"))
        #expect(back == array)
        let bytes = try #require(FileManager.default.contents(atPath: folder.path("a.npy")))
        #expect((bytes.count - 1568) % 64 == 0, "data starts on a 64-byte boundary")
    }

    @Test func readsVersion2HeadersAndAllNumericTypes() throws {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [2, 0]
        bytes += withUnsafeBytes(of: UInt32(header.utf8.count + 1).littleEndian, Array.init)
        bytes += Array(header.utf8) + [0x0A]
        bytes += withUnsafeBytes(of: Float(1.5).bitPattern.littleEndian, Array.init)
        bytes += withUnsafeBytes(of: Float(-2).bitPattern.littleEndian, Array.init)
        let array = try NPYArray(npyBytes: bytes)
        #expect(array.shape == [2])
        #expect(array.doubles() == [1.5, -2])
    }

    @Test(arguments: [
        ("{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", "unsupported dtype"),
        ("{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", "big-endian"),
        ("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", "structured"),
        ("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", "truncated"),
        ("{'descr': '<i4', 'fortran_order': False, 'shape': (x,), }", "malformed shape"),
        ("{'descr': '<i4', 'fortran_order': False}", "no 'shape'"),
        ("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2), }", "Fortran"),
    ])
    func badHeadersAndDataAreRejected(header: String, reason: String) {
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count + 1), 0]
        bytes += Array(header.utf8) + [0x0A, 1, 2]
        do {
            _ = try NPYArray(npyBytes: bytes)
            Issue.record("accepted \(header)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func notANumpyFileIsRejected() {
        #expect(throws: RecordError.self) { try NPYArray(npyBytes: Array("hello world".utf8)) }
        #expect(throws: RecordError.self) { try NPYArray(npyBytes: [0x93] + Array("NUMPY".utf8) + [1, 0, 200, 0]) }
    }

    @Test func stroke3DrawingsRoundTripThroughACompressedNPZ() throws {
        let folder = TemporaryFolder()
        let drawings = [
            [Stroke3Row(dx: -9, dy: -51, penLifted: false), Stroke3Row(dx: 23, dy: 64, penLifted: true)],
            [Stroke3Row(dx: 1000, dy: -32000, penLifted: true)],
        ]
        let objects = try drawings.map { try NPYArray(stroke3: $0) }
        try NPZ.write([("train", NPYArray(objects: objects))], to: folder.path("d.npz"))
        let read = try NPZ.read(folder.path("d.npz"))
        #expect(read.map(\.name) == ["train"])
        guard case let .objects(elements) = read[0].array.storage else {
            Issue.record("expected an object array")
            return
        }
        #expect(try elements.map { try $0.stroke3Rows() } == drawings)
    }

    @Test func aTruncatedNPZIsAClearError() throws {
        let folder = TemporaryFolder()
        let objects = try [NPYArray(stroke3: [Stroke3Row(dx: 1, dy: 2, penLifted: true)])]
        try NPZ.write([("train", NPYArray(objects: objects))], to: folder.path("d.npz"))
        let bytes = try #require(FileManager.default.contents(atPath: folder.path("d.npz")))
        try bytes.prefix(bytes.count / 2).write(to: folder.url.appendingPathComponent("cut.npz"))
        #expect(throws: FormatError.self) { try NPZ.read(folder.path("cut.npz")) }
    }

    @Test func picklesThatCallAnythingButNumpyAreRefused() {
        // protocol 2: GLOBAL os.system, ("echo",) REDUCE
        var pickle: [UInt8] = [0x80, 2] + Array("cos\nsystem\n".utf8) + [0x55, 4] + Array("echo".utf8) + [0x85, 0x52, 0x2E]
        let header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"
        pickle = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count + 1), 0] + Array(header.utf8) + [0x0A] + pickle
        do {
            _ = try NPYArray(npyBytes: pickle)
            Issue.record("accepted a pickle calling os.system")
        } catch {
            #expect(error.description.contains("os.system"))
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func readsSketchRNNFilesWrittenByPython2AndNumpy() throws {
        for (file, expected) in [("sketchrnn/pig.npz", 2270)] {
            let arrays = try NPZ.read(SharedData.quickDraw(file).path)
            guard case let .objects(elements) = try #require(arrays.first).array.storage else {
                Issue.record("not an object array")
                return
            }
            #expect(elements.count == expected)
            #expect(
                try elements[0].stroke3Rows().prefix(2) == [
                    Stroke3Row(dx: -9, dy: -51, penLifted: false), Stroke3Row(dx: 0, dy: -59, penLifted: false),
                ])
        }
        let omniglot = try NPZ.read(SharedData.omniglot("omniglot-unlabelled-stroke3.npz").path)
        #expect(omniglot.map(\.name).sorted() == ["test", "train", "valid"])
        let bitmaps = try NPYArray(contentsOf: SharedData.quickDraw("bitmap/cat.npy").path)
        #expect(bitmaps.shape == [5820, 784])
        #expect(bitmaps.elementType == .uint8)
    }
}
