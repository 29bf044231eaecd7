/// Matching words and phrases against text at word boundaries, ignoring case and simple plurals.
///
/// Text is split into words at every character that is not a letter or digit (`flip-flop` is
/// `flip flop`, `food/fruit` is `food fruit`), lowercased, and each word is reduced to a simple
/// singular: `berries` → `berry`, `boxes` → `box`, `boats` → `boat` (but `glass`, `bus`, `cactus`
/// stay). A phrase matches where its words appear in a row.
public enum WordMatcher {
    /// The words of `text`, lowercased and singular.
    public static func words(_ text: String) -> [String] {
        text.lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map { singular(String($0)) }
    }

    /// Whether `phrase` appears in `words` (as produced by ``words(_:)``) as whole words in a row.
    public static func contains(_ phrase: [String], in words: [String]) -> Bool {
        guard !phrase.isEmpty, phrase.count <= words.count else { return false }
        return (0...(words.count - phrase.count)).contains { start in
            words[start..<(start + phrase.count)].elementsEqual(phrase)
        }
    }

    /// A simple singular of a lowercase word.
    static func singular(_ word: String) -> String {
        guard word.count > 3, word.hasSuffix("s") else { return word }
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if ["ches", "shes", "sses", "xes", "zes"].contains(where: word.hasSuffix) { return String(word.dropLast(2)) }
        if ["ss", "us", "is"].contains(where: word.hasSuffix) { return word }
        return String(word.dropLast())
    }
}
