import CGdkPixbuf
import Foundation
import SketchwiseNN
import SketchwiseWork
import Synchronization
import Testing

@testable import SketchwisePhotos

/// Encodes an RGBA image as PNG or JPEG with gdk-pixbuf (the test's own photos).
func encodedPhoto(width: Int, height: Int, format: String, pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
    var rgba = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let (r, g, b, a) = pixel(x, y)
            rgba.replaceSubrange((y * width + x) * 4..<(y * width + x + 1) * 4, with: [r, g, b, a])
        }
    }
    return rgba.withUnsafeMutableBufferPointer { data -> [UInt8] in
        let pixbuf = gdk_pixbuf_new_from_data(
            data.baseAddress, GDK_COLORSPACE_RGB, 1, 8, Int32(width), Int32(height), Int32(width * 4), nil, nil)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        // JPEG has no alpha: save an opaque copy.
        let source =
            format == "jpeg"
            ? gdk_pixbuf_composite_color_simple(pixbuf, Int32(width), Int32(height), GDK_INTERP_NEAREST, 255, 8, 0, 0)! : pixbuf
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        let saved = withVaList([]) { _ in gdk_pixbuf_save_to_bufferv(source, &buffer, &size, format, nil, nil, &error) }
        precondition(saved != 0, "gdk-pixbuf could not encode \(format)")
        defer { g_free(buffer) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(buffer!).assumingMemoryBound(to: UInt8.self), count: Int(size)))
    }
}

@Suite struct PhotoHeaderTests {
    @Test func readsTheSizeOfPNGAndJPEGWithoutDecoding() throws {
        let png = try PhotoHeader(encodedPhoto(width: 37, height: 21, format: "png") { _, _ in (1, 2, 3, 255) })
        #expect((png.format, png.width, png.height) == (.png, 37, 21))
        let jpeg = try PhotoHeader(encodedPhoto(width: 64, height: 48, format: "jpeg") { _, _ in (200, 100, 50, 255) })
        #expect((jpeg.format, jpeg.width, jpeg.height) == (.jpeg, 64, 48))
    }

    @Test func refusesOtherFormatsAndCutOffHeaders() {
        #expect(throws: PhotoError(.unsupportedFormat, "not a PNG or JPEG image")) { try PhotoHeader(Array("GIF89a......".utf8)) }
        #expect(throws: PhotoError(.unsupportedFormat, "not a PNG or JPEG image")) { try PhotoHeader([]) }
        let png = encodedPhoto(width: 4, height: 4, format: "png") { _, _ in (0, 0, 0, 255) }
        #expect((try? PhotoHeader(Array(png.prefix(20)))) == nil)
        let jpeg = encodedPhoto(width: 4, height: 4, format: "jpeg") { _, _ in (0, 0, 0, 255) }
        #expect((try? PhotoHeader(Array(jpeg.prefix(12)))) == nil)
    }
}

@Suite struct PhotoDecoderTests {
    @Test func decodesPNGLayingTransparencyOnWhite() throws {
        let bytes = encodedPhoto(width: 6, height: 4, format: "png") { x, _ in x < 3 ? (255, 0, 0, 255) : (0, 0, 0, 0) }
        let image = try PhotoDecoder.decode(bytes)
        #expect((image.width, image.height) == (6, 4))
        #expect(Array(image.pixels[0..<3]) == [255, 0, 0])
        #expect(Array(image.pixels[(3 * 3)..<(3 * 3 + 3)]) == [255, 255, 255])
    }

    @Test func decodesTheCentreSquareOfAJPEGAtAReducedSize() throws {
        // Red outside the centre square, blue inside.
        let bytes = encodedPhoto(width: 400, height: 200, format: "jpeg") { x, _ in
            (100..<300).contains(x) ? (0, 128, 255, 255) : (255, 0, 0, 255)
        }
        #expect(try PhotoDecodePlan(bytes, square: 50).decodedWidth == 100)
        let image = try PhotoDecoder.decodeSquare(bytes, side: 50)
        #expect((image.width, image.height) == (50, 50))
        for (x, y) in [(2, 2), (25, 25), (47, 47)] {
            let pixel = (y * 50 + x) * 3
            #expect(abs(Int(image.pixels[pixel + 1]) - 128) <= 8 && image.pixels[pixel + 2] > 230 && image.pixels[pixel] < 20, "\(x), \(y)")
        }
    }

    @Test func turnsThePhotoAndItsSquareUprightAsItsEXIFSays() throws {
        // 40×20, the left half red: turned a quarter clockwise (orientation 6), red is on top.
        let stored = encodedPhoto(width: 40, height: 20, format: "jpeg") { x, _ in x < 20 ? (255, 0, 0, 255) : (0, 0, 255, 255) }
        let sideways = TestPhotos.withOrientation(stored, 6)
        let whole = try PhotoDecoder.decode(sideways)
        #expect((whole.width, whole.height) == (20, 40))
        let square = try PhotoDecoder.decodeSquare(sideways, side: 16)
        for image in [whole, square] {
            let bottom = (image.height - 1) * image.width * 3
            #expect(image.pixels[0] > 200 && image.pixels[2] < 60, "red on top")
            #expect(image.pixels[bottom] < 60 && image.pixels[bottom + 2] > 200, "blue below")
        }
    }

