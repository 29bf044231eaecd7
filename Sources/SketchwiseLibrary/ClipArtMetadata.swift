import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What an Open Clip Art drawing says about itself in its RDF metadata
/// (`<metadata><rdf:RDF><cc:Work>`): `dc:title`, the `dc:subject` keywords and `cc:license`.
///
/// Titles: many drawings carry their collection's name as `dc:title` (`Lemon SVG theme`,
/// `Part of the Flat Icon Collection (…)`: more than half of Debian's package), or a credit
/// (`Clipart by Nicu Buculei - pear`). The credit is cut (``cleaned(title:)``); a title that
/// at least ``collectionSize`` drawings share names a collection, and those drawings are
/// titled from their file names instead (``title(_:sharedBy:fileName:)``).
public struct ClipArtMetadata: Sendable, Equatable {
    /// The work's title (not its creator's or publisher's), cleaned, or nil when it has none.
    public var title: String?
    /// Keywords, lowercased, in order, without repeats.
    public var keywords: [String]
    /// The licence URL the file declares, if any.
    public var licenseURL: String?

    public init(title: String? = nil, keywords: [String] = [], licenseURL: String? = nil) {
        self.title = title
        self.keywords = keywords
        self.licenseURL = licenseURL
    }

    /// Reads the metadata of an SVG document. Parsing stops at the end of `<metadata>`; a
    /// document without metadata is read to its end and gives empty metadata.
    /// - Throws: ``LibraryError`` when the XML is not well-formed (with its line), or is or declares
    ///   an encoding other than UTF-8, US-ASCII or ISO-8859-1.
    public static func parse(_ bytes: [UInt8]) throws(LibraryError) -> ClipArtMetadata {
        if let signature = otherEncodingSignature(bytes) {
            throw LibraryError("not a UTF-8, ASCII or Latin-1 document (\(signature))")
        }
        if let offset = emptyProcessingInstruction(bytes) {
            throw LibraryError("a processing instruction without data at byte \(offset) (such as <?name?>) is not supported")
        }
        if let encoding = declaredEncoding(bytes), !readableEncodings.contains(encoding.lowercased()) {
            throw LibraryError("unsupported XML encoding \(encoding.prefix(40))")
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        if !parser.parse(), !reader.finished, reader.error == nil {
            reader.error = "not well-formed XML at line \(parser.lineNumber)"
        }
        if let error = reader.error { throw LibraryError(error) }
        guard reader.sawRoot else { throw LibraryError("no XML element") }
        return reader.metadata
    }

    /// The encodings a document may declare. libxml2 (under Foundation's XMLParser) crashes on
    /// some others, such as `UTF-7` or a misspelt name (found by fuzzing); every installed
    /// picture declares one of these.
    static let readableEncodings: Set<String> = ["utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1"]

    /// What shows that a document is in an encoding libxml2 would detect from its first bytes
    /// (UTF-16, UCS-4, EBCDIC), if anything. libxml2 crashes when such a document then declares
    /// UTF-8 (found by fuzzing: three NUL bytes before `<?xml`). No readable document holds a NUL.
    static func otherEncodingSignature(_ bytes: [UInt8]) -> String? {
        if let nul = bytes.firstIndex(of: 0) { return "a NUL byte at offset \(nul)" }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return "a UTF-16 byte-order mark" }
        if bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94]) { return "an EBCDIC XML declaration" }
        return nil
    }

    /// Where the first processing instruction without data (`<?name?>`, `<?name ?>`) starts, if
    /// any. Foundation's XMLParser on Linux passes its missing data to `strlen` and crashes (found
    /// by fuzzing). Such an instruction inside a comment is refused too: no picture has one.
    static func emptyProcessingInstruction(_ bytes: [UInt8]) -> Int? {
        let question = UInt8(ascii: "?"), open = UInt8(ascii: "<"), close = UInt8(ascii: ">")
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == open, bytes[index + 1] == question else { continue }
            var end = index + 2
            while end < bytes.count, !blanks.contains(bytes[end]), bytes[end] != question, bytes[end] != close { end += 1 }
            while end < bytes.count, blanks.contains(bytes[end]) { end += 1 }
            if end + 1 < bytes.count, bytes[end] == question, bytes[end + 1] == close { return index }
        }
        return nil
    }

    /// The `encoding` of a document's XML declaration (`<?xml … encoding="…"?>`), if it has one.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)) else { return nil }
        let head = bytes.prefix(512)
        guard let end = head.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let declaration = String(decoding: head[..<end], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return "" }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// A title shared by at least this many drawings names a collection.
    public static let collectionSize = 3

    /// The title to show for a drawing whose RDF title is `title` (nil if none), shared by
    /// `count` drawings of the library.
    public static func title(_ title: String?, sharedBy count: Int, fileName: String) -> String {
        guard let title, count < collectionSize else { return Self.title(fromFileName: fileName) }
        return title
    }

    /// A title without a leading credit and with spaces for underscores:
    /// `Clipart by Nicu Buculei - contour_chipmunk` → `contour chipmunk`.
    public static func cleaned(title: String) -> String {
        var title = title
        if title.lowercased().hasPrefix("clipart by "), let dash = title.range(of: " - ") {
            title = String(title[dash.upperBound...])
        }
        return title.replacingOccurrences(of: "_", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// A title made from a file name: `red_apple_01.svg` → `red apple`.
    public static func title(fromFileName name: String) -> String {
        var words = (name as NSString).deletingPathExtension
            .split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == " " })
            .map(String.init)
        while let last = words.last, words.count > 1, last.allSatisfy(\.isNumber) { words.removeLast() }
        return words.joined(separator: " ")
    }
}

