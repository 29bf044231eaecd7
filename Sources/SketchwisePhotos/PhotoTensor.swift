import SketchwiseNN

/// Writes a model's input tensor from a photo scaled for it (its centre square at `input.resize`).
enum PhotoTensor {
    /// The centre `size × size` square of `image`, as three planes (R, G, B) of
    /// `(v / 255 − mean) / std`.
    static func write(_ image: RGBImage, input: ImageInput, into tensor: UnsafeMutableBufferPointer<Float>) {
        let size = input.size
        let (left, top) = (max(0, (image.width - size) / 2), max(0, (image.height - size) / 2))
        let plane = size * size
        image.pixels.withUnsafeBufferPointer { pixels in
            for c in 0..<3 {
                let scale = Float(1 / (255 * input.std[c])), shift = Float(-input.mean[c] / input.std[c])
                for y in 0..<size {
                    let row = min(image.height - 1, top + y) * image.width
                    let target = c * plane + y * size
                    for x in 0..<size {
                        let value = Float(pixels[(row + min(image.width - 1, left + x)) * 3 + c])
                        tensor[target + x] = value * scale + shift
                    }
                }
            }
        }
    }
}
