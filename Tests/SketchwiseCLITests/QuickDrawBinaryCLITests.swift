import Foundation
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

/// The commands that read drawings read Google's binary `.bin` files too.
@Suite struct QuickDrawBinaryCLITests {
    let folder = TemporaryFolder()

    func writeCats(_ count: Int) throws -> String {
        let path = folder.path("cat.bin")
        let writer = try QuickDrawBinaryWriter(path: path)
        for i in 0..<count {
            let stroke = "[[0,255,40],[0,\(i),255]]"
            try writer.write(QuickDrawRecord(json: Data(#"{"word":"cat","key_id":"\#(i + 1)","drawing":[\#(stroke),\#(stroke)]}"#.utf8)))
        }
        try writer.finish()
        return path
    }

    @Test func infoCountsTheDrawingsOfABinFileUnderItsFileName() async throws {
        let path = try writeCats(3)
        let result = try await CLI.run(["info", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let classes = try #require(object?["classes"] as? [String: [String: Any]])
        #expect(classes["cat"]?["drawings"] as? Int == 3)
    }

    @Test func simplifyWritesABinFileThatReadsBack() async throws {
        let input = folder.path("house.ndjson")
        try #"{"word":"house","key_id":"42","drawing":[[[0,100,200],[0,300,0],[0,10,20]],[[5,5],[9,400],[30,40]]]}"#
            .write(toFile: input, atomically: true, encoding: .utf8)
        let simplified = try await CLI.run(["simplify", input, "-o", folder.path("house.bin")])
        #expect(simplified.status == 0, "\(simplified.stderr)")
        var drawings: [QuickDrawRecord] = []
        try DrawingSource(path: folder.path("house.bin")).forEach(onError: { throw $0 }) { drawing in
            if case let .strokes(record) = drawing.content { drawings.append(record) }
        }
        #expect(drawings.count == 1 && drawings.first?.keyID == "42" && drawings.first?.word == "house")
    }

    @Test func aTruncatedBinFileIsAClearErrorOrSkippedWithSkipBad() async throws {
        let path = try writeCats(2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.dropLast(3).write(to: URL(fileURLWithPath: path))
        let failed = try await CLI.run(["info", path])
        #expect(failed.status != 0)
        #expect(
            failed.stderr.contains("cat.bin:2: drawing 1 at byte 33: the file ends at byte 63, inside stroke 1 of 2"), "\(failed.stderr)")
        let skipped = try await CLI.run(["info", path, "--skip-bad", "--json"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("skipped: "))
    }
}
