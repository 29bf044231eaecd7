import CCairo
import SketchwiseCore

/// Renders pictures by a ``PictureRecipe``: finds the ink box, fits it into the sketch frame,
/// reduces the drawing to its outline and makes the thumbnail. Shared by ``SVGRasterizer`` and
/// ``EmojiRasterizer``, which only say how their picture draws itself. Owns its surfaces and
/// buffers; not thread-safe.
final class PictureCanvas {
    let size: Int
    let recipe: PictureRecipe
    private let probe: ColorSurface
    private let work: ColorSurface
    private let thumbnail: ColorSurface
    /// Edge marks at the working resolution.
    private var marks: [UInt8]
    /// The outline at the working resolution, 1 where the pen passes.
    private var ink: [UInt8]
    /// The pen's disk, row by row from top to bottom: each row's half width in pixels.
    private let penRows: [Int]

    /// Draws a picture in its own coordinates, within (0, 0)…(width, height), into a Cairo context
    /// whose transformation is already set.
    typealias Drawing = (OpaquePointer) throws(PictureError) -> Void

    init(size: Int, recipe: PictureRecipe, thumbnailSize: Int) throws(RasterError) {
        guard (1...1024).contains(size) else { throw RasterError("picture raster size \(size) is outside 1…1024") }
        guard (1...16).contains(recipe.supersampling), (8...4096).contains(recipe.probeSize), (1...64).contains(recipe.edgeSpan) else {
            throw RasterError(
                "picture recipe out of range: supersampling \(recipe.supersampling), probe \(recipe.probeSize), edge span \(recipe.edgeSpan)"
            )
        }
        guard (1...1024).contains(thumbnailSize) else { throw RasterError("thumbnail size \(thumbnailSize) is outside 1…1024") }
        let geometry = recipe.geometry
        guard geometry.frame > 0, geometry.extent > 0, (0...geometry.frame).contains(geometry.lineWidth),
            (0...geometry.frame).contains(geometry.padding)
        else { throw RasterError("picture recipe geometry out of range: \(geometry)") }
        self.size = size
        self.recipe = recipe
        probe = try ColorSurface(side: recipe.probeSize)
        work = try ColorSurface(side: size * recipe.supersampling)
        thumbnail = try ColorSurface(side: thumbnailSize)
        marks = [UInt8](repeating: 0, count: work.side * work.side)
        ink = marks
        // An edge is marked about `edgeSpan` pixels wide; the pen adds the rest of its width.
        let radius = max(0.5, (geometry.lineWidth * Double(work.side) / geometry.view - Double(recipe.edgeSpan)) / 2)
        let reach = Int(radius)
        penRows = (-reach...reach).map { dy in Int((radius * radius - Double(dy * dy)).squareRoot()) }
    }

    /// Renders a picture whose content lies within (0, 0)…(width, height) of its coordinates.
    func render(width: Double, height: Double, _ drawing: Drawing) throws(PictureError) -> RenderedPicture {
        guard width.isFinite, height.isFinite, width > 0, height > 0, max(width, height) / min(width, height) < 1e6 else {
            throw PictureError(.noSize, "size \(width)×\(height)")
        }
        let box = try inkBox(width: width, height: height, drawing)
        try drawFitted(box, drawing)
        let raster = outline()
        guard raster.pixels.contains(where: { $0 > 0 }) else { throw PictureError(.blank, "no outline: nothing contrasts enough") }
        do {
            return RenderedPicture(raster: raster, thumbnailPNG: try thumbnailPNG(), aspect: box.width / box.height)
        } catch {
            throw PictureError(.renderFailed, error.description)
        }
    }

    /// The picture in colour, cropped to its ink box (or to `crop`) and scaled so that its longer
    /// side is `maxSide` pixels.
    func picture(width: Double, height: Double, maxSide: Int, crop: Rect? = nil, _ drawing: Drawing) throws(PictureError) -> PicturePNG {
        guard width.isFinite, height.isFinite, width > 0, height > 0, max(width, height) / min(width, height) < 1e6 else {
            throw PictureError(.noSize, "size \(width)×\(height)")
        }
        guard (1...4096).contains(maxSide) else { throw PictureError(.renderFailed, "picture side \(maxSide) is outside 1…4096") }
        let box: Rect
        if let crop { box = crop } else { box = try inkBox(width: width, height: height, drawing) }
        let scale = Double(maxSide) / max(box.width, box.height)
        let (w, h) = (max(1, Int((box.width * scale).rounded())), max(1, Int((box.height * scale).rounded())))
        do {
            let surface = try ColorSurface(width: w, height: h)
            try drawChecked(on: surface) { cr throws(PictureError) in
                cairo_scale(cr, scale, scale)
                cairo_translate(cr, -box.minX, -box.minY)
                try drawing(cr)
            }
            return PicturePNG(bytes: try surface.pngBytes(), width: w, height: h)
        } catch let error as PictureError {
            throw error
        } catch {
            throw PictureError(.renderFailed, "\(error)")
        }
    }

