/// Rules over a picture's title that word matching alone gets wrong, for every class at once.
enum PictureWordRules {
    /// First words of titles that show people: "person rowing boat", "man lifting weights",
    /// "family: man, woman, boy", "kiss: woman, man".
    private static let peopleFirstWords: Set<String> = [
        "person", "woman", "man", "women", "men", "people", "family", "couple", "kiss", "firefighter", "astronaut", "pilot",
        "farmer", "cook", "mechanic", "singer", "artist", "scientist", "technologist", "teacher", "student", "judge",
        "detective", "guard", "fairy", "mage", "vampire", "genie", "zombie", "superhero", "supervillain", "elf",
    ]

    /// Whether the title shows people (doing something, or in a role): such a picture shows the
    /// person, not the boat, weights or fire engine that its words also name. "woman’s hat"
    /// and "baby chick" show things, and "kiss mark" shows lips: only a whole first word counts,
    /// and "kiss" only as "kiss:".
    static func depictsPeople(_ title: String) -> Bool {
        guard let first = title.lowercased().split(separator: " ").first else { return false }
        if first == "kiss" { return false }
        let word = first.hasSuffix(":") ? first.dropLast() : first
        return peopleFirstWords.contains(String(word))
    }

    private static let zodiacSigns: Set<[String]> = Set([
        "aries", "taurus", "gemini", "cancer", "leo", "virgo", "libra", "scorpio", "sagittarius", "capricorn", "aquarius",
        "pisces", "ophiuchus",
    ].map { [$0] })

    /// Whether the picture is a sign of the zodiac, titled by the sign (♋ "cancer" has the keyword
    /// "crab", ♌ "leo" "lion"): a symbol, not the animal. The snake 🐍, whose keywords also say
    /// zodiac, stays a snake.
    static func isZodiacSign(title: [String], words: [[String]]) -> Bool {
        zodiacSigns.contains(title) && words.contains(["zodiac"])
    }

    /// Words that only describe how an icon is drawn ("key round", "tv minimal").
    private static let iconStyleWords: Set<String> = [
        "round", "minimal", "vertical", "horizontal", "medium", "dim", "small", "large", "big", "simple", "full", "open",
        "closed", "2", "3", "alt",
    ]

    /// Whether an icon of a set (``LibrarySource/isIconSet``: Lucide, Tabler) titled `title` (as
    /// ``WordMatcher/words(_:)``) draws the thing one of `phrases` names: its words are one
    /// phrase's words (in any order: "lamp floor" is a floor lamp), or a phrase's words plus style
    /// words ("key round"). "book plus", "user key" and "file headphone" are interface symbols
    /// built on the thing, not the thing.
    static func isIcon(of phrases: [[String]], title: [String]) -> Bool {
        let titleSet = Set(title)
        return phrases.contains { phrase in
            let words = Set(phrase)
            return words.isSubset(of: titleSet) && titleSet.subtracting(words).isSubset(of: iconStyleWords)
        }
    }

    /// Words of titles that show an interface action or control rather than a thing: "envelope
    /// with arrow" is sending mail, "radio button" a form control, "delete table" a command.
    private static let interfaceWords: Set<String> = [
        "button", "arrow", "add", "delete", "remove", "insert", "edit", "setting", "undo", "redo", "refresh", "upload",
        "download", "cursor",
    ]

    /// Whether a picture titled `title` (as ``WordMatcher/words(_:)``) symbolises an interface
    /// action or control, unless the class's own name `ownName` holds that word: such a picture is
    /// never a candidate of an object class.
    static func isInterfaceSymbol(title: [String], ownName: [String]) -> Bool {
        title.contains { interfaceWords.contains($0) && !ownName.contains($0) }
    }
}
