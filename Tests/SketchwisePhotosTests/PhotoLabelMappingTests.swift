import SketchwiseRecognition
import Testing

@testable import SketchwisePhotos

@Suite struct PhotoLabelMappingTests {
    static let table = """
        # test table
        index\twnid\tname\tclasses\twords\tvia
        0\tn02123045\ttabby cat\tcat\ttabby|cat\thypernym:cat
        1\tn02123159\ttiger cat\tcat|tiger\ttiger cat|cat\thypernym:cat
        2\tn07920052\tespresso\t\tespresso|coffee\t
        3\tn09472597\tvolcano\t\t\t
        """

    @Test func parsesRowsAndLists() throws {
        let mapping = try PhotoLabelMapping(tsv: Self.table)
        #expect(mapping.entries.count == 4)
        #expect(mapping.entries[1] == PhotoLabelMapping.Entry(name: "tiger cat", classes: ["cat", "tiger"], words: ["tiger cat", "cat"]))
        #expect(mapping.entries[3]?.classes == [])
        #expect(mapping.coverage(of: 4) == 0.5)
    }

    @Test func refusesMalformedLinesNamingThem() {
        #expect(throws: PhotoError(.unreadable, "photo label table, line 2: expected index, wnid, name, classes, words")) {
            try PhotoLabelMapping(tsv: "0\tn1\ta\tcat\tcat\n1\tn2\n")
        }
        #expect(throws: PhotoError.self) { try PhotoLabelMapping(tsv: "0\tn1\ta\tcat\tcat\n0\tn1\ta\tcat\tcat\n") }
    }

    @Test func sumsTheConfidenceOfLabelsPerClass() throws {
        let mapping = try PhotoLabelMapping(tsv: Self.table)
        let labels = [
            PhotoLabel(index: 0, text: "tabby cat", confidence: 0.5), PhotoLabel(index: 1, text: "tiger cat", confidence: 0.3),
            PhotoLabel(index: 2, text: "espresso", confidence: 0.02),
        ]
        let classes = mapping.classes(for: labels, minimumConfidence: 0.05)
        #expect(classes.map(\.label) == ["cat", "tiger"])
        #expect(abs(classes[0].probability - 0.8) < 1e-9)
        // espresso (0.02) is under the minimum: its words find no pictures.
        #expect(mapping.pictureTopics(for: labels, classes: classes, minimumConfidence: 0.05).map(\.label) == ["cat", "tiger"])
        #expect(
            mapping.pictureTopics(for: labels, classes: classes, minimumConfidence: 0.01).map(\.label) == [
                "cat", "tiger", "espresso", "coffee",
            ])
        // Nothing above the minimum: no class rather than an unlikely one.
        #expect(mapping.classes(for: [PhotoLabel(index: 1, text: "tiger cat", confidence: 0.01)], minimumConfidence: 0.05).isEmpty)
        #expect(mapping.classes(for: [PhotoLabel(index: 3, text: "volcano", confidence: 0.9)], minimumConfidence: 0.05).isEmpty)
    }
}
