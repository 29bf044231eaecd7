import SketchwiseNN
import SketchwiseShortcuts

extension NearestNeighborClassifier.Configuration {
    /// This configuration with the unknown thresholds that `model`'s spec carries
    /// (`shortcuts.unknownDistances`, docs/shortcuts.md); unchanged when it carries none.
    /// - Throws: ``ShortcutError`` when they are not cosine distances (0…2), or none.
    public func calibrated(for model: Model) throws(ShortcutError) -> Self {
        guard let distances = model.spec.shortcuts?.unknownDistances else { return self }
        guard !distances.isEmpty, distances.allSatisfy({ (0...2).contains($0) }) else {
            throw ShortcutError("\(model.spec.name): shortcuts.unknownDistances must list cosine distances (0…2), at least one")
        }
        var calibrated = self
        calibrated.unknownDistances = distances
        return calibrated
    }
}
