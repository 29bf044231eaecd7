import Foundation
import SketchwiseCore
import SketchwiseRecognition

/// The checks a downloaded model passes before it is activated: it loads, it reads the same
/// kind of input as the model it replaces, and a smoke prediction gives finite numbers.
public enum ModelValidation {
    /// A circle of 24 points, which every sketch model must be able to take.
    static let smokeSketch: StrokeSketch = {
        let points = (0...24).map { index -> Point in
            let angle = Double(index) / 24 * 2 * Double.pi
            return Point(x: 128 + 80 * cos(angle), y: 128 + 80 * sin(angle))
        }
        return StrokeSketch(strokes: [Stroke(points: points)])
    }()

    /// Loads `<name>.json` of `folder` and runs the smoke prediction.
    /// - Parameter replacing: the model now serving under this name, if any; the new one must
    ///   read the same kind of input and, if it classifies, so must the new one.
    /// - Throws: ``ModelLifecycleError/invalidModel(_:)`` saying what failed.
    @discardableResult
    public static func check(_ name: String, in folder: URL, replacing current: ModelRecognizer? = nil) throws -> ModelRecognizer {
        let model: ModelRecognizer
        do {
            model = try ModelRecognizer(contentsOf: folder.appendingPathComponent("\(name).json"))
        } catch {
            throw ModelLifecycleError.invalidModel("it does not load: \(error)")
        }
        if let current {
            guard current.readsImages == model.readsImages else {
                throw ModelLifecycleError.invalidModel(
                    "it reads \(model.readsImages ? "images" : "strokes"), the model it replaces reads \(current.readsImages ? "images" : "strokes")"
                )
            }
            guard current.labels.isEmpty || !model.labels.isEmpty else {
                throw ModelLifecycleError.invalidModel("it has no labels, the model it replaces classifies")
            }
        }
        do {
            let values = model.labels.isEmpty ? try model.embedding(smokeSketch) : try model.logProbabilities(smokeSketch).values
            guard !values.isEmpty, values.allSatisfy(\.isFinite) else {
                throw ModelLifecycleError.invalidModel("its smoke prediction is not finite")
            }
            guard model.labels.isEmpty || values.count == model.labels.count else {
                throw ModelLifecycleError.invalidModel("it answers \(values.count) values for \(model.labels.count) labels")
            }
        } catch let error as ModelLifecycleError {
            throw error
        } catch {
            throw ModelLifecycleError.invalidModel("its smoke prediction failed: \(error)")
        }
        return model
    }
}
