import ArgumentParser
import SketchwiseConversion

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render drawings to N×N grayscale (Google's numpy_bitmap recipe) as .npy or PNG files.",
        discussion: """
        Stroke drawings are simplified the Google way first (unless they already are), then drawn \
        with Cairo: the bounding box fitted into a 256-unit frame with 16 units of padding, \
        16-unit round lines, anti-aliased, rendered directly at N×N. Ink is 255 on 0.
        """
    )

    @OptionGroup var input: InputOptions

    @Option(help: "Image side in pixels (Google's bitmaps: 28).")
    var size = 28

    @Option(help: "Write one (n, size·size) uint8 .npy file, with the classes in <name>.labels.txt.")
    var npy: String?

    @Option(help: "Write one PNG per drawing into <folder>/<class>/.")
    var pngDir: String?

    @Flag(help: "Black ink on white instead of white on black.")
    var invert = false

    func validate() throws {
        guard (npy == nil) != (pngDir == nil) else { throw ValidationError("give exactly one of --npy and --png-dir") }
        guard (1...4096).contains(size) else { throw ValidationError("--size must be within 1…4096") }
    }

    func run() async throws {
        let output: RenderJob.Output = if let npy { .npy(npy) } else { .pngFolder(pngDir!) }
        let report = try RenderJob.run(source: try input.source(), size: size, output: output, invert: invert, policy: input.policy) {
            StandardError.progress("rendered \($0) drawings")
        }
        StandardError.summary("rendered", report)
    }
}
