import Foundation
import SketchwiseFormats
import SketchwiseNN
import SketchwiseTestSupport
import Testing

/// Runs the built `sketchwise` binary as a user would.
struct CLI {
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = testBinary.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("sketchwise")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return SharedData.packageRoot.appendingPathComponent(".build/debug/sketchwise")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary to completion. The blocking wait happens on a Dispatch thread, never on
    /// one of Swift concurrency's shared threads, so other async tests keep running meanwhile.
    static func run(_ arguments: [String], in directory: URL = SharedData.packageRoot) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try runToCompletion(arguments, in: directory) })
            }
        }
    }

    private final class Output: @unchecked Sendable {
        var data = Data()
    }

    private static func runToCompletion(_ arguments: [String], in directory: URL) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained at once: a child filling one while we wait on the other would hang.
        let stderr = Output()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) { stderr.data = err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr.data, as: UTF8.self))
    }
}

@Suite struct CLITests {
    let folder = TemporaryFolder()

    @Test(arguments: [
        "", "simplify", "render", "info", "demo", "bench", "suggest", "similarity", "fewshot", "serve", "photo", "shortcuts",
        "shortcuts add", "corrections export", "models list", "models download", "detect", "scenes-eval",
    ])
    func helpMatchesItsGoldenFile(command: String) async throws {
        let result = try await CLI.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent(
                "Fixtures/help-\(command.isEmpty ? "sketchwise" : command.replacingOccurrences(of: " ", with: "-")).txt")
        if ProcessInfo.processInfo.environment["SKETCHWISE_UPDATE_GOLDEN"] != nil {
            try result.stdout.write(to: golden, atomically: true, encoding: .utf8)
        }
        #expect(result.stdout == (try String(contentsOf: golden, encoding: .utf8)))
    }

