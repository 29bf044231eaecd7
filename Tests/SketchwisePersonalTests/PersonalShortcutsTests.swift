import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwisePersonal
import SketchwiseRecognition
import SketchwiseShortcuts
import SketchwiseTestSupport
import Testing

/// The shortcuts service and its update task over the bundled shortcut embedding, on a personal
/// store in a real SQLite file (PersonalStoreContractTests checks the stores themselves).
@Suite struct PersonalShortcutsTests {
    static let embedder: ModelRecognizer? = try? RecognizerSet.load(from: SharedData.packageRoot.appendingPathComponent("Models"))
        .shortcutEmbedding

    /// A wobbly spiral or zigzag of `seed`, in a 0…255 box.
    static func drawing(_ kind: String, seed: Int) -> StrokeSketch {
        var generator = SplitMix(seed: UInt64(seed))
        let points: [Point] = (0..<60).map { i in
            let f = Double(i) / 59
            if kind == "spiral" {
                let angle = f * 5 * .pi, radius = 10 + 110 * f * (0.95 + 0.1 * generator.unit())
                return Point(x: 128 + radius * cos(angle), y: 128 + radius * sin(angle), t: Double(i * 15))
            }
            return Point(x: f * 255, y: i % 2 == 0 ? 0 : 60 + 10 * generator.unit(), t: Double(i * 15))
        }
        return StrokeSketch(strokes: [Stroke(points: points)])
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func unit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }

    func service(_ folder: TemporaryFolder) throws -> PersonalShortcuts {
        try PersonalShortcuts(store: try SQLitePersonalStore(path: folder.path("personal.sqlite")), embedder: try #require(Self.embedder))
    }

    @Test func theEmbeddingsCalibrationSetsTheUnknownThresholdPerNumberOfExamples() throws {
        let embedder = try #require(Self.embedder)
        let distances = try #require(embedder.model.spec.shortcuts?.unknownDistances, "the shipped embedding is calibrated")
        let shortcuts = try service(TemporaryFolder())
        #expect(shortcuts.configuration.unknownDistances == distances && distances.count == 10)
        #expect(distances == distances.sorted(by: >), "more examples, a closer nearest example needed")
        // A spec whose thresholds are not cosine distances is refused when the service is made.
        let folder = TemporaryFolder()
        let source = embedder.model.url
        var spec = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        spec["shortcuts"] = ["unknownDistances": [0.3, 2.5]]
        let copy = folder.url.appendingPathComponent("sketch-embedding.json")
        try JSONSerialization.data(withJSONObject: spec).write(to: copy)
        try FileManager.default.createSymbolicLink(
            at: folder.url.appendingPathComponent("sketch-embedding.safetensors"), withDestinationURL: embedder.model.weightsURL)
        let bad = try ModelRecognizer(contentsOf: copy)
        #expect(throws: ShortcutError("sketch-embedding: shortcuts.unknownDistances must list cosine distances (0…2), at least one")) {
            try PersonalShortcuts(store: try SQLitePersonalStore(path: folder.path("personal.sqlite")), embedder: bad)
        }
    }

