import Foundation
import SketchwiseCore

/// Edits an SVG document at its root `<svg>` tag, as text: a style sheet for the line weight,
/// and the document nested in one cropped to its ink. Nothing else of the document is parsed.
struct SVGRootTag {
    /// The text before the root tag (prolog, comments, doctype).
    let prolog: Substring
    /// The root start tag, `<svg …>`.
    let tag: Substring
    /// Everything after the root tag.
    let body: Substring

    /// The root tag of `svg`, or nil when there is none, when it closes itself (an empty
    /// document), or when a doctype declares entities of its own (their references would not
    /// survive the document being nested).
    init?(_ svg: [UInt8]) {
        guard let text = String(bytes: svg, encoding: .utf8) else { return nil }
        var search = text[...]
        while let open = search.range(of: "<svg") {
            let next = search[open.upperBound...].first
            if next == " " || next == "\n" || next == "\r" || next == "\t" || next == ">" {
                guard let end = Self.tagEnd(text[open.lowerBound...]) else { return nil }
                prolog = text[..<open.lowerBound]
                tag = text[open.lowerBound...end]
                body = text[text.index(after: end)...]
                guard !tag.hasSuffix("/>"), !(prolog.contains("<!DOCTYPE") && prolog.contains("[")) else { return nil }
                return
            }
            search = search[open.upperBound...]
        }
        return nil
    }

    /// The document with every stroke `width` user units wide: a style sheet right inside the
    /// root (a style sheet rule outranks the presentation attributes line drawings set widths with).
    func withStrokeWidth(_ width: Double) -> [UInt8] {
        Array("\(prolog)\(tag)<style>*{stroke-width:\(Self.number(width))px}</style>\(body)".utf8)
    }

    /// A document of its own showing `box` of this one's page (`pageWidth` × `pageHeight` user
    /// units): this document nested at the page's size, inside a root whose viewBox is `box`.
    func cropped(pageWidth: Double, pageHeight: Double, to box: Rect) -> [UInt8] {
        var nested = String(tag.dropLast())   // without its ">"
        for name in ["x", "y", "width", "height"] { nested = Self.removingAttribute(name, from: nested) }
        let view = [box.minX, box.minY, box.width, box.height].map(Self.number).joined(separator: " ")
        let root = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            viewBox="\(view)" width="\(Self.number(box.width))" height="\(Self.number(box.height))">
            """
        let page = " x=\"0\" y=\"0\" width=\"\(Self.number(pageWidth))\" height=\"\(Self.number(pageHeight))\">"
        return Array("\(root)\(nested)\(page)\(Self.withoutTrailingMisc(body))</svg>\n".utf8)
    }

    /// The index of the `>` that ends the tag `text` starts with (quoted values skipped).
    private static func tagEnd(_ text: Substring) -> String.Index? {
        var quote: Character?
        for index in text.indices {
            let c = text[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == ">" {
                return index
            }
        }
        return nil
    }

    /// `tag` without attribute `name` (its value in either kind of quotes).
    private static func removingAttribute(_ name: String, from tag: String) -> String {
        let pattern = "\\s\(name)\\s*=\\s*(\"[^\"]*\"|'[^']*')"
        return tag.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
    }

    /// The body up to and including the root's `</svg>` (comments and space after it dropped).
    private static func withoutTrailingMisc(_ body: Substring) -> Substring {
        guard let close = body.range(of: "</svg>", options: .backwards) else { return body }
        return body[..<close.upperBound]
    }

    /// A number as SVG writes it: up to 4 decimals, no exponent.
    private static func number(_ value: Double) -> String { SVGNumber.text(value, decimals: 4) }
}
