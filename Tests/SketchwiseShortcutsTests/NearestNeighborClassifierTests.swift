import Testing
@testable import SketchwiseShortcuts

/// The updatable k-NN of personal shortcuts (issue 16): at least three examples for a new label,
/// unknown when nothing is near, examples added and removed, votes by distance.
@Suite struct NearestNeighborClassifierTests {
    /// A unit vector near axis `axis` of 4 dimensions, tilted by `tilt` towards the next axis.
    func near(_ axis: Int, tilt: Float = 0) -> [Float] {
        var v = [Float](repeating: 0, count: 4)
        v[axis] = 1
        v[(axis + 1) % 4] = tilt
        return v
    }

    @Test func aNewLabelNeedsThreeExamplesAndAKnownOneTakesAny() throws {
        var knn = NearestNeighborClassifier(dimension: 4)
        #expect(throws: ShortcutError("a new label needs at least 3 examples; \"spiral\" has 2")) {
            try knn.add(label: "spiral", embeddings: [near(0), near(0, tilt: 0.1)])
        }
        #expect(knn.examples.isEmpty, "nothing is added when it fails")
        try knn.add(label: "spiral", embeddings: [near(0), near(0, tilt: 0.1), near(0, tilt: -0.1)])
        try knn.add(label: "spiral", embeddings: [near(0, tilt: 0.05)])
        #expect(knn.examples.count == 4 && knn.labels == ["spiral"])
    }

    @Test func itAnswersTheNearestLabelOrUnknown() throws {
        var knn = NearestNeighborClassifier(dimension: 4)
        try knn.add(label: "🌀", embeddings: [near(0), near(0, tilt: 0.1), near(0, tilt: 0.2)])
        try knn.add(label: "⭐", embeddings: [near(2), near(2, tilt: 0.1), near(2, tilt: 0.2)])
        #expect(try knn.predict(near(0, tilt: 0.15)).label == "🌀")
        #expect(try knn.predict([0, 0, 5, 0.3]).label == "⭐", "embeddings are normalised first")
        let far = try knn.predict(near(1))     // orthogonal to both: cosine distance 1 (or 0.99)
        #expect(far.label == nil && far.distance > 0.75)
        knn.configuration.unknownDistance = 1.5
        #expect(try knn.predict(near(1)).label != nil, "a looser threshold answers a label")
    }

    @Test func aMisfireSilencesTheShortcutWhereItFiredAndNowhereElse() throws {
        var knn = NearestNeighborClassifier(dimension: 4)
        try knn.add(label: "🌀", embeddings: [near(0), near(0, tilt: 0.3), near(0, tilt: 0.4)])
        #expect(try knn.predict(near(0, tilt: -0.35)).label == "🌀", "a drawing near the examples fires")
        try knn.add(label: NearestNeighborClassifier.misfireLabel, embeddings: [near(0, tilt: -0.35)])
        let silenced = try knn.predict(near(0, tilt: -0.33))
        #expect(silenced.label == nil && silenced.distance < 0.01, "the drawing the person undid, or one like it, is unknown")
        #expect(try knn.predict(near(0, tilt: 0.35)).label == "🌀", "the shortcut still fires on its own side")
    }

    @Test func removingALabelForgetsIt() throws {
        var knn = NearestNeighborClassifier(dimension: 4)
        try knn.add(label: "a", embeddings: [near(0), near(0), near(0)])
        try knn.add(label: "b", embeddings: [near(2), near(2), near(2)])
        #expect(knn.remove(label: "a") == 3 && knn.remove(label: "missing") == 0)
        #expect(knn.labels == ["b"])
        #expect(try knn.predict(near(0)).label == nil)
    }

    @Test func inverseDistanceLetsOneCloseExampleOutvoteTwoFarOnes() throws {
        var config = NearestNeighborClassifier.Configuration(k: 3, weighting: .uniform, unknownDistance: 2)
        var knn = NearestNeighborClassifier(dimension: 2, configuration: config)
        try knn.add(label: "far", embeddings: [[1, 0.9], [1, -0.9], [1, 0.95]])
        try knn.add(label: "close", embeddings: [[1, 0.01], [-1, 0], [-1, 0.1]])
        #expect(try knn.predict([1, 0]).label == "far", "two of the three nearest are far ones")
        config.weighting = .inverseDistance
        knn.configuration = config
        #expect(try knn.predict([1, 0]).label == "close")
    }

    @Test(arguments: [
        ([Float](repeating: 0, count: 4), "is all zeros"),
        ([1, 2, 3], "has 3 values; the embedding has 4"),
        ([1, .nan, 0, 0], "not finite"),
    ])
    func badEmbeddingsAreClearErrors(embedding: [Float], message: String) {
        var knn = NearestNeighborClassifier(dimension: 4)
        #expect { try knn.add(label: "x", embeddings: [embedding, near(0), near(1)]) } throws: { "\($0)".contains(message) }
        #expect { _ = try knn.predict(embedding) } throws: { "\($0)".contains(message) }
        #expect { try knn.add(label: "  ", embeddings: [near(0), near(1), near(2)]) } throws: { "\($0)".contains("must not be empty") }
    }
}

