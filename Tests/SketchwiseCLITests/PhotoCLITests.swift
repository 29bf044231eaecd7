import Foundation
import SketchwiseTestSupport
import Testing

/// `sketchwise photo` end to end: the installed photo model on scikit-image's sample photos.
@Suite struct PhotoCLITests {
    static let model = "/usr/local/share/sketchwise/photo-models/efficientnet-lite0.json"
    let folder = TemporaryFolder()

    var modelIsInstalled: Bool {
        let installed = FileManager.default.fileExists(atPath: Self.model)
        if !installed { print("skipped: no photo model at \(Self.model) (scripts/fetch-photo-model.sh installs it)") }
        return installed
    }

    @Test func aCatPhotoIsACatAndABadFileIsReported() async throws {
        guard SamplePhotos.isAvailable else { print(SamplePhotos.skipMessage); return }
        guard modelIsInstalled else { return }
        let notAPhoto = folder.path("notes.png")
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: notAPhoto))
        let result = try await CLI.run([
            "photo", SamplePhotos.url("chelsea.png").path, notAPhoto, SamplePhotos.url("coffee.png").path, "--model", Self.model,
            "--db", folder.path("no-index.sqlite"), "--json", "--lang", "fr",
        ])
        #expect(result.status == 1, "one of the three files is not a photo")
        #expect(result.stderr.contains("notes.png: not a PNG or JPEG image"), "\(result.stderr)")
        #expect(result.stderr.contains("pictures left out"))
        let lines = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 2)
        let cat = try #require(lines.first ?? nil)
        #expect(cat["model"] as? String == "efficientnet-lite0")
        let labels = try #require(cat["labels"] as? [[String: Any]])
        #expect(labels.count == 5 && labels.allSatisfy { $0["text"] is String && $0["confidence"] is Double && $0["index"] is Int })
        let classes = try #require(cat["classes"] as? [[String: Any]])
        #expect(classes.first?["label"] as? String == "cat", "\(classes)")
        #expect(classes.first?["display"] as? String == "chat", "classes are named in the language asked for: \(classes)")
        let coffee = try #require(lines.last ?? nil)
        let cupClasses = Set(((coffee["classes"] as? [[String: Any]]) ?? []).compactMap { $0["label"] as? String })
        #expect(!cupClasses.isDisjoint(with: ["cup", "coffee cup", "mug"]), "\(cupClasses)")
    }

    @Test func aLongThinPhotoIsRefusedNotACrash() async throws {
        guard modelIsInstalled else { return }
        // PNGs that declare 9,000,000 × 1 and 10,000 × 1 pixels: the first once trapped converting
        // its scaled-up width to Int32, the second asked for gigabytes.
        func png(width: UInt32) -> [UInt8] {
            let header: [UInt8] =
                [0, 0, 0, 13] + Array("IHDR".utf8) + withUnsafeBytes(of: width.bigEndian, Array.init) + [0, 0, 0, 1, 8, 0, 0, 0, 0]
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + header + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("IEND".utf8) + [
                0xAE, 0x42, 0x60, 0x82,
            ]
        }
        try Data(png(width: 9_000_000)).write(to: URL(fileURLWithPath: folder.path("long.png")))
        try Data(png(width: 10_000)).write(to: URL(fileURLWithPath: folder.path("strip.png")))
        let result = try await CLI.run([
            "photo", folder.path("long.png"), folder.path("strip.png"), "--model", Self.model, "--db", folder.path("none.sqlite"),
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("long.png: the photo is 9000000×1 pixels: a side may be at most 20000 pixels"), "\(result.stderr)")
        #expect(result.stderr.contains("strip.png: the photo is 10000×1 pixels: more elongated than the 20:1 allowed"), "\(result.stderr)")
    }

    @Test func aMissingModelIsAClearError() async throws {
        let result = try await CLI.run(["photo", "any.png", "--model", folder.path("none.json")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no photo model at") && result.stderr.contains("fetch-photo-model.sh"), "\(result.stderr)")
    }
}
