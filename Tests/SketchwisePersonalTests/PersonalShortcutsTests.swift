import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwisePersonal
import SketchwiseRecognition
import SketchwiseShortcuts
import SketchwiseTestSupport
import Testing

/// The personal store in a real SQLite file and the update task over the bundled shortcut
/// embedding.
@Suite struct PersonalShortcutsTests {
    static let embedder: ModelRecognizer? = try? RecognizerSet.load(from: SharedData.packageRoot.appendingPathComponent("Models")).shortcutEmbedding

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
        PersonalShortcuts(store: try SQLitePersonalStore(path: folder.path("personal.sqlite")), embedder: try #require(Self.embedder))
    }

    @Test func aTaughtShortcutIsFoundAndSurvivesReopening() throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let (user, token) = try shortcuts.store.createUser(name: nil)
        #expect(token.count == 64 && user.name == "user-\(user.id)")
        #expect(try shortcuts.store.user(token: token) == user)
        #expect(try shortcuts.store.user(token: "not-a-token") == nil)
        let file = try Data(contentsOf: URL(fileURLWithPath: folder.path("personal.sqlite")))
            + ((try? Data(contentsOf: URL(fileURLWithPath: folder.path("personal.sqlite-wal")))) ?? Data())
        #expect(file.range(of: Data(token.utf8)) == nil, "the token itself is never stored")

        var events: [ShortcutUpdateTask.Event] = []
        let version = try shortcuts.apply(ShortcutUpdateTask(user: user.id, change: .teach(label: "🌀", examples: (1...3).map { Self.drawing("spiral", seed: $0) }))) {
            events.append($0)
        }
        #expect(version == 1)
        #expect(events == [.began(examples: 3), .exampleEmbedded(1, of: 3), .exampleEmbedded(2, of: 3), .exampleEmbedded(3, of: 3), .completed(version: 1)])
        #expect(try shortcuts.predict(user: user.id, sketch: Self.drawing("spiral", seed: 9)).label == "🌀")

        let reopened = try service(folder)
        #expect(try reopened.labels(user: user.id).map(\.label) == ["🌀"])
        #expect(try reopened.predict(user: user.id, sketch: Self.drawing("spiral", seed: 10)).label == "🌀")
        let stored = try reopened.store.model(user: user.id)
        #expect(stored.version == 1 && stored.examples.count == 3 && stored.embedder == shortcuts.embedderIdentity)
        #expect(stored.examples[0].sketch == Self.drawing("spiral", seed: 1), "the drawing is kept as taught (with its times)")
    }

    @Test func aCancelledOrRefusedUpdateWritesNothingAndSaysSo() throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try shortcuts.store.createUser(name: "ann").user
        let task = ShortcutUpdateTask(user: user.id, change: .teach(label: "x", examples: (1...3).map { Self.drawing("spiral", seed: $0) }))
        task.cancel()
        var events: [ShortcutUpdateTask.Event] = []
        #expect(throws: PersonalError.self) { try shortcuts.apply(task) { events.append($0) } }
        #expect(events.last == .cancelled)

        events = []
        let tooFew = ShortcutUpdateTask(user: user.id, change: .teach(label: "x", examples: [Self.drawing("spiral", seed: 1)]))
        #expect(throws: PersonalError(.invalid, "a shortcut needs at least 3 examples; \"x\" has 1")) { try shortcuts.apply(tooFew) { events.append($0) } }
        #expect(events == [.failed("a shortcut needs at least 3 examples; \"x\" has 1")])
        #expect(throws: PersonalError.self) { try shortcuts.apply(ShortcutUpdateTask(user: user.id, change: .remove(label: "x"))) }
        #expect(try shortcuts.store.model(user: user.id) == PersonalModel(version: 0, embedder: "", examples: []))
        #expect(throws: PersonalError.self) { try shortcuts.store.createUser(name: "ann") }
    }

    @Test func aStaleWriteIsRefused() throws {
        let folder = TemporaryFolder()
        let store = try SQLitePersonalStore(path: folder.path("personal.sqlite"))
        let user = try store.createUser(name: nil).user
        let model = PersonalModel(version: 0, embedder: "m@1", examples: [])
        #expect(try store.save(model, user: user.id, expectedVersion: 0) == 1)
        #expect(throws: PersonalError.self) { try store.save(model, user: user.id, expectedVersion: 0) }
        #expect(try store.modelVersion(user: user.id) == 1)
    }

    @Test func examplesOfAnotherEmbedderAreEmbeddedAgain() throws {
        let folder = TemporaryFolder()
        let shortcuts = try service(folder)
        let user = try shortcuts.store.createUser(name: nil).user
        let dimension = try #require(shortcuts.embedder.model.embeddingCount)
        let stale = (1...3).map { ShortcutExample(label: "🌀", sketch: Self.drawing("spiral", seed: $0), embedding: [Float](repeating: 1, count: dimension)) }
        _ = try shortcuts.store.save(PersonalModel(version: 0, embedder: "an-older-model@0.9", examples: stale), user: user.id, expectedVersion: 0)
        let match = try shortcuts.predict(user: user.id, sketch: Self.drawing("spiral", seed: 1))
        #expect(match.label == "🌀" && match.distance < 0.01, "the stored drawing was embedded again by the current model")
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let folder = TemporaryFolder()
        try Data("not sqlite at all".utf8).write(to: URL(fileURLWithPath: folder.path("personal.sqlite")))
        #expect(throws: PersonalError.self) { try SQLitePersonalStore(path: folder.path("personal.sqlite")) }
    }

    @Test func experimentCountsAddUpPerArmAndSurviveReopening() throws {
        let folder = TemporaryFolder()
        do {
            let store = try SQLitePersonalStore(path: folder.path("personal.sqlite"))
            try store.count(experiment: "m@2", arm: "treatment", served: 1, accepted: 0)
            try store.count(experiment: "m@2", arm: "treatment", served: 1, accepted: 1)
            try store.count(experiment: "m@2", arm: "control", served: 3, accepted: 0)
            try store.count(experiment: "other@1", arm: "control", served: 9, accepted: 9)
        }
        let reopened = try SQLitePersonalStore(path: folder.path("personal.sqlite"))
        #expect(try reopened.counts(experiment: "m@2") == [
            ExperimentCount(arm: "control", served: 3, accepted: 0), ExperimentCount(arm: "treatment", served: 2, accepted: 1),
        ])
    }

    @Test func correctionsAreKeptPerUserOldestFirst() throws {
        let folder = TemporaryFolder()
        let store = try SQLitePersonalStore(path: folder.path("personal.sqlite"))
        let ann = try store.createUser(name: "ann").user, bob = try store.createUser(name: "bob").user
        try store.addCorrection(user: ann.id, label: "snail", sketch: Self.drawing("spiral", seed: 1))
        try store.addCorrection(user: bob.id, label: "saw", sketch: Self.drawing("zigzag", seed: 1))
        try store.addCorrection(user: ann.id, label: "spring", sketch: Self.drawing("spiral", seed: 2))
        #expect(try store.corrections(user: "ann").map(\.label) == ["snail", "spring"])
        #expect(try store.corrections(user: nil).map(\.user) == ["ann", "bob", "ann"])
        try store.setKeepsCorrections(false, user: ann.id)
        #expect(try store.user(named: "ann")?.keepsCorrections == false)
    }
}
