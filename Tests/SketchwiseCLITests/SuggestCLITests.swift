import Foundation
import SketchwiseTestSupport
import Testing

/// `index build`, `suggest` and `similarity` end to end on a small real clip-art folder (a copy
/// of some of Debian's openclipart-svg) and real Quick, Draw! drawings.
@Suite(.serialized) struct SuggestCLITests {
    static let clipart = URL(fileURLWithPath: "/usr/share/openclipart/svg/animals/mammals")
    let folder = TemporaryFolder()

    /// An index of the first 40 drawings of Open Clip Art's mammals.
    func smallIndex() async throws -> String {
        let pictures = folder.url.appendingPathComponent("clipart/mammals")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.clipart.path).filter { $0.hasSuffix(".svg") }.sorted().prefix(
            40)
        for name in names {
            try FileManager.default.copyItem(at: Self.clipart.appendingPathComponent(name), to: pictures.appendingPathComponent(name))
        }
        let db = folder.path("index.sqlite")
        let built = try await CLI.run(["index", "build", "--sources", "clipart", "--clipart-dir", folder.path("clipart"), "--db", db])
        #expect(built.status == 0, "\(built.stderr)")
        return db
    }

    @Test func suggestPrintsRankedPicturesForEachDrawing() async throws {
        guard SharedData.isAvailable else { print(SharedData.skipMessage); return }
        guard FileManager.default.fileExists(atPath: Self.clipart.path) else { print("skipped: openclipart-svg is not installed"); return }
        let db = try await smallIndex()
        let result = try await CLI.run([
            "suggest", SharedData.quickDraw("raw/cat.ndjson").path, "--db", db, "--limit", "3", "--labels", "4", "--per-label", "2",
            "--json", "--lang", "fr",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let guesses = try #require(object["guesses"] as? [[String: Any]])
            let suggestions = try #require(object["suggestions"] as? [[String: Any]])
            #expect(guesses.count == 5 && guesses.allSatisfy { $0["label"] is String && $0["probability"] is Double })
            let labels = Set(guesses.prefix(4).compactMap { $0["label"] as? String })
            let frenchNames = Dictionary(
                guesses.compactMap { guess in (guess["label"] as? String).map { ($0, guess["display"] as? String) } },
                uniquingKeysWith: { first, _ in first })
            #expect(suggestions.count <= 8)
            for suggestion in suggestions {
                #expect(Set(suggestion.keys) == ["id", "label", "score", "source", "title", "displayTitle"])
                let label = suggestion["label"] as? String ?? ""
                #expect(
                    suggestion["displayTitle"] as? String == frenchNames[label] ?? nil,
                    "a clip-art picture is named by its class in French (\(label))")
                #expect(labels.contains(suggestion["label"] as? String ?? ""), "a suggestion stands for one of the top 4 guesses")
                #expect(
                    (suggestion["id"] as? String)?.hasPrefix("clipart:mammals/") == true && suggestion["source"] as? String == "clipart")
            }
            let scores = suggestions.compactMap { $0["score"] as? Double }
            #expect(scores == scores.sorted(by: >), "ranked best first")
        }
        #expect(result.stderr.contains("own class among the first 8 suggestions") && result.stderr.contains("p99"))
    }

    @Test func similarityPrintsDistancesAndDrawsPictures() async throws {
        guard SharedData.isAvailable else { print(SharedData.skipMessage); return }
        let pig = Self.clipart.appendingPathComponent("a_simple_pig_01.svg").path
        var inputs = [SharedData.quickDraw("raw/cat.ndjson").path, SharedData.quickDraw("raw/pig.ndjson").path]
        if FileManager.default.fileExists(atPath: pig) { inputs.append(pig) }
        let heatmap = folder.path("heatmap.png"), histogram = folder.path("histogram.png")
        let result = try await CLI.run(["similarity"] + inputs + ["--per-file", "2", "--heatmap", heatmap, "--histogram", histogram])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map {
            $0.split(separator: " ").prefix(inputs.count == 3 ? 5 : 4).compactMap { Double($0) }
        }
        #expect(rows.count == (inputs.count == 3 ? 5 : 4))
        for (i, row) in rows.enumerated() {
            #expect(row.count == rows.count && abs(row[i]) < 1e-3, "zero distance to itself")
            #expect(row.allSatisfy { (0...2).contains($0) })
        }
        for path in [heatmap, histogram] {
            let data = try #require(FileManager.default.contents(atPath: path))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 2000)
        }
        let bad = try await CLI.run(["similarity", folder.path("missing.svg")])
        #expect(bad.status != 0 && bad.stderr.contains("missing.svg"))
    }
}
