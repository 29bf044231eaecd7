extension ImageSketch {
    /// A picture that replaces `sketch`: centred on the sketch's bounding box and as large as fits
    /// inside it with the picture's own aspect ratio (`imageSize`).
    ///
    /// A box that is flat in one direction (a straight line) is filled along its long side; a box
    /// with no extent at all (a dot) keeps the picture's own size. Returns nil for an empty sketch.
    public static func replacing(
        _ sketch: StrokeSketch, imageReference: String, imageSize: Size, label: String? = nil
    ) -> ImageSketch? {
        guard let box = sketch.boundingBox, imageSize.width > 0, imageSize.height > 0 else { return nil }
        let scales = [box.width / imageSize.width, box.height / imageSize.height].filter { $0 > 0 }
        let scale = scales.min() ?? 1
        let size = Size(width: imageSize.width * scale, height: imageSize.height * scale)
        let placed = Rect(center: box.center, size: size)
        return ImageSketch(imageReference: imageReference, origin: Point(x: placed.minX, y: placed.minY),
                           size: size, label: label ?? sketch.label)
    }
}
