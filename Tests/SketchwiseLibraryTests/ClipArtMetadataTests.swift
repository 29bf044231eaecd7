import Foundation
import Testing

@testable import SketchwiseLibrary

@Suite struct ClipArtMetadataTests {
    func parse(_ text: String) throws -> ClipArtMetadata {
        try ClipArtMetadata.parse(Array(text.utf8))
    }

    @Test func theWorkTitleKeywordsAndLicenseAreRead() throws {
        let metadata = try parse(
            LibraryFixtures.svg("<rect width='1' height='1'/>", title: "Red  ball", keywords: ["Ball", "toy", "ball", ""]))
        #expect(metadata.title == "Red ball")
        #expect(metadata.keywords == ["ball", "toy"])
        #expect(metadata.licenseURL == "http://web.resource.org/cc/PublicDomain")
        #expect(License.clipart(declared: metadata.licenseURL) == License.openClipArt)
    }

    @Test func aCreatorsNameIsNotTheTitle() throws {
        let text = LibraryFixtures.svg(
            """
            <metadata><rdf:RDF><cc:Work><dc:creator><cc:Agent><dc:title>Jane</dc:title></cc:Agent></dc:creator>
            <dc:title>Tree</dc:title></cc:Work></rdf:RDF></metadata>
            """)
        #expect(try parse(text).title == "Tree")
        let onlyCreator = LibraryFixtures.svg(
            "<metadata><rdf:RDF><cc:Work><dc:creator><cc:Agent><dc:title>Jane</dc:title></cc:Agent></dc:creator></cc:Work></rdf:RDF></metadata>"
        )
        #expect(try parse(onlyCreator).title == nil)
    }

    @Test func subjectsWrittenAsTextAreSplitOnCommas() throws {
        let text = LibraryFixtures.svg(
            "<metadata><rdf:RDF><cc:Work><dc:subject>cat, Animal; pet</dc:subject></cc:Work></rdf:RDF></metadata>")
        #expect(try parse(text).keywords == ["cat", "animal", "pet"])
    }

    @Test func aDrawingWithoutMetadataHasNone() throws {
        #expect(try parse(LibraryFixtures.svg("<circle r='3'/>")) == ClipArtMetadata())
    }

    @Test func anotherDeclaredLicenseIsRecordedAsDeclared() {
        #expect(
            License.clipart(declared: "http://creativecommons.org/licenses/GPL/2.0/")
                == "declared in the file: http://creativecommons.org/licenses/GPL/2.0/")
        #expect(License.clipart(declared: "") == License.openClipArt)
        #expect(License.clipart(declared: "http://creativecommons.org/licenses/publicdomain/") == License.openClipArt)
    }

    @Test(arguments: [
        ("", "no XML element"),
        ("<svg><metadata><rdf:RDF><dc:title>x</rdf:RDF></metadata></svg>", "line 1"),
        ("<svg xmlns='http://www.w3.org/2000/svg'>\n<g>\n</svg>", "line"),
        ("not xml at all", "line 1"),
        ("<svg><title>&undefined;</title></svg>", "line 1"),
        ("\0\0\0<?xml version='1.0' encoding='UTF-8'?><svg/>", "NUL byte at offset 0"),
        ("<?xml version='1.0'?>\n<?xven?><svg/>", "processing instruction without data at byte 22"),
        ("<svg><?pi ?></svg>", "processing instruction without data at byte 5"),
    ])
    func malformedXMLIsAClearError(text: String, mentions: String) {
        #expect {
            try parse(text)
        } throws: { error in
            (error as? LibraryError)?.description.contains(mentions) == true
        }
    }

    @Test func titlesFromFileNames() {
        #expect(ClipArtMetadata.title(fromFileName: "red_apple_01.svg") == "red apple")
        #expect(ClipArtMetadata.title(fromFileName: "star-5.svg") == "star")
        #expect(ClipArtMetadata.title(fromFileName: "2005.svg") == "2005")
    }

    @Test func creditsAreCutFromTitles() {
        #expect(ClipArtMetadata.cleaned(title: "Clipart by Nicu Buculei - contour_chipmunk") == "contour chipmunk")
        #expect(ClipArtMetadata.cleaned(title: "Farfalla - Butterfly") == "Farfalla - Butterfly")
        #expect(ClipArtMetadata.cleaned(title: "  red\n ball ") == "red ball")
    }

    @Test func aTitleSharedByACollectionGivesWayToTheFileName() {
        #expect(ClipArtMetadata.title("Lemon SVG theme", sharedBy: 416, fileName: "camera_unmount.svg") == "camera unmount")
        #expect(ClipArtMetadata.title("Farfalla", sharedBy: 2, fileName: "farfalla_01.svg") == "Farfalla")
        #expect(ClipArtMetadata.title(nil, sharedBy: 0, fileName: "tree.svg") == "tree")
    }

    @Test func realOpenClipArtDrawings() throws {
        guard LibraryFixtures.hasClipart else { print(LibraryFixtures.clipartMissing); return }
        let bytes = try [UInt8](Data(contentsOf: LibraryFixtures.clipartFolder.appendingPathComponent("food/fruit/apple.svg")))
        let metadata = try ClipArtMetadata.parse(bytes)
        #expect(metadata.title == "pear", "the credit 'Clipart by Nicu Buculei - ' is cut")
        #expect(metadata.keywords == ["hash", "food", "fruit"])
        #expect(License.clipart(declared: metadata.licenseURL) == License.openClipArt)
    }
}
