/// argument-parser reads any word that starts with "-" as an option, so `--max-strokes -1` was
/// "Missing value for '--max-strokes <max-strokes>'", which hides the mistake. A negative number
/// after a long option is attached to it (`--max-strokes=-1`), which the parser reads as the
/// option's value, so the command's own check says what is wrong with it.
enum NegativeNumbers {
    /// `arguments` with each negative number that follows a long option attached to it; nothing
    /// after `--` is touched.
    static func attached(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for argument in arguments {
            if let option = result.last, !result.contains("--"), takesAttachedValue(option), isNegativeNumber(argument) {
                result[result.count - 1] = option + "=" + argument
            } else {
                result.append(argument)
            }
        }
        return result
    }

    private static func takesAttachedValue(_ word: String) -> Bool {
        word.count > 2 && word.hasPrefix("--") && !word.contains("=")
    }

    private static func isNegativeNumber(_ word: String) -> Bool {
        word.count > 1 && word.hasPrefix("-") && Double(word) != nil
    }
}
