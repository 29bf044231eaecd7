import Foundation
import Testing

@testable import SketchwisePhotos

/// The attacks of issue 34 and the limits that stop them before a pixel is decoded: long thin
/// PNGs that the decoder once scaled up into gigabytes (or past `Int32`, a crash), a scan bomb,
/// and the memory every decode plans for.
@Suite struct PhotoLimitsTests {
    /// EfficientNet-Lite0's `resize`: the square the photo model takes.
    let side = 256

    func expectTooLarge(
        _ bytes: [UInt8], _ words: String, limits: PhotoLimits = PhotoLimits(), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for square in [true, false] {
            do {
                _ =
                    square
                    ? try PhotoDecoder.decodeSquare(bytes, side: side, limits: limits) : try PhotoDecoder.decode(bytes, limits: limits)
                Issue.record("decoded a photo the limits refuse", sourceLocation: sourceLocation)
            } catch {
                #expect(error.kind == .tooLarge && error.message.contains(words), "\(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func longThinPhotosAreRefusedBeforeDecoding() {
        // The crashes: the shorter side scaled up to 256 made the longer one 2.3·10⁹ (an Int32 trap).
        expectTooLarge(TestPhotos.png(width: 9_000_000, height: 1, bitDepth: 1), "a side may be at most 20000 pixels")
        expectTooLarge(TestPhotos.pngHeaderOnly(width: 20_000_000, height: 2), "a side may be at most 20000 pixels")
        expectTooLarge(TestPhotos.pngHeaderOnly(width: 50_000_000, height: 1), "a side may be at most 20000 pixels")
        // The memory bombs: 89 and 177 bytes that asked for 3.8 and 19.7 GB once scaled up.
        expectTooLarge(TestPhotos.png(width: 10_000, height: 1), "more elongated than the 20:1 allowed")
        expectTooLarge(TestPhotos.png(width: 100_000, height: 1), "a side may be at most 20000 pixels")
        expectTooLarge(TestPhotos.png(width: 1, height: 10_000), "more elongated than the 20:1 allowed")
        expectTooLarge(TestPhotos.pngHeaderOnly(width: 7_100, height: 7_100), "more than the 50000000 allowed")
    }

    @Test func usualPhotosAndPanoramasAreWithinTheLimits() throws {
        let limits = PhotoLimits()
        for (width, height) in [
            (1, 1), (4_032, 3_024), (8_000, 6_000), (6_000, 8_000), (12_000, 2_000), (20_000, 1_000), (1_000, 20_000), (7_071, 7_071),
        ] {
            #expect(throws: Never.self, "\(width)×\(height)") { try limits.check(width: width, height: height) }
        }
        for (width, height) in [(20_001, 1_001), (4_200, 200), (200, 4_200), (Int(Int32.max) + 1, 1 << 27)] {
            #expect(throws: PhotoError.self, "\(width)×\(height)") { try limits.check(width: width, height: height) }
        }
        // A ratio so large that side × ratio overflows refuses no shape.
        #expect(throws: Never.self) { try PhotoLimits(maximumAspectRatio: .max).check(width: 20_000, height: 2) }
    }

    @Test func theDecoderIsNeverAskedForMoreThanThePhoto() throws {
        for (width, height, decoded) in [
            (451, 300, (384, 256)), (300, 451, (256, 384)), (6_000, 4_000, (384, 256)), (12_000, 2_000, (1_536, 256)),
            (100, 80, (100, 80)), (256, 256, (256, 256)), (5_000, 250, (5_000, 250)),
        ] {
            let plan = try PhotoDecodePlan(TestPhotos.pngHeaderOnly(width: width, height: height), square: side)
            #expect((plan.decodedWidth, plan.decodedHeight) == decoded, "\(width)×\(height)")
            #expect(plan.decodedWidth <= width && plan.decodedHeight <= height)
        }
        // A small photo's centre square is scaled up, and only it: 80² pixels become 256².
        let small = encodedPhoto(width: 100, height: 80, format: "png") { x, _ in x < 50 ? (255, 0, 0, 255) : (0, 0, 255, 255) }
        let square = try PhotoDecoder.decodeSquare(small, side: side)
        #expect((square.width, square.height) == (side, side))
        #expect(
            Array(square.pixels[0..<3]) == [255, 0, 0] && Array(square.pixels[(side * side - 1) * 3..<(side * side * 3)]) == [0, 0, 255])
    }

    @Test func everyDecodeWithinTheLimitsPlansBoundedMemory() throws {
        let limits = PhotoLimits()
        var largest = 0
        for (width, height) in [(7_071, 7_071), (20_000, 2_500), (2_500, 20_000), (8_660, 5_773), (20_000, 1_000), (1, 1)] {
            for bytes in [
                TestPhotos.pngHeaderOnly(width: width, height: height), TestPhotos.jpegScanBomb(side: min(width, height), emptyScans: 9),
            ] {
                guard let plan = try? PhotoDecodePlan(bytes, square: side, limits: limits) else {
                    Issue.record("\(width)×\(height) refused")
                    continue
                }
                #expect(plan.estimatedBytes <= limits.maximumDecodeBytes)
                largest = max(largest, plan.estimatedBytes)
            }
        }
        // 50 megapixels: gdk-pixbuf's 200 MB for a PNG; 100 MB of coefficients for a progressive grey JPEG.
        #expect(largest > 190_000_000 && largest < 260_000_000, "\(largest)")
        // 49 megapixels at their own size, decoded, turned upright and made RGB: more than allowed.
        #expect(throws: PhotoError.self) { try PhotoDecodePlan(TestPhotos.pngHeaderOnly(width: 7_000, height: 7_000), limits: limits) }
        #expect(throws: Never.self) { try PhotoDecodePlan(TestPhotos.pngHeaderOnly(width: 6_000, height: 6_000), limits: limits) }
        let tight = PhotoLimits(maximumDecodeBytes: 10 << 20)
        do {
            _ = try PhotoDecodePlan(TestPhotos.pngHeaderOnly(width: 2_000, height: 2_000), square: side, limits: tight)
            Issue.record("a 2000×2000 PNG passed a 10 MiB decoding limit")
        } catch {
            #expect(error.kind == .tooLarge && error.message.contains("MiB allowed"), "\(error)")
        }
    }

    @Test func aScanBombIsRefusedBeforeDecoding() throws {
        let start = ContinuousClock.now
        expectTooLarge(TestPhotos.jpegScanBomb(side: 7_000, emptyScans: 100_000), "more than 100 scans")
        #expect(ContinuousClock.now - start < .seconds(5), "refused without decoding")
        // Fewer scans, each a pass over 49 megapixels: 61 of them cost more than the 2·10⁹ allowed.
        expectTooLarge(TestPhotos.jpegScanBomb(side: 7_000, emptyScans: 60), "scan × pixels allowed")
        // As many scans of a small photo cost little, and decode.
        let small = try PhotoDecoder.decodeSquare(TestPhotos.jpegScanBomb(side: 64, emptyScans: 60), side: 32)
        #expect((small.width, small.height) == (32, 32))
    }
}
