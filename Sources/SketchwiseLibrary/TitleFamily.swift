/// Pictures that are variants of one drawing by their titles: the clock faces "two o’clock" and
/// "eleven o’clock", "square with left half black" and "… right half black", "waxing" and
/// "waning crescent moon", Lucide's "clock" and "clock 2", "circle" and "red circle" (the same
/// outline once drawn as line art). Their titles differ only in numbers and in words of
/// direction, phase, colour or size, which ``key(_:)`` leaves out; under one guess such a family
/// is shown once. Pictures of one title (a cat by two artists) are not variants.
package enum TitleFamily {
    /// Words that tell variants of one drawing apart.
    static let variantWords: Set<String> = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirty",
        "left", "right", "up", "down", "upper", "lower", "waxing", "waning", "first", "last",
        "black", "white", "red", "orange", "yellow", "green", "blue", "purple", "brown", "small", "medium", "large",
    ]

    /// The title's words, lowercased, without numbers and ``variantWords``; apostrophes are one
    /// character (`o’clock` and `o'clock` agree).
    package static func key(_ title: String) -> String {
        let words = title.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'" || $0 == "’") }
            .map { String($0.map { $0 == "’" ? "'" : $0 }) }
        return words.filter { !variantWords.contains($0) && !$0.allSatisfy(\.isNumber) }.joined(separator: " ")
    }

    /// The titles chosen so far for one guess, by family (each ``Candidate`` carries its
    /// ``Candidate/titleFamily``, so that ranking computes no keys).
    package struct Chosen {
        private var titles: [String: Set<String>] = [:]

        package init() {}

        /// Whether a picture of another title of `candidate`'s family was chosen.
        package func hasVariant(of candidate: Candidate) -> Bool {
            titles[candidate.titleFamily].map { !$0.subtracting([candidate.picture.title]).isEmpty } ?? false
        }

        package mutating func insert(_ candidate: Candidate) {
            titles[candidate.titleFamily, default: []].insert(candidate.picture.title)
        }
    }
}
