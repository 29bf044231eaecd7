import Foundation

/// OpenMoji draws every picture in layers: a `line` group of black outlines, and `color`, `skin`
/// and `hair` groups (`skin-shadow`, `hair-a`, `color-foreground`, …) of fills below it. Without
/// the fills, what is left is a clean black line drawing in one hand-drawn style.
enum OpenMojiArt {
    /// The emoji an OpenMoji file draws, from its name (`1F43B-200D-2744-FE0F.svg` is 🐻‍❄️), or nil
    /// for files left out of the library: skin-tone variants (the default tone is kept), country
    /// and region flags (a wall of rectangles for "flag"), and OpenMoji's own pictures in the
    /// private-use range, which have no names.
    static func emoji(fileName: String) -> String? {
        let codes = (fileName as NSString).deletingPathExtension.split(separator: "-")
        let scalars = codes.compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }
        guard !scalars.isEmpty, scalars.count == codes.count else { return nil }
        let leftOut: [ClosedRange<UInt32>] = [0x1F3FB...0x1F3FF, 0x1F1E6...0x1F1FF, 0xE0020...0xE007F, 0xE000...0xF8FF, 0xF0000...0x10FFFF]
        guard !scalars.contains(where: { scalar in leftOut.contains { $0.contains(scalar.value) } }) else { return nil }
        return String(String.UnicodeScalarView(scalars))
    }

    /// The SVG bytes of a picture of `source` as the library draws them: OpenMoji as line art
    /// unless `colour` asks for its colour layers too, other sources as they are.
    static func drawn(_ svg: [UInt8], of source: LibrarySource, color: Bool = false) -> [UInt8] {
        source == .openmoji && !color ? lineDrawing(svg) : svg
    }

    /// The id prefixes of the fill groups.
    static let fillGroups = ["color", "skin", "hair"]

    /// The file's `line` layers alone: every `<g>` element whose id starts with a fill group's
    /// name is dropped with everything inside it. Text that is not such a file comes back as it is.
    static func lineDrawing(_ svg: [UInt8]) -> [UInt8] {
        guard let text = String(bytes: svg, encoding: .utf8) else { return svg }
        var kept = ""
        kept.reserveCapacity(text.utf8.count)
        var rest = text[...]
        while let open = rest.range(of: "<g") {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let tag = rest[open.lowerBound...tagEnd]
            let afterName = rest[open.upperBound...].first
            guard afterName == " " || afterName == "\n" || afterName == "\t" || afterName == ">",
                let id = attribute("id", in: tag), fillGroups.contains(where: id.hasPrefix)
            else {
                kept += rest[..<rest.index(after: tagEnd)]
                rest = rest[rest.index(after: tagEnd)...]
                continue
            }
            kept += rest[..<open.lowerBound]
            rest = tag.hasSuffix("/>") ? rest[rest.index(after: tagEnd)...] : afterGroup(rest[rest.index(after: tagEnd)...])
        }
        kept += rest
        return Array(kept.utf8)
    }

    /// The text after the `</g>` that closes a group whose contents start `text`.
    private static func afterGroup(_ text: Substring) -> Substring {
        var depth = 1
        var rest = text
        while depth > 0, let tag = rest.range(of: "<") {
            guard let end = rest[tag.upperBound...].firstIndex(of: ">") else { return rest[rest.endIndex...] }
            let element = rest[tag.lowerBound...end]
            if element.hasPrefix("</g") {
                depth -= 1
            } else if element.hasPrefix("<g"), [" ", ">", "\n", "\t"].contains(element.dropFirst(2).first.map(String.init) ?? ""),
                !element.hasSuffix("/>")
            {
                depth += 1
            }
            rest = rest[rest.index(after: end)...]
        }
        return rest
    }

    /// The value of `name="…"` in a tag.
    private static func attribute(_ name: String, in tag: Substring) -> Substring? {
        guard let start = tag.range(of: " \(name)=\"") ?? tag.range(of: "\n\(name)=\""),
            let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return tag[start.upperBound..<end]
    }
}

extension LibrarySource {
    /// The emoji that picture `id` of an emoji source shows (`emoji:U+1F34E`,
    /// `openmoji:1F34E.svg`); nil for pictures of the other sources.
    public static func emoji(ofPicture id: String) -> String? {
        if id.hasPrefix("emoji:U+") {
            return UInt32(id.dropFirst("emoji:U+".count), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        guard id.hasPrefix("openmoji:") else { return nil }
        return OpenMojiArt.emoji(fileName: (String(id.dropFirst("openmoji:".count)) as NSString).lastPathComponent)
    }
}
