import Foundation
import Testing

@testable import SketchwiseInstallation

/// Where the run-time resources are looked for.
@Suite struct InstalledResourceTests {
    /// A program of another package that depends on Sketchwise has neither its binary in
    /// Sketchwise's `.build` nor its working folder in the source tree: the source tree the library
    /// was built from is looked at last, and holds every resource.
    @Test(arguments: [InstalledResource.web, .models, .tables, .translations])
    func theSourceTreeTheLibraryWasBuiltFromIsTheLastPlace(_ resource: InstalledResource) throws {
        let last = try #require(resource.candidateFolders.last)
        #expect(last.path.hasSuffix("/" + resource.sourceTreePath), "\(last.path)")
        #expect(FileManager.default.fileExists(atPath: last.appendingPathComponent(resource.marker).path), "\(last.path)")
    }
}