@Suite struct FewShotEvaluationTests {
    /// `labels` clusters of `each` items in `dimension` dimensions, spread by `noise`.
    func clusters(labels: Int, each: Int, noise: Float, seed: UInt64 = 7) -> [(label: String, embedding: [Float])] {
        var random = SplitMix64(seed: seed)
        let dimension = 16
        return (0..<labels).flatMap { label in
            (0..<each).map { _ in
                var v = [Float](repeating: 0, count: dimension)
                v[label % dimension] = 1
                for index in 0..<dimension { v[index] += Float.random(in: -noise...noise, using: &random) }
                return ("L\(label)", v)
            }
        }
    }

    @Test func wellSeparatedClustersScoreFullMarksAndNoiseScoresChance() throws {
        let easy = try FewShotEvaluation.run(items: clusters(labels: 10, each: 5, noise: 0.1), ways: 5, shots: 1, episodes: 200, seed: 1)
        #expect(easy.accuracy == 1 && easy.eligibleLabels == 10)
        let noise = try FewShotEvaluation.run(items: clusters(labels: 10, each: 5, noise: 50), ways: 5, shots: 1, episodes: 400, seed: 1)
        #expect(noise.accuracy > 0.1 && noise.accuracy < 0.35, "5-way chance is 20 %: \(noise.accuracy)")
    }

    @Test func theSameSeedDrawsTheSameEpisodes() throws {
        let items = clusters(labels: 8, each: 4, noise: 0.9)
        let a = try FewShotEvaluation.run(items: items, ways: 4, shots: 2, episodes: 50, seed: 42)
        let b = try FewShotEvaluation.run(items: items, ways: 4, shots: 2, episodes: 50, seed: 42)
        #expect(a == b)
    }

    @Test func openSetEpisodesCountTaughtAnswersAndUntaughtRefusals() throws {
        let items = clusters(labels: 12, each: 5, noise: 0.05)
        func measured(_ distance: Float) throws -> FewShotEvaluation.OpenSetResult {
            try FewShotEvaluation.openSet(
                items: items, ways: 4, shots: 3, episodes: 100, seed: 3,
                configuration: NearestNeighborClassifier.Configuration(unknownDistance: distance))
        }
        // Clusters on orthogonal axes: a drawing of another label is at distance about 1.
        #expect(
            try measured(0.2)
                == FewShotEvaluation.OpenSetResult(
                    ways: 4, shots: 3, episodes: 100, misfireDrawings: 0, misfiresUndone: 0, knownCorrect: 1, unknownRejected: 1))
        let loose = try measured(2)
        #expect(loose.knownCorrect == 1 && loose.unknownRejected == 0, "at 2 everything is accepted")
    }

    @Test func undoingTheShortcutsThatFireOnEarlierDrawingsKeepsThemQuietOnThoseLabels() throws {
        let items = clusters(labels: 12, each: 5, noise: 0.05)
        let undoing = try FewShotEvaluation.openSet(
            items: items, ways: 4, shots: 3, episodes: 100, seed: 3,
            configuration: NearestNeighborClassifier.Configuration(unknownDistance: 2), misfireDrawings: 4)
        // At 2 every earlier drawing fires, unless a misfire of another label is its nearest example.
        #expect(undoing.misfireDrawings == 4 && undoing.misfiresUndone > 3.5 && undoing.misfiresUndone <= 4)
        #expect(undoing.unknownRejected > 0.9, "an untaught label's misfire silences its next drawing (0 without)")
        #expect(undoing.knownCorrect == 1, "and not the taught ones")
    }

    @Test func tooFewLabelsWithEnoughItemsIsAClearError() {
        let items = clusters(labels: 4, each: 2, noise: 0.1)
        #expect(throws: ShortcutError("5-way 1-shot needs 5 labels with 2 items each; 4 have")) {
            try FewShotEvaluation.run(items: items, ways: 5, shots: 1, episodes: 1, seed: 1)
        }
    }
}

/// Unknown thresholds per number of examples (issue 40): a label taught from more examples needs a
/// closer one, and a label with more examples than the list uses its last threshold.
@Suite struct UnknownDistancesTests {
    @Test func theNearestExamplesLabelSetsTheThreshold() throws {
        var knn = NearestNeighborClassifier(
            dimension: 2, configuration: .init(k: 1, minimumExamples: 1, unknownDistances: [0.5, 0.3, 0.1]))
        try knn.add(label: "one", embeddings: [[1, 0]])
        try knn.add(label: "three", embeddings: [[0, 1], [0, 1], [0, 1]])
        #expect(try knn.predict([0.6, 0.8]).label == nil, "nearest is three's, at 0.2: farther than its 0.1")
        #expect(try knn.predict([0.95, 0.3122]).label == "one", "nearest is one's, at 0.05: within its 0.5")
        #expect(try knn.predict([0.1, 0.995]).label == "three", "nearest is three's, at 0.005: within its 0.1")
        try knn.add(label: "three", embeddings: [[0, 1]])
        #expect(knn.configuration.unknownDistance(examples: 4) == 0.1, "more examples than the list: the last")
        #expect(NearestNeighborClassifier.Configuration(unknownDistance: 0.4).unknownDistance(examples: 7) == 0.4, "no list: the one")
    }
}
