import Foundation
import SketchwiseRecognition
import SketchwiseTestSupport

/// The models committed in `Models/`, loaded once for all tests.
enum BundledModels {
    static let folder = SharedData.packageRoot.appendingPathComponent("Models")
    static let set: RecognizerSet? = try? RecognizerSet.load(from: folder)
}