private enum Namespace {
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let cc: Set<String> = ["http://web.resource.org/cc/", "http://creativecommons.org/ns#"]
    static let svg = "http://www.w3.org/2000/svg"

    /// The element's namespace; for an undeclared `dc:`, `rdf:` or `cc:` prefix, the one it
    /// always stands for in Open Clip Art files.
    static func of(_ uri: String?, _ qualifiedName: String?) -> String {
        if let uri, !uri.isEmpty { return uri }
        switch qualifiedName?.split(separator: ":").first {
        case "dc": return dc
        case "rdf": return rdf
        case "cc": return "http://web.resource.org/cc/"
        default: return ""
        }
    }
}

/// The SAX delegate: keeps the element path and collects the work's fields.
private final class Reader: NSObject, XMLParserDelegate {
    var metadata = ClipArtMetadata()
    var sawRoot = false
    /// Set when parsing was stopped on purpose at the end of `<metadata>`.
    var finished = false
    /// The first well-formedness error (the parser would otherwise recover and go on).
    var error: String?
    private var path: [(namespace: String, name: String)] = []
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        sawRoot = true
        let namespace = Namespace.of(namespaceURI, qualifiedName)
        if Namespace.cc.contains(namespace), name == "license", metadata.licenseURL == nil, isInWork {
            metadata.licenseURL = attributes["rdf:resource"] ?? attributes["resource"]
        }
        path.append((namespace, name))
        text = ""
    }

    /// libxml2's namespace errors (an undeclared prefix and the like, codes 200…299) are not
    /// well-formedness errors: such files are read, their prefixes taken at face value.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let code = (parseError as NSError).code
        guard !(200..<300).contains(code), error == nil else { return }
        error = "not well-formed XML at line \(parser.lineNumber) (libxml2 error \(code))"
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let namespace = Namespace.of(namespaceURI, qualifiedName)
        if !path.isEmpty { path.removeLast() }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        if namespace == Namespace.dc, name == "title", isInWork, metadata.title == nil, !value.isEmpty {
            let title = ClipArtMetadata.cleaned(title: value)
            if !title.isEmpty { metadata.title = title }
        } else if namespace == Namespace.rdf, name == "li", path.contains(where: { $0.namespace == Namespace.dc && $0.name == "subject" }) {
            add(keywords: value)
        } else if namespace == Namespace.dc, name == "subject" {
            add(keywords: value)
        } else if name == "metadata", namespace == Namespace.svg || namespace.isEmpty {
            finished = true
            parser.abortParsing()
        }
    }

    /// Whether the current element belongs to the work itself rather than to an agent (creator,
    /// publisher, rights holder), whose `dc:title` is a person's name.
    private var isInWork: Bool {
        !path.contains { $0.name == "Agent" && Namespace.cc.contains($0.namespace) }
    }

    private func add(keywords value: String) {
        for word in value.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isNewline }) {
            let keyword = word.trimmingCharacters(in: .whitespaces).lowercased()
            if !keyword.isEmpty, !metadata.keywords.contains(keyword) { metadata.keywords.append(keyword) }
        }
    }
}