    @Test func aDecodeStopsWhenItsWorkIsAskedToStop() async throws {
        let photo = encodedPhoto(width: 64, height: 64, format: "png") { _, _ in (9, 9, 9, 255) }
        let signal = StopSignal()
        signal.raise()
        do {
            _ = try StopSignal.$current.withValue(signal) { try PhotoDecoder.decodeSquare(photo, side: 32) }
            Issue.record("a stopped decode went on")
        } catch let error as PhotoError {
            #expect(error.kind == .tooLarge && error.message.contains("stopped"), "\(error)")
        }
        // A scan bomb the limits were raised for: 3,000 passes over 16 megapixels, half a minute
        // of work. At its deadline the queue's caller is answered, and the decode stops at the next
        // scan, long before the end of the file, freeing the queue's one thread for the next job.
        // (What is checked is where it stopped, not how long it took: the tests share the cores.)
        let bomb = TestPhotos.jpegScanBomb(side: 4_000, emptyScans: 3_000)
        let limits = PhotoLimits(maximumScans: 10_000, maximumScanPixels: .max)
        let queue = WorkQueue(threads: 1, queueLimit: 4, queueLimitPerClient: 4)
        defer { queue.close() }
        let ending = DecodeEnding()
        await #expect(throws: DeadlineExceeded.self) {
            try await queue.run(deadline: .now + .milliseconds(300)) {
                do {
                    _ = try PhotoDecoder.decodeSquare(bomb, side: 256, limits: limits)
                    ending.record("decoded to the end")
                } catch {
                    ending.record("\(error)")
                    throw error
                }
            }
        }
        try await queue.run {}  // the decode has returned
        let message = try #require(ending.message)
        #expect(message.contains("was stopped after"), "\(message)")
        if let fed = message.split(separator: " ").firstIndex(of: "after").map({ message.split(separator: " ")[$0 + 1] }),
            let bytes = Int(fed)
        {
            // The 3,000 scans take the last ~30 KB of the file, 10 bytes each.
            #expect(bytes < bomb.count - 10_000, "the decode stopped only after \(bytes) of \(bomb.count) bytes")
        }
    }

    /// How a decode on the queue ended, kept for the test after its caller was answered.
    final class DecodeEnding: Sendable {
        private let ending = Mutex<String?>(nil)
        var message: String? { ending.withLock { $0 } }
        func record(_ message: String) { ending.withLock { $0 = message } }
    }

    @Test func refusesTooManyBytesOrPixelsBeforeDecoding() {
        let bytes = encodedPhoto(width: 100, height: 100, format: "png") { _, _ in (9, 9, 9, 255) }
        #expect(throws: PhotoError.self) { try PhotoDecoder.decode(bytes, limits: PhotoLimits(maximumBytes: 10, maximumPixels: 1 << 30)) }
        do {
            _ = try PhotoDecoder.decode(bytes, limits: PhotoLimits(maximumBytes: 1 << 20, maximumPixels: 9_999))
            Issue.record("a 100×100 photo passed a 9,999-pixel limit")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        // A header declaring 100,000 × 100,000 pixels, with nothing after it.
        var bomb: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        bomb += [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 2, 0, 0, 0]
        #expect(throws: PhotoError(.tooLarge, "the photo is 100000×100000 pixels: a side may be at most 20000 pixels")) {
            try PhotoDecoder.decode(bomb)
        }
        let tooMany = TestPhotos.pngHeaderOnly(width: 10_000, height: 10_000)
        #expect(throws: PhotoError(.tooLarge, "the photo is 10000×10000 pixels, more than the 50000000 allowed")) {
            try PhotoDecoder.decode(tooMany)
        }
    }

    @Test func refusesCutOffAndCorruptFiles() {
        let jpeg = encodedPhoto(width: 64, height: 64, format: "jpeg") { x, y in (UInt8(x * 4), UInt8(y * 4), 0, 255) }
        let png = encodedPhoto(width: 64, height: 64, format: "png") { x, y in (UInt8(x * 4), UInt8(y * 4), 0, 255) }
        for broken in [
            Array(png.prefix(png.count / 2)), Array(png.prefix(40)) + [UInt8](repeating: 0x55, count: 200),
            Array(jpeg.prefix(jpeg.count / 3)),
        ] {
            do {
                _ = try PhotoDecoder.decode(broken)
                Issue.record("a broken file of \(broken.count) bytes decoded")
            } catch {
                #expect(error.kind == .unreadable)
            }
        }
    }

}

@Suite struct PhotoTensorTests {
    @Test func anImageOfAnySizeGivesItsCentreSquareAtTheModelsSize() throws {
        // 60×20: red, then blue in the centre 20×20, then red.
        let pixels = (0..<(60 * 20)).flatMap { i -> [UInt8] in (20..<40).contains(i % 60) ? [0, 0, 255] : [255, 0, 0] }
        let square = try PhotoScaler.centreSquare(RGBImage(width: 60, height: 20, pixels: pixels), side: 8)
        #expect((square.width, square.height) == (8, 8))
        #expect(square.pixels == [UInt8]((0..<64).flatMap { _ in [UInt8(0), 0, 255] }))
    }

    @Test func cropsTheCentreAndNormalisesEachChannel() {
        // 6×4, shorter side already 4: the centre 4×4 starts at x = 1.
        let pixels = (0..<(6 * 4)).flatMap { i -> [UInt8] in [UInt8(i % 6 * 40), 255, 0] }
        let image = RGBImage(width: 6, height: 4, pixels: pixels)
        let input = ImageInput(size: 4, resize: 4, mean: [0.5, 0.5, 0.5], std: [0.25, 0.5, 1])
        var tensor = [Float](repeating: .nan, count: 3 * 16)
        tensor.withUnsafeMutableBufferPointer { PhotoTensor.write(image, input: input, into: $0) }
        #expect(abs(tensor[0] - (40 / 255 - 0.5) / 0.25) < 1e-6)
        #expect(abs(tensor[3] - (160 / 255 - 0.5) / 0.25) < 1e-6)
        #expect(tensor[16..<32].allSatisfy { abs($0 - 1) < 1e-6 })
        #expect(tensor[32..<48].allSatisfy { abs($0 + 0.5) < 1e-6 })
    }
}
