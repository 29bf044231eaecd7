import Foundation
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseTestSupport

/// Small SVG documents, the fixture raster model and temporary databases for the library tests.
enum LibraryFixtures {
    /// Debian's openclipart-svg, when installed.
    static let clipartFolder = LibraryLocations.debianClipart
    static var hasClipart: Bool {
        FileManager.default.fileExists(atPath: clipartFolder.appendingPathComponent("food/fruit/apple.svg").path)
    }
    static var hasEmojiFont: Bool { FileManager.default.fileExists(atPath: LibraryLocations.debianEmojiFont.path) }
    static let clipartMissing = "skipped: openclipart-svg is not installed (scripts/install-deps.sh installs it)"
    static let emojiMissing = "skipped: fonts-noto-color-emoji is not installed (scripts/install-deps.sh installs it)"

    /// The 20×20, 5-class CNN of the runtime's tests: a real raster model with an embedding.
    static func embedder() throws -> PictureEmbedder {
        let url = SharedData.packageRoot.appendingPathComponent("Tests/SketchwiseNNTests/Fixtures/cnn.json")
        return try PictureEmbedder(recognizer: try ModelRecognizer(contentsOf: url), topCount: 3)
    }

    /// An SVG document of `width`×`height` with `body` inside and, optionally, Open Clip Art RDF.
    static func svg(_ body: String, width: Double = 100, height: Double = 100, title: String? = nil, keywords: [String] = []) -> String {
        var metadata = ""
        if let title {
            let items = keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined()
            metadata = """
                <metadata><rdf:RDF><cc:Work rdf:about=""><dc:title>\(title)</dc:title>
                <dc:subject><rdf:Bag>\(items)</rdf:Bag></dc:subject>
                <dc:creator><cc:Agent><dc:title>Someone</dc:title></cc:Agent></dc:creator>
                <cc:license rdf:resource="http://web.resource.org/cc/PublicDomain"/>
                </cc:Work></rdf:RDF></metadata>
                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" \
            xmlns:cc="http://web.resource.org/cc/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\(metadata)\(body)</svg>
            """
    }

    /// A few distinct, well-formed drawings.
    static let shapes: [String: String] = [
        "circle": svg(
            #"<circle cx="50" cy="50" r="40" fill="red" stroke="black" stroke-width="3"/>"#, title: "Red ball", keywords: ["ball", "toy"]),
        "square": svg(##"<rect x="10" y="10" width="80" height="80" fill="#3366cc"/>"##, title: "Blue square", keywords: ["shape"]),
        "house": svg(#"<path d="M20 90 V50 L50 20 L80 50 V90 Z" fill="none" stroke="black" stroke-width="4"/>"#, title: "House"),
        "line": svg(#"<line x1="10" y1="50" x2="190" y2="50" stroke="black" stroke-width="2"/>"#, width: 200, height: 100),
    ]

    /// Writes `files` (relative path → contents) under `folder`.
    static func write(_ files: [String: String], in folder: URL) throws {
        for (name, text) in files {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }
}
