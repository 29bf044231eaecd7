import SketchwiseCore

/// The pen lines of an image of a drawing (a scan, an Omniglot character) as strokes, so that
/// the image is embedded like a drawing: the ink is thinned to lines one pixel wide (Zhang &
/// Suen's thinning, 1984), which are then walked into polylines through the pixel centres.
/// Drawn with the sketch pen, the strokes give back the drawing's lines at the width the models
/// were trained on, where a picture's outline (``PictureRecipe``) would draw both edges of
/// every thick line.
public enum InkTracer {
    /// The strokes of the ink of `image` (pixels of at least `threshold`): a polyline per walk
    /// along the thinned lines (a walk goes on through junctions while it can), and a one-point
    /// stroke per isolated dot. None for an image without ink.
    public static func strokes(in image: GrayImage, threshold: UInt8 = 128) -> [Stroke] {
        var grid = Grid(image: image, threshold: threshold)
        grid.thin()
        return grid.polylines().map { pixels in
            Stroke(points: pixels.map { Point(x: Double($0 % grid.width) + 0.5, y: Double($0 / grid.width) + 0.5) })
        }
    }

    /// The ink as a grid of on/off pixels, indexed `y · width + x`.
    private struct Grid {
        let width, height: Int
        var on: [Bool]

        init(image: GrayImage, threshold: UInt8) {
            (width, height) = (image.width, image.height)
            on = image.pixels.map { $0 >= threshold }
        }

        /// Whether (x, y) is ink; outside the image is not.
        func isOn(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height && on[y * width + x] }

        /// The eight neighbours' offsets, clockwise from north (Zhang & Suen's P2 … P9).
        static let around = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]

        /// Zhang & Suen: two sub-passes, repeated until neither removes a pixel, each removing
        /// the border pixels whose removal keeps the lines connected and their ends in place.
        mutating func thin() {
            var changed = true
            while changed {
                changed = false
                for pass in 0..<2 {
                    var removed: [Int] = []
                    for y in 0..<height {
                        for x in 0..<width where on[y * width + x] && isRemovable(x, y, pass: pass) {
                            removed.append(y * width + x)
                        }
                    }
                    for index in removed { on[index] = false }
                    changed = changed || !removed.isEmpty
                }
            }
        }

        private func isRemovable(_ x: Int, _ y: Int, pass: Int) -> Bool {
            let p = Self.around.map { isOn(x + $0.0, y + $0.1) }
            let neighbors = p.count { $0 }
            let crossings = (0..<8).count { !p[$0] && p[($0 + 1) % 8] }
            guard (2...6).contains(neighbors), crossings == 1 else { return false }
            // p[0] north, p[2] east, p[4] south, p[6] west
            return pass == 0 ? !(p[0] && p[2] && p[4]) && !(p[2] && p[4] && p[6]) : !(p[0] && p[2] && p[6]) && !(p[0] && p[4] && p[6])
        }

        /// The thinned lines as walks over links between neighbouring pixels, each link walked
        /// once: first from line ends and junctions, then around closed loops; isolated pixels
        /// are walks of one pixel.
        func polylines() -> [[Int]] {
            let pixels = on.indices.filter { on[$0] }
            // The thinned lines do not change while they are walked: each pixel's neighbours, once.
            let neighbors = Dictionary(
                uniqueKeysWithValues: pixels.map { index in
                    let (x, y) = (index % width, index / width)
                    return (index, Self.around.compactMap { isOn(x + $0.0, y + $0.1) ? (y + $0.1) * width + x + $0.0 : nil })
                })
            var walked = Set<Int64>()
            func link(_ a: Int, _ b: Int) -> Int64 { Int64(min(a, b)) * Int64(on.count) + Int64(max(a, b)) }
            func unwalked(from pixel: Int) -> Int? { neighbors[pixel]!.first { !walked.contains(link(pixel, $0)) } }
            var walks = pixels.filter { neighbors[$0]!.isEmpty }.map { [$0] }
            let ends = pixels.filter { ![0, 2].contains(neighbors[$0]!.count) }
            for start in ends + pixels {
                while let first = unwalked(from: start) {
                    var walk = [start], current = start, next: Int? = first
                    while let step = next {
                        walked.insert(link(current, step))
                        walk.append(step)
                        current = step
                        next = unwalked(from: current)
                    }
                    walks.append(walk)
                }
            }
            return walks
        }
    }
}