    /// Step 1: the box, in the picture's coordinates, of the pixels that differ from white.
    func inkBox(width: Double, height: Double, _ drawing: Drawing) throws(PictureError) -> Rect {
        let side = Double(probe.side)
        let scale = side / max(width, height)
        let ox = (side - width * scale) / 2, oy = (side - height * scale) / 2
        try drawChecked(on: probe) { cr throws(PictureError) in
            cairo_translate(cr, ox, oy)
            cairo_scale(cr, scale, scale)
            try drawing(cr)
        }
        let threshold = Int32(recipe.inkContrast * 255)
        let n = probe.side
        let found: (Int, Int, Int, Int)? = probe.withPixels { pixels, rowLength in
            var minX = n, minY = n, maxX = -1, maxY = -1
            for y in 0..<n {
                let row = pixels + y * rowLength
                for x in 0..<n {
                    let d = ColorSurface.darkness(row[x])
                    if max(d.r, d.g, d.b) > threshold {
                        minX = min(minX, x); maxX = max(maxX, x)
                        minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
            return maxX < 0 ? nil : (minX, minY, maxX, maxY)
        }
        guard let (minX, minY, maxX, maxY) = found else { throw PictureError(.blank, "no pixel differs from white") }
        return Rect(
            minX: (Double(minX) - ox) / scale, minY: (Double(minY) - oy) / scale,
            width: Double(maxX + 1 - minX) / scale, height: Double(maxY + 1 - minY) / scale
        )
    }

    /// Step 2: the picture drawn at the working resolution with its ink box fitted into the frame
    /// like a sketch's bounding box.
    private func drawFitted(_ box: Rect, _ drawing: Drawing) throws(PictureError) {
        let g = recipe.geometry
        let unit = Double(work.side) / g.view
        let f = g.extent / max(box.width, box.height)
        let shift = (2 * g.padding + g.lineWidth) / 2
        let ox = (g.frame - box.width * f) / 2, oy = (g.frame - box.height * f) / 2
        try drawChecked(on: work) { cr throws(PictureError) in
            cairo_scale(cr, unit, unit)
            cairo_translate(cr, shift + ox, shift + oy)
            cairo_scale(cr, f, f)
            cairo_translate(cr, -box.minX, -box.minY)
            try drawing(cr)
        }
    }

    private func drawChecked(on surface: ColorSurface, _ body: (OpaquePointer) throws(PictureError) -> Void) throws(PictureError) {
        guard try surface.draw(body) else { throw PictureError(.renderFailed, "cairo reported an error while drawing") }
    }

    /// Steps 3 and 4: edges drawn with the pen, averaged down to the output size.
    private func outline() -> GrayImage {
        markEdges()
        drawPen()
        return downsampled()
    }

    /// Marks, midway between them, every pair of pixels `edgeSpan` apart across or down whose
    /// darkness differs by more than the edge threshold in some channel.
    private func markEdges() {
        let n = work.side, span = recipe.edgeSpan, half = recipe.edgeSpan / 2
        marks.withUnsafeMutableBufferPointer { marks in
            marks.update(repeating: 0)
            work.withPixels { pixels, rowLength in
                var strongest: Int32 = 0
                for y in 0..<n {
                    for x in 0..<n {
                        let d = ColorSurface.darkness(pixels[y * rowLength + x])
                        strongest = max(strongest, d.r, d.g, d.b)
                    }
                }
                let threshold = max(Int32(recipe.inkContrast * 255) / 2, min(Int32(recipe.edgeContrast * 255), strongest / 2))
                for y in 0..<n {
                    let row = pixels + y * rowLength
                    for x in 0..<n {
                        let here = ColorSurface.darkness(row[x])
                        if x + span < n, Self.differ(here, ColorSurface.darkness(row[x + span]), by: threshold) {
                            marks[y * n + x + half] = 1
                        }
                        if y + span < n, Self.differ(here, ColorSurface.darkness(row[x + span * rowLength]), by: threshold) {
                            marks[(y + half) * n + x] = 1
                        }
                    }
                }
            }
        }
    }

    /// Draws the pen's disk around every run of marked pixels.
    private func drawPen() {
        let n = work.side, reach = penRows.count / 2
        ink.withUnsafeMutableBufferPointer { ink in
            ink.update(repeating: 0)
            for y in 0..<n {
                var x = 0
                while x < n {
                    guard marks[y * n + x] != 0 else { x += 1; continue }
                    let first = x
                    while x < n, marks[y * n + x] != 0 { x += 1 }
                    for (i, half) in penRows.enumerated() {
                        let yy = y + i - reach
                        guard yy >= 0, yy < n else { continue }
                        let from = max(0, first - half), to = min(n - 1, x - 1 + half)
                        UnsafeMutableBufferPointer(rebasing: ink[(yy * n + from)...(yy * n + to)]).update(repeating: 1)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func differ(_ a: (r: Int32, g: Int32, b: Int32), _ b: (r: Int32, g: Int32, b: Int32), by threshold: Int32) -> Bool {
        abs(a.r - b.r) > threshold || abs(a.g - b.g) > threshold || abs(a.b - b.b) > threshold
    }

    private func downsampled() -> GrayImage {
        let k = recipe.supersampling, n = work.side
        let area = k * k
        var image = GrayImage(width: size, height: size)
        for oy in 0..<size {
            for ox in 0..<size {
                var sum = 0
                for y in (oy * k)..<(oy * k + k) {
                    for x in (ox * k)..<(ox * k + k) { sum += Int(ink[y * n + x]) }
                }
                image.pixels[oy * size + ox] = UInt8((sum * 255 + area / 2) / area)
            }
        }
        return image
    }

    /// The colour drawing of step 2, scaled down to the thumbnail size, as PNG bytes.
    private func thumbnailPNG() throws(RasterError) -> [UInt8] {
        let scale = Double(thumbnail.side) / Double(work.side)
        let drawn = thumbnail.draw { cr in
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, work.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_paint(cr)
        }
        guard drawn else { throw RasterError("cairo could not scale the thumbnail") }
        return try thumbnail.pngBytes()
    }
}
