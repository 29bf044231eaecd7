import Testing

@testable import SketchwisePhotos

/// The layout walk: where a file's image ends, a cut-off file, and a JPEG's scans counted as the
/// decoder will meet them.
@Suite struct PhotoStructureTests {
    let jpeg = encodedPhoto(width: 48, height: 32, format: "jpeg") { x, y in (UInt8(x * 5), UInt8(y * 7), 90, 255) }
    let png = encodedPhoto(width: 48, height: 32, format: "png") { x, y in (UInt8(x * 5), UInt8(y * 7), 90, 255) }

    @Test func aCutOffPNGIsRefusedEvenWhenItEndsWithAnEndChunk() throws {
        let cut = TestPhotos.cutOffWithEnd(png)
        #expect(cut.suffix(8).prefix(4).elementsEqual("IEND".utf8), "the cut file still ends like a whole one")
        for bytes in [cut, TestPhotos.cutOffWithEnd(TestPhotos.png(width: 300, height: 200))] {
            do {
                _ = try PhotoDecoder.decodeSquare(bytes, side: 64)
                Issue.record("a cut-off PNG of \(bytes.count) bytes decoded")
            } catch {
                #expect(error.kind == .unreadable && error.message.contains("cut off"), "\(error)")
            }
        }
        #expect(throws: PhotoError.self) { try PhotoStructure(Array(png.dropLast(12)), format: .png, maximumScans: 100) }
    }

    @Test func whatFollowsTheImageIsNotDecoded() throws {
        let trailer = [UInt8](repeating: 0x42, count: 5_000)
        for (bytes, format) in [(png, PhotoHeader.Format.png), (jpeg, .jpeg)] {
            let structure = try PhotoStructure(bytes + trailer, format: format, maximumScans: 100)
            #expect(structure.end == bytes.count)
            let image = try PhotoDecoder.decode(bytes + trailer)
            #expect((image.width, image.height) == (48, 32))
        }
    }

    @Test func countsTheScansOfAJPEGButNotThoseOfItsThumbnail() throws {
        #expect(try PhotoStructure(jpeg, format: .jpeg, maximumScans: 100).scans == 1)
        let progressive = TestPhotos.jpegScanBomb(side: 64, emptyScans: 9)
        let structure = try PhotoStructure(progressive, format: .jpeg, maximumScans: 100)
        #expect(structure.scans == 10 && structure.components == 1 && structure.end == progressive.count)
        // An EXIF thumbnail is a whole JPEG inside an APP1 segment: its scan is not the photo's.
        let withThumbnail = TestPhotos.withApplicationSegment(progressive, Array("Exif".utf8) + [0, 0] + jpeg)
        #expect(try PhotoStructure(withThumbnail, format: .jpeg, maximumScans: 100).scans == 10)
        // The walk stops one scan past the limit.
        #expect(try PhotoStructure(TestPhotos.jpegScanBomb(side: 64, emptyScans: 5_000), format: .jpeg, maximumScans: 100).scans == 101)
    }

    @Test func refusesArithmeticCodedAndLosslessJPEGs() throws {
        // The fuzzer's find: an arithmetic-coded progressive JPEG on which libjpeg, fed a slice at
        // a time, loops forever. Such files are refused before a byte is decoded.
        let progressive = TestPhotos.jpegScanBomb(side: 64, emptyScans: 3)
        let frame = try #require(progressive.indices.first { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xC2 })
        for marker: UInt8 in [0xC3, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF] {
            var bytes = progressive
            bytes[frame + 1] = marker
            do {
                _ = try PhotoDecoder.decodeSquare(bytes, side: 32)
                Issue.record("a JPEG of frame marker \(marker) decoded")
            } catch {
                #expect(error.kind == .unsupportedFormat && error.message.contains("only baseline and progressive"), "\(error)")
            }
        }
    }

    @Test func refusesCutOffAndCorruptJPEGLayouts() {
        for bytes in [
            Array(jpeg.dropLast(2)), Array(jpeg.prefix(jpeg.count / 2)), [0xFF, 0xD8, 0xFF, 0xD9], [0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 0, 0],
        ] {
            do {
                _ = try PhotoStructure(bytes, format: .jpeg, maximumScans: 100)
                Issue.record("a broken JPEG of \(bytes.count) bytes passed")
            } catch {
                #expect(error.kind == .unreadable, "\(error)")
            }
        }
    }
}
