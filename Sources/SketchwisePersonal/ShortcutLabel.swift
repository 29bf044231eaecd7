import Foundation

/// A label as text a person typed: a shortcut's emoji, picture id or word, or the label of a
/// correction. One place for the rules, so that the API, the command line and every store agree.
///
/// A new label is NFC-normalized (so "é" typed as one code point or as "e" and a combining
/// accent is one label), must not be blank, must hold no control character (C0, DEL, C1: NUL
/// included) and no noncharacter (U+FFFF starts the misfire label,
/// `NearestNeighborClassifier.misfireLabel`), and must fit ``ShortcutLimits/maximumLabelLength``
/// characters and ``ShortcutLimits/maximumLabelBytes`` bytes of UTF-8.
///
/// Labels read back from a store made before these rules may break them (a NUL, which SQLite
/// cut the label at, or 800 KB in one grapheme): ``repaired(_:maximumBytes:)`` turns such a
/// label into one that follows them, so that it can be listed, used and removed by that name.
public enum ShortcutLabel {
    /// The most bytes of a label a store reads back: a stored label is cut there before it is
    /// repaired, so that an oversized label of an old store costs no more than this per row.
    public static let maximumReadBytes = 1024

    /// `text` NFC-normalized and checked.
    /// - Throws: ``PersonalError`` `.invalid` naming the rule it breaks.
    public static func validated(_ text: String, limits: ShortcutLimits) throws -> String {
        let label = text.precomposedStringWithCanonicalMapping
        guard !label.allSatisfy(\.isWhitespace) else { throw PersonalError(.invalid, "a label must not be empty") }
        if let control = label.unicodeScalars.first(where: isControl) {
            let code = String(format: "U+%04X", control.value)
            throw PersonalError(.invalid, "a label must not hold control characters (it holds \(code))")
        }
        if let reserved = label.unicodeScalars.first(where: \.properties.isNoncharacterCodePoint) {
            let code = String(format: "U+%04X", reserved.value)
            throw PersonalError(.invalid, "a label must not hold noncharacters (it holds \(code))")
        }
        guard label.utf8.count <= limits.maximumLabelBytes else {
            throw PersonalError(
                .invalid, "a label has at most \(limits.maximumLabelBytes) bytes of UTF-8 (this one has \(label.utf8.count))")
        }
        guard label.count <= limits.maximumLabelLength else {
            throw PersonalError(.invalid, "a label has at most \(limits.maximumLabelLength) characters")
        }
        return label
    }

    /// A stored label that follows the rules: NFC, every control character replaced by U+FFFD,
    /// cut (between characters) to `maximumBytes`, and U+FFFD for one that is left blank. A label
    /// that already follows them is returned as it is.
    public static func repaired(_ stored: String, maximumBytes: Int) -> String {
        var label = String(
            String.UnicodeScalarView(
                stored.precomposedStringWithCanonicalMapping.unicodeScalars.map { isControl($0) ? "\u{FFFD}" : $0 }))
        if label.utf8.count > maximumBytes {
            var bytes = 0
            label = String(
                label.prefix { character in
                    bytes += character.utf8.count
                    return bytes <= maximumBytes
                })
        }
        return label.allSatisfy(\.isWhitespace) ? "\u{FFFD}" : label
    }

    /// The text of a label's bytes as a store keeps them: invalid UTF-8 (a label cut by
    /// ``maximumReadBytes`` in the middle of a character) becomes U+FFFD, and no bytes (SQLite
    /// reads an empty blob as NULL) the empty label.
    public static func decoded(_ bytes: Data?) -> String {
        String(decoding: bytes ?? Data(), as: UTF8.self)
    }

    /// C0 (U+0000…U+001F), DEL and C1 (U+0080…U+009F): Unicode's category Cc.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