    @Test func simplifyReportsTheBadLineAndFailsOrSkipsIt() async throws {
        let input = folder.path("cat.ndjson")
        try """
        {"word":"cat","drawing":[[[0,10,20],[0,10,0],[0,1,2]]]}
        {"word":"cat","drawing":[[[0,10],[0]]]}
        """.write(toFile: input, atomically: true, encoding: .utf8)
        let failed = try await CLI.run(["simplify", input])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("cat.ndjson:2: stroke 0: stroke arrays differ in length"))
        let skipped = try await CLI.run(["simplify", input, "--skip-bad", "-o", folder.path("out.ndjson")])
        #expect(skipped.status == 0)
        #expect(skipped.stderr.contains("simplified 1 drawings, skipped 1 bad"))
        #expect(
            try String(contentsOfFile: folder.path("out.ndjson"), encoding: .utf8) == #"{"word":"cat","drawing":[[[0,127,255],[0,127,0]]]}"#
                + "\n")
    }

    /// A folder of several classes into one `.ndjson` (what `-o out.ndjson` asks for), into a
    /// folder otherwise; never into one `.bin`, whose records name no class.
    @Test func simplifyingAFolderWritesTheFileOrTheFolderItIsTold() async throws {
        let input = folder.path("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for word in ["cat", "dog"] {
            try #"{"word":"\#(word)","drawing":[[[0,10,20],[0,10,0]]]}"#.write(
                toFile: "\(input)/\(word).ndjson", atomically: true, encoding: .utf8)
        }
        let merged = try await CLI.run(["simplify", input, "-o", folder.path("all.ndjson")])
        #expect(merged.status == 0, "\(merged.stderr)")
        let lines = try String(contentsOfFile: folder.path("all.ndjson"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains(#""word":"cat""#) && lines[1].contains(#""word":"dog""#))
        let perClass = try await CLI.run(["simplify", input, "-o", folder.path("out")])
        #expect(perClass.status == 0 && FileManager.default.fileExists(atPath: folder.path("out/dog.ndjson")), "\(perClass.stderr)")
        let binary = try await CLI.run(["simplify", input, "-o", folder.path("all.bin")])
        #expect(binary.status != 0 && binary.stderr.contains("a .bin file holds one class"), "\(binary.stderr)")
    }

    @Test func drawingsBeyondTheServersLimitsAreBadInputUnlessRaised() async throws {
        let input = folder.path("many.ndjson")
        let strokes = (0..<300).map { "[[\($0),\($0 + 5)],[0,9]]" }.joined(separator: ",")
        try """
        {"word":"cat","drawing":[[[0,10,20],[0,10,0]]]}
        {"word":"cat","drawing":[\(strokes)]}
        """.write(toFile: input, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["simplify", input, "-o", folder.path("a.ndjson")])
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("many.ndjson:2: 300 strokes; at most 256 are accepted (raise the limit with --max-strokes"),
            "\(refused.stderr)")
        let skipped = try await CLI.run(["simplify", input, "--skip-bad", "-o", folder.path("b.ndjson")])
        #expect(skipped.stderr.contains("simplified 1 drawings, skipped 1 bad"), "\(skipped.stderr)")
        let raised = try await CLI.run(["simplify", input, "--max-strokes", "300", "-o", folder.path("c.ndjson")])
        #expect(raised.status == 0 && raised.stderr.contains("simplified 2 drawings"), "\(raised.stderr)")
        let points = try await CLI.run([
            "simplify", input, "--max-strokes", "300", "--max-points", "3", "--skip-bad", "-o", folder.path("d.ndjson"),
        ])
        #expect(points.stderr.contains("many.ndjson:2: 600 points; at most 3 are accepted"), "\(points.stderr)")
        #expect(points.stderr.contains("simplified 1 drawings, skipped 1 bad"), "\(points.stderr)")
    }

    @Test func aNegativeNumberIsAnOptionsValueThatTheCommandRefuses() async throws {
        let strokes = try await CLI.run(["simplify", "Examples/sample-house.ndjson", "--max-strokes", "-1", "-o", folder.path("n.ndjson")])
        #expect(strokes.status != 0 && strokes.stderr.contains("--max-strokes and --max-points must be at least 1"), "\(strokes.stderr)")
        let days = try await CLI.run(["serve", "--model-check-days", "-2", "--port", "0"])
        #expect(days.status != 0 && days.stderr.contains("--model-check-days must not be negative"), "\(days.stderr)")
    }

    @Test func renderWritesANumpyFileAndChecksItsOptions() async throws {
        let result = try await CLI.run(["render", "Examples/sample-house.ndjson", "--size", "28", "--npy", folder.path("h.npy")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try NPYArray(contentsOf: folder.path("h.npy")).shape == [1, 784])
        let conflicting = try await CLI.run(["render", "Examples/sample-house.ndjson", "--npy", "a.npy", "--png-dir", "b"])
        #expect(conflicting.status != 0)
        #expect(conflicting.stderr.contains("give exactly one of --npy and --png-dir"))
    }

    @Test func infoPrintsJSONAndMissingInputIsAClearError() async throws {
        let result = try await CLI.run(["info", "Examples/sample-house.ndjson", "--json"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let classes = try #require(object?["classes"] as? [String: [String: Int]])
        #expect(classes["house"]?["drawings"] == 1)
        let missing = try await CLI.run(["info", "no-such-file.ndjson"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no-such-file.ndjson: no such file or folder"))
    }

    @Test func demoRendersTheSampleDrawing() async throws {
        let result = try await CLI.run(["demo", "--out", folder.path("demo")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("house: 4 strokes"))
        for file in ["sketch.svg", "sketch.png", "raster-28.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path("demo/\(file)")))
        }
    }

    /// `index doodles` names each doodle by its drawing's key_id, so that a review stays with it.
    @Test func doodlesAreNamedByTheirDrawings() async throws {
        let data = SharedData.packageRoot.appendingPathComponent("Tests/Fixtures/quickdraw/raw")
        let result = try await CLI.run([
            "index", "doodles", "--data", data.path, "--out", folder.path("doodles"), "--per-class", "2", "--scan", "6",
            "--no-model-store",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let star = try FileManager.default.contentsOfDirectory(atPath: folder.path("doodles/star"))
        let keyIDs = try String(contentsOf: data.appendingPathComponent("star.ndjson"), encoding: .utf8)
        #expect(star.count == 2, "\(star)")
        for name in star {
            let keyID = name.replacingOccurrences(of: ".svg", with: "")
            #expect(keyID.count > 8 && keyID.allSatisfy(\.isNumber) && keyIDs.contains(#""key_id":"\#(keyID)""#), "\(name)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.path("doodles/ATTRIBUTION.txt")))
    }

    /// `--dense-precision int8` reaches the model (the benchmark says how its products ran), so
    /// does float32, and the default, auto, is int8 on a CPU with VNNI; an unknown precision is
    /// refused with the values there are.
    @Test func densePrecisionIsPassedToTheModel() async throws {
        let model = SharedData.packageRoot.appendingPathComponent("Models/raster-cnn.json").path
        let int8 = try await CLI.run(["bench", "--model-file", model, "--rounds", "1", "--dense-precision", "int8", "--json"])
        #expect(int8.status == 0, "\(int8.stderr)")
        #expect(int8.stdout.contains(#""densePrecision":"int8""#), "\(int8.stdout)")
        let float = try await CLI.run(["bench", "--model-file", model, "--rounds", "1", "--dense-precision", "float32"])
        #expect(float.status == 0 && float.stdout.contains("float32 products"), "\(float.stdout)")
        let auto = try await CLI.run(["bench", "--model-file", model, "--rounds", "1", "--json"])
        let chosen = KernelVariant.int8UsesVNNI ? "int8" : "float32"
        #expect(auto.status == 0 && auto.stdout.contains(#""densePrecision":"\#(chosen)""#), "\(auto.stdout)")
        let unknown = try await CLI.run(["bench", "--model-file", model, "--dense-precision", "float16"])
        #expect(unknown.status != 0 && unknown.stderr.contains("float32") && unknown.stderr.contains("int8"), "\(unknown.stderr)")
    }

    /// `eval --models DIR --model NAME` with DIR holding only NAME's two files, NAME knowing 2 classes.
    @Test func evalByNameInAFolderOfOneModelScoresItsClassesOnly() async throws {
        try TestModels.writeConstantRaster(name: "few", labels: ["cat", "dog"], in: folder.url)
        try [#"{"word":"cat","drawing":[[[0,40],[0,60]]]}"#, #"{"word":"airplane","drawing":[[[0,40],[0,60]]]}"#]
            .joined(separator: "\n").write(toFile: folder.path("d.ndjson"), atomically: true, encoding: .utf8)
        let text = try await CLI.run(["eval", "--models", folder.path(""), "--model", "few", "--data", folder.path("d.ndjson")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("scored 1 of 2 drawings: the model knows 2 classes") && text.stdout.contains("top-1 100.00%"))
        let json = try await CLI.run(["eval", "--models", folder.path(""), "--model", "few", "--data", folder.path("d.ndjson"), "--json"])
        #expect(
            json.stdout.contains(#""classes":2"#) && json.stdout.contains(#""drawings":2"#) && json.stdout.contains(#""unknown_class":1"#))
        let unknown = try await CLI.run(["eval", "--models", folder.path(""), "--model", "doodlenet", "--data", folder.path("d.ndjson")])
        #expect(unknown.status != 0 && unknown.stderr.contains("no doodlenet.json in"))
        let ensemble = try await CLI.run(["classify", "--models", folder.path(""), folder.path("d.ndjson")])
        #expect(ensemble.status != 0 && ensemble.stderr.contains("no ensemble.json in"))
    }
}

/// `--database` that names no usable database stops the command with a message and exit code 1.
@Suite struct DatabaseOptionTests {
    @Test(arguments: [
        (["corrections", "export", "--database", "mysql://db.example/x"], "must be a file path (SQLite) or a postgres:// URL"),
        (["corrections", "export", "--database", "postgress://ann:hunter2@db.example/x"], "not postgress://ann:***@db.example/x"),
        (
            ["corrections", "export", "--database", "postgres://sketchwise:hunter2@127.0.0.1:1/sketchwise?sslmode=disable"],
            "cannot open PostgreSQL"
        ),
        (["shortcuts", "list", "--user", "ann", "--database", "postgres://127.0.0.1/a/b"], "must name one database"),
    ])
    func aBadDatabaseIsAClearError(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"), "the password is not printed")
    }
}

/// `--lang` (issue 41): classify and detect name classes in the chosen language beside their labels.
@Suite struct LanguageOptionTests {
    static let star = SharedData.packageRoot.appendingPathComponent("Tests/Fixtures/quickdraw/raw/star.ndjson").path

    @Test func classifyAndDetectNameClassesInFrench() async throws {
        let classify = try await CLI.run(["classify", "--lang", "fr", "--json", Self.star])
        #expect(classify.status == 0, "\(classify.stderr)")
        #expect(
            classify.stdout.contains(#""label":"star""#) && classify.stdout.contains(#""display":"étoile""#),
            "\(classify.stdout.prefix(300))")
        let detect = try await CLI.run(["detect", "--lang", "fr", "--json", Self.star])
        #expect(detect.status == 0, "\(detect.stderr)")
        #expect(detect.stdout.contains(#""text":"star""#) && detect.stdout.contains(#""display":"étoile""#), "\(detect.stdout.prefix(300))")
        let text = try await CLI.run(["detect", "--lang", "fr", Self.star])
        #expect(text.stdout.contains("étoile (star)"), "\(text.stdout.prefix(300))")
        let english = try await CLI.run(["detect", "--lang", "en", Self.star])
        #expect(english.stdout.contains("star") && !english.stdout.contains("(star)"))
        let bad = try await CLI.run(["detect", "--lang", "xx", Self.star])
        #expect(bad.status != 0 && bad.stderr.contains("--lang must be one of"))
    }
}
