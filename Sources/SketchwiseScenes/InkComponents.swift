import SketchwiseCore

/// The marks of a raster drawing: the image binarised (Otsu's threshold, at least 64), its
/// 8-connected components found, and specks too small to be drawing left out.
struct InkComponents: Sendable {
    /// The bounding boxes of the components, in pixels, largest first.
    let boxes: [Rect]

    /// - Parameter minimumShare: components with fewer pixels than this share of the image are specks.
    init(_ image: GrayImage, minimumShare: Double = 0.0002) {
        let threshold = max(64, Self.otsu(image))
        let (width, height) = (image.width, image.height)
        var label = [Int32](repeating: -1, count: width * height)
        var boxes: [(minX: Int, minY: Int, maxX: Int, maxY: Int, pixels: Int)] = []
        var stack: [Int] = []
        for start in 0..<(width * height) where label[start] < 0 && image.pixels[start] >= threshold {
            let id = Int32(boxes.count)
            var box = (minX: width, minY: height, maxX: -1, maxY: -1, pixels: 0)
            label[start] = id
            stack.append(start)
            while let index = stack.popLast() {
                let (x, y) = (index % width, index / width)
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y), box.pixels + 1)
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let (nx, ny) = (x + dx, y + dy)
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                        let next = ny * width + nx
                        if label[next] < 0, image.pixels[next] >= threshold {
                            label[next] = id
                            stack.append(next)
                        }
                    }
                }
            }
            boxes.append(box)
        }
        let minimum = max(4, Int(minimumShare * Double(width * height)))
        self.boxes = boxes.filter { $0.pixels >= minimum }
            .map {
                Rect(
                    minX: Double($0.minX), minY: Double($0.minY), width: Double($0.maxX - $0.minX + 1),
                    height: Double($0.maxY - $0.minY + 1))
            }
            .sorted { $0.width * $0.height > $1.width * $1.height }
    }

    /// Otsu's threshold: the level that best separates the image's two populations (paper, ink).
    static func otsu(_ image: GrayImage) -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        for value in image.pixels { histogram[Int(value)] += 1 }
        let total = Double(image.pixels.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var (background, backgroundSum, best, threshold) = (0.0, 0.0, -1.0, 0)
        for level in 0..<256 {
            background += Double(histogram[level])
            guard background > 0, background < total else { continue }
            backgroundSum += Double(level * histogram[level])
            let meanBackground = backgroundSum / background, meanInk = (sum - backgroundSum) / (total - background)
            let between = background * (total - background) * (meanBackground - meanInk) * (meanBackground - meanInk)
            if between > best {
                best = between
                threshold = level + 1
            }
        }
        return UInt8(min(255, threshold))
    }
}

extension GrayImage {
    /// The part inside `box`, scaled down (each pixel the strongest ink it covers) so that its
    /// longer side is at most `longestSide`.
    func cropped(_ box: Rect, longestSide: Int) -> GrayImage {
        let scale = min(1, Double(longestSide) / max(box.width, box.height, 1))
        let (width, height) = (max(1, Int((box.width * scale).rounded(.up))), max(1, Int((box.height * scale).rounded(.up))))
        var out = GrayImage(width: width, height: height)
        for y in Int(box.minY)..<Int(box.maxY) {
            for x in Int(box.minX)..<Int(box.maxX) {
                let (tx, ty) = (min(width - 1, Int((Double(x) - box.minX) * scale)), min(height - 1, Int((Double(y) - box.minY) * scale)))
                out[tx, ty] = max(out[tx, ty], self[x, y])
            }
        }
        return out
    }

    /// The part of the image inside `box` fitted into a `side` × `side` square, as Quick, Draw!'s
    /// bitmaps are drawn: scaled to fill it but for a one-pixel margin, centred, each pixel the
    /// strongest ink it covers (so a thin line survives the reduction), then widened by a soft
    /// one-pixel border to the recipe's line of about 1.75 pixels.
    func fitted(_ box: Rect, side: Int) -> GrayImage {
        var pooled = GrayImage(width: side, height: side)
        let scale = Double(side - 2) / max(box.width, box.height)
        let (offsetX, offsetY) = ((Double(side) - box.width * scale) / 2, (Double(side) - box.height * scale) / 2)
        for y in Int(box.minY)..<Int(box.maxY) {
            for x in Int(box.minX)..<Int(box.maxX) {
                let tx = Int(offsetX + (Double(x) - box.minX + 0.5) * scale), ty = Int(offsetY + (Double(y) - box.minY + 0.5) * scale)
                guard tx >= 0, ty >= 0, tx < side, ty < side else { continue }
                pooled[tx, ty] = max(pooled[tx, ty], self[x, y])
            }
        }
        var out = pooled
        for y in 0..<side {
            for x in 0..<side {
                var neighbor: UInt8 = 0
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] where (0..<side).contains(x + dx) && (0..<side).contains(y + dy) {
                    neighbor = max(neighbor, pooled[x + dx, y + dy])
                }
                out[x, y] = max(pooled[x, y], UInt8(Double(neighbor) * 0.6))
            }
        }
        return out
    }
}