    /// Events of an update task, collected across threads.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [ShortcutUpdateTask.Event] = []
        func append(_ event: ShortcutUpdateTask.Event) { lock.withLock { events.append(event) } }
        var all: [ShortcutUpdateTask.Event] { lock.withLock { events } }
    }

    @Test func aTaughtShortcutIsFoundAndSurvivesReopening() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let (user, token) = try await shortcuts.store.createUser(name: nil)
        let file =
            try Data(contentsOf: URL(fileURLWithPath: folder.path("personal.sqlite")))
            + ((try? Data(contentsOf: URL(fileURLWithPath: folder.path("personal.sqlite-wal")))) ?? Data())
        #expect(file.range(of: Data(token.utf8)) == nil, "the token itself is never stored")

        let events = Events()
        let version = try await shortcuts.apply(
            ShortcutUpdateTask(user: user.id, change: .teach(label: "🌀", examples: (1...3).map { Self.drawing("spiral", seed: $0) })),
            events: events.append)
        #expect(version == 1)
        #expect(
            events.all == [
                .began(examples: 3), .exampleEmbedded(1, of: 3), .exampleEmbedded(2, of: 3), .exampleEmbedded(3, of: 3),
                .completed(version: 1),
            ])
        #expect(try await shortcuts.predict(user: user.id, sketch: Self.drawing("spiral", seed: 9)).label == "🌀")

        let reopened = try service(folder)
        #expect(try await reopened.labels(user: user.id).map(\.label) == ["🌀"])
        #expect(try await reopened.predict(user: user.id, sketch: Self.drawing("spiral", seed: 10)).label == "🌀")
        let stored = try await reopened.store.model(user: user.id)
        #expect(stored.version == 1 && stored.examples.count == 3 && stored.embedder == shortcuts.embedderIdentity)
        #expect(stored.examples[0].sketch == Self.drawing("spiral", seed: 1), "the drawing is kept as taught (with its times)")
    }

    @Test func aCancelledOrRefusedUpdateWritesNothingAndSaysSo() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try await shortcuts.store.createUser(name: "ann").user
        let task = ShortcutUpdateTask(user: user.id, change: .teach(label: "x", examples: (1...3).map { Self.drawing("spiral", seed: $0) }))
        task.cancel()
        let cancelled = Events()
        await #expect(throws: PersonalError.self) { try await shortcuts.apply(task, events: cancelled.append) }
        #expect(cancelled.all.last == .cancelled)

        let refused = Events()
        let tooFew = ShortcutUpdateTask(user: user.id, change: .teach(label: "x", examples: [Self.drawing("spiral", seed: 1)]))
        await #expect(throws: PersonalError(.invalid, "a shortcut needs at least 3 examples; \"x\" has 1")) {
            try await shortcuts.apply(tooFew, events: refused.append)
        }
        #expect(refused.all == [.failed("a shortcut needs at least 3 examples; \"x\" has 1")])
        let eleven = (1...11).map { Self.drawing("spiral", seed: $0) }
        let tooMany = ShortcutUpdateTask(user: user.id, change: .teach(label: "x", examples: eleven))
        await #expect(throws: PersonalError(.invalid, "a shortcut takes at most 10 examples; \"x\" has 11")) {
            try await shortcuts.apply(tooMany)
        }
        await #expect(throws: PersonalError.self) {
            try await shortcuts.apply(ShortcutUpdateTask(user: user.id, change: .remove(label: "x")))
        }
        #expect(try await shortcuts.store.model(user: user.id) == PersonalModel(version: 0, embedder: "", examples: []))
    }

    @Test func aMisfireKeepsTheShortcutsQuietOnThatDrawingAndIsNoShortcut() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try PersonalShortcuts(
            store: try SQLitePersonalStore(path: folder.path("personal.sqlite")), embedder: try #require(Self.embedder),
            limits: ShortcutLimits(maximumMisfires: 2))
        let user = try await shortcuts.store.createUser(name: nil).user.id
        try await shortcuts.apply(
            ShortcutUpdateTask(user: user, change: .teach(label: "🌀", examples: (1...3).map { Self.drawing("spiral", seed: $0) })))
        let undone = Self.drawing("spiral", seed: 9)
        #expect(try await shortcuts.predict(user: user, sketch: undone).label == "🌀")

        let events = Events()
        let version = try await shortcuts.apply(
            ShortcutUpdateTask(user: user, change: .misfire(label: "🌀", drawing: undone)), events: events.append)
        #expect(events.all == [.began(examples: 1), .exampleEmbedded(1, of: 1), .completed(version: version)])
        let answer = try await shortcuts.predict(user: user, sketch: undone)
        #expect(answer.label == nil && answer.distance < 0.01, "the drawing the person undid is unknown now")
        #expect(try await shortcuts.labels(user: user).map(\.label) == ["🌀"], "the misfires are not listed")

        // Misfires are kept up to the limit, the oldest forgotten first, and only of a shortcut.
        for seed in [10, 11] {
            try await shortcuts.apply(
                ShortcutUpdateTask(user: user, change: .misfire(label: "🌀", drawing: Self.drawing("spiral", seed: seed))))
        }
        let misfires = try await shortcuts.store.model(user: user).examples.filter { $0.label == NearestNeighborClassifier.misfireLabel }
        #expect(misfires.map(\.sketch) == [10, 11].map { Self.drawing("spiral", seed: $0) })
        for label in ["⭐", NearestNeighborClassifier.misfireLabel] {
            await #expect(throws: PersonalError(.notFound, "no shortcut \(label)")) {
                try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .misfire(label: label, drawing: undone)))
            }
            await #expect(throws: PersonalError.self) {
                try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .remove(label: label)))
            }
        }
        await #expect(throws: PersonalError(.invalid, "the drawing has no points")) {
            try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .misfire(label: "🌀", drawing: StrokeSketch(strokes: []))))
        }
    }

    @Test func examplesOfAnotherEmbedderAreEmbeddedAgain() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try await shortcuts.store.createUser(name: nil).user
        let dimension = try #require(shortcuts.embedder.model.embeddingCount)
        let stale = (1...3).map {
            ShortcutExample(label: "🌀", sketch: Self.drawing("spiral", seed: $0), embedding: [Float](repeating: 1, count: dimension))
        }
        _ = try await shortcuts.store.save(
            PersonalModel(version: 0, embedder: "an-older-model@0.9", examples: stale), user: user.id, expectedVersion: 0)
        let match = try await shortcuts.predict(user: user.id, sketch: Self.drawing("spiral", seed: 1))
        #expect(match.label == "🌀" && match.distance < 0.01, "the stored drawing was embedded again by the current model")
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let folder = TemporaryFolder()
        try Data("not sqlite at all".utf8).write(to: URL(fileURLWithPath: folder.path("personal.sqlite")))
        #expect(throws: PersonalError.self) { try SQLitePersonalStore(path: folder.path("personal.sqlite")) }
    }

    @Test func labelsAreTextAPersonTypedNormalizedAndWithoutControlCharacters() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try await shortcuts.store.createUser(name: nil).user.id
        let spirals = (1...3).map { Self.drawing("spiral", seed: $0) }
        let bigGrapheme = "e" + String(repeating: "\u{301}", count: 400_000)
        for (label, words) in [
            ("\u{0}abc", "U+0000"), ("a\u{0}b", "U+0000"), ("bell\u{7}", "U+0007"), ("del\u{7F}", "U+007F"), ("next\u{85}line", "U+0085"),
            ("\n", "empty"), (bigGrapheme, "at most 256 bytes"), (String(repeating: "ab", count: 101), "at most 200 characters"),
            (NearestNeighborClassifier.misfireLabel, "noncharacters (it holds U+FFFF)"),
        ] {
            let error = await #expect(throws: PersonalError.self) {
                try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .teach(label: label, examples: spirals)))
            }
            #expect(error?.kind == .invalid && error?.description.contains(words) == true, "\(String(describing: error))")
        }
        // "é" typed as e + a combining accent is the same label as "é" typed as one code point.
        try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .teach(label: "caf\u{65}\u{301}", examples: spirals)))
        try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .teach(label: "caf\u{E9}", examples: spirals)))
        let listed = try await shortcuts.labels(user: user)
        #expect(listed.count == 1 && listed[0].label.unicodeScalars.map(\.value) == [0x63, 0x61, 0x66, 0xE9] && listed[0].examples == 3)
        try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .remove(label: "cafe\u{301}")))
        #expect(try await shortcuts.labels(user: user).isEmpty)
    }

    @Test func aStoreWithLabelsOfOlderVersionsStillListsPredictsAndForgetsThem() async throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try await shortcuts.store.createUser(name: nil).user.id
        let embed = { (label: String, seed: Int) in
            ShortcutExample(
                label: label, sketch: Self.drawing("spiral", seed: seed),
                embedding: try shortcuts.embedder.embedding(Self.drawing("spiral", seed: seed)))
        }
        // As older versions wrote them: a label starting with NUL (SQLite kept ""), one of 800 KB.
        let huge = "e" + String(repeating: "\u{301}", count: 400_000)
        let examples =
            try (1...3).map { try embed("\u{0}abc", $0) } + (4...6).map { try embed(huge, $0) } + (7...9).map { try embed("ok", $0) }
        _ = try await shortcuts.store.save(
            PersonalModel(version: 0, embedder: shortcuts.embedderIdentity, examples: examples), user: user, expectedVersion: 0)

        let reopened = try service(folder)
        let listed = try await reopened.labels(user: user)
        #expect(listed.map(\.label) == ["\u{FFFD}", "ok"])
        #expect(listed.map(\.examples) == [6, 3], "the NUL label and the 800 KB one repair to U+FFFD and list as one")
        _ = try await reopened.predict(user: user, sketch: Self.drawing("spiral", seed: 10))
        try await reopened.apply(ShortcutUpdateTask(user: user, change: .remove(label: "\u{FFFD}")))
        #expect(try await reopened.labels(user: user).map(\.label) == ["ok"])
        try await reopened.apply(
            ShortcutUpdateTask(user: user, change: .teach(label: "🌀", examples: (1...3).map { Self.drawing("spiral", seed: $0) })))
        #expect(try await reopened.labels(user: user).map(\.label) == ["ok", "🌀"])
        #expect(
            try await reopened.store.model(user: user).examples.allSatisfy { $0.label.utf8.count <= 4 },
            "the store holds repaired labels only")
    }

    @Test func examplesPastAPersonsQuotaAreRefusedBeforeAnythingIsEmbedded() async throws {
        let folder = TemporaryFolder()
        let limits = ShortcutLimits(maximumExamples: 5, maximumExampleBytes: 20_000)
        let shortcuts = try PersonalShortcuts(
            store: try SQLitePersonalStore(path: folder.path("personal.sqlite")), embedder: try #require(Self.embedder), limits: limits)
        let user = try await shortcuts.store.createUser(name: nil).user.id
        try await shortcuts.apply(
            ShortcutUpdateTask(user: user, change: .teach(label: "a", examples: (1...3).map { Self.drawing("spiral", seed: $0) })))
        let events = Events()
        let tooMany = await #expect(throws: PersonalError.self) {
            try await shortcuts.apply(
                ShortcutUpdateTask(user: user, change: .teach(label: "b", examples: (4...6).map { Self.drawing("spiral", seed: $0) })),
                events: events.append)
        }
        #expect(
            tooMany?.kind == .limit && tooMany?.quota == .examples && events.all.count == 1, "\(String(describing: tooMany)) \(events.all)")
        // Teaching a label again replaces its examples: it counts once.
        try await shortcuts.apply(
            ShortcutUpdateTask(user: user, change: .teach(label: "a", examples: (4...8).map { Self.drawing("spiral", seed: $0) })))
        let big = StrokeSketch(strokes: [Stroke(points: (0..<2000).map { Point(x: Double($0 % 256), y: Double($0 / 8), t: Double($0)) })])
        try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .remove(label: "a")))
        let tooLarge = await #expect(throws: PersonalError.self) {
            try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .teach(label: "b", examples: [big, big, big])))
        }
        #expect(tooLarge?.kind == .limit && tooLarge?.quota == .exampleBytes, "\(String(describing: tooLarge))")
        #expect(try await shortcuts.labels(user: user).isEmpty)
    }
}
