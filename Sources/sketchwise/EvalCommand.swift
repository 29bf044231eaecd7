import ArgumentParser
import Foundation
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseRaster
import SketchwiseRecognition

struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Measure top-1/3/5 accuracy on labelled drawings.",
        discussion: """
            PATH is a file or folder in any supported format; the class is the record's word or the \
            file name. Raw strokes are Google-simplified first. Bitmaps go to the models that read images \
            (the ensemble's image-reading members by default; the stroke model cannot read them). \
            Use --subset validation on the shared Quick, Draw! data to score only drawings the models \
            never trained on (the training split rule, by key_id or array index). A model that knows only \
            some classes is scored on the drawings of those classes (the others are counted, not scored). \
            --models DIR --model NAME needs only NAME.json and NAME.safetensors in DIR. \
            --prefixes 0.25,0.5,0.75,1 also scores each stroke drawing cut to its first \
            ⌈share × strokes⌉ strokes (at least one), a row per share: how early a guess is right, \
            as the Quick, Draw! game judges it (bitmaps are left out of those rows).
            """
    )

    @Option(help: "Labelled drawings: a file or folder.")
    var data: String

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp) (default: ensemble)."))
    var model: RecognizerKind?

    @Option(help: "all, validation or training.")
    var subset: ValidationSplit.Subset = .all

    @Option(
        help: ArgumentHelp("Also score the drawings cut to these shares of their strokes, such as 0.25,0.5,0.75,1.", valueName: "shares"))
    var prefixes: String?

    @Flag(help: "Print one JSON object: model, n, drawings, classes, unknown_class, top1, top3, top5, per_class, prefixes.")
    var json = false

    @Option(help: "Write a confusion-matrix PNG here.")
    var confusion: String?

    @Flag(help: "Skip drawings that cannot be read or recognised instead of stopping.")
    var skipBad = false

    @Option(help: "Threads.")
    var threads = 2

    func validate() throws {
        if let prefixes {
            do { _ = try EvaluationReport.PrefixScore.parseList(prefixes) } catch { throw ValidationError("--prefixes: \(error)") }
        }
    }

    func run() async throws {
        let shares = try prefixes.map { try EvaluationReport.PrefixScore.parseList($0) } ?? []
        let recognizers = try modelOptions.load()
        let policy = BadInputPolicy(skipBad: skipBad) { StandardError.print("skipped: \($0)") }
        let (report, counts) = try Evaluation.run(
            source: try DrawingSource(path: data), recognizers: recognizers, kind: model, subset: subset,
            policy: policy, prefixes: shares, threads: threads
        ) { StandardError.progress("read \($0) drawings") }
        StandardError.progress("")
        if json, report.unknownClass > 0 { StandardError.print(report.coverage) }
        if let confusion {
            let title =
                "\(report.model) on \(data) (\(report.subset.rawValue)): n=\(report.n), top-1 \(String(format: "%.1f%%", 100 * report.top1))"
            try counts.picture(title: title).writePNG(to: confusion)
        }
        if json {
            try printJSON(report)
        } else {
            print("\(report.model), \(report.subset.rawValue) subset: n = \(report.n)")
            if report.unknownClass > 0 { print(report.coverage) }
            print(String(format: "top-1 %.2f%%   top-3 %.2f%%   top-5 %.2f%%", 100 * report.top1, 100 * report.top3, 100 * report.top5))
            if let rows = report.prefixes {
                print("strokes   n           top-1    top-3    top-5")
                for row in rows {
                    let share = String(format: "%.0f%%", 100 * row.prefix).padding(toLength: 9, withPad: " ", startingAt: 0)
                    let n = "\(row.n)".padding(toLength: 9, withPad: " ", startingAt: 0)
                    print(share + " " + n + String(format: " %6.2f%%  %6.2f%%  %6.2f%%", 100 * row.top1, 100 * row.top3, 100 * row.top5))
                }
            }
            if report.skipped > report.unknownClass { print("skipped \(report.skipped - report.unknownClass) bad drawings") }
        }
    }
}
