import Foundation
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

/// `sketchwise fewshot --runs` on runs in the Omniglot one-shot layout, made in a temporary
/// folder from the shared Omniglot images (characters of alphabets the embedding never saw).
@Suite struct FewShotCLITests {
    /// Writes `runs` runs of `ways` characters: one drawer's image of each to training/, another's to test/.
    static func makeRuns(in folder: TemporaryFolder, runs: Int, ways: Int) throws {
        var images: [String: [[UInt8]]] = [:]
        try ZipContainer.forEachFile(in: SharedData.omniglot("images_background_small2.zip").path) { name, bytes in
            let parts = name.split(separator: "/")
            guard name.hasSuffix(".png"), parts.count >= 3, !["Greek", "Latin"].contains(parts[parts.count - 3]) else { return }
            images[parts.dropLast().suffix(2).joined(separator: "/"), default: []].append(bytes)
        }
        let characters = images.keys.sorted()
        for run in 1...runs {
            let base = folder.url.appendingPathComponent(String(format: "run%02d", run))
            for sub in ["training", "test"] {
                try FileManager.default.createDirectory(at: base.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            var lines = ""
            for k in 1...ways {
                let drawings = images[characters[(run * 37 + k * 11) % characters.count]]!
                let training = String(format: "training/class%02d.png", k), test = String(format: "test/item%02d.png", ways + 1 - k)
                try Data(drawings[0]).write(to: base.appendingPathComponent(training))
                try Data(drawings[1]).write(to: base.appendingPathComponent(test))
                lines += "\(test) \(training)\n"
            }
            try lines.write(to: base.appendingPathComponent("class_labels.txt"), atomically: true, encoding: .utf8)
        }
    }

    @Test func runsInTheOmniglotLayoutAreScored() async throws {
        guard FileManager.default.fileExists(atPath: SharedData.omniglot("images_background_small2.zip").path) else {
            print(SharedData.skipMessage)
            return
        }
        let folder = TemporaryFolder()
        try Self.makeRuns(in: folder, runs: 3, ways: 10)
        let result = try await CLI.run(["fewshot", "--runs", folder.url.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(answer?["episodes"] as? Int == 3 && answer?["ways"] as? Int == 10 && answer?["shots"] as? Int == 1)
        let accuracy = try #require(answer?["accuracy"] as? Double)
        #expect(accuracy >= 0.6, "10-way one-shot accuracy \(accuracy) (chance is 0.1)")

        // A blank page has no lines to trace: the error names the image.
        let blankPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAAAAADhZOFXAAAAEElEQVR4nGP8zwABTAwUMQBJQQEPeWDz+AAAAABJRU5ErkJggg=="
        try Data(base64Encoded: blankPNG)!.write(to: folder.url.appendingPathComponent("run02/test/item01.png"))
        let blank = try await CLI.run(["fewshot", "--runs", folder.url.path])
        #expect(blank.status != 0)
        #expect(blank.stderr.contains("run02/test/item01.png: the drawing has no points"), "\(blank.stderr)")

        try "test/item01.png training/nowhere.png\n".write(
            to: folder.url.appendingPathComponent("run01/class_labels.txt"), atomically: true, encoding: .utf8)
        let broken = try await CLI.run(["fewshot", "--runs", folder.url.path])
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("no image run01/training/nowhere.png"), "\(broken.stderr)")
    }

    @Test func openSetPrintsTaughtAndUntaughtAnswersAtOneThreeAndFiveExamples() async throws {
        let sample = SharedData.packageRoot.appendingPathComponent("Tests/Fixtures/quickdraw/raw").path
        let result = try await CLI.run(["fewshot", sample, "--open-set", "--episodes", "50", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(answer["calibrated"] as? Bool == true, "the shipped embedding carries its thresholds")
        let rows = try #require(answer["rows"] as? [[String: Any]])
        #expect(rows.compactMap { $0["shots"] as? Int } == [1, 3, 5])
        for row in rows {
            let taught = try #require(row["knownCorrect"] as? Double), untaught = try #require(row["unknownRejected"] as? Double)
            #expect(taught > 0.2 && untaught > 0.5, "\(row): 5-way, so chance would answer 20 % rightly")
        }
    }
}
