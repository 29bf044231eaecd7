import SketchwiseLibrary
import SketchwiseModels
import SketchwisePersonal
import SketchwiseRecognition
import SketchwiseSuggestions

/// Everything a request is answered with, as one value. A request takes the snapshot current
/// when it starts and finishes on it, whatever is switched meanwhile.
package struct ServingSnapshot: Sendable {
    package let recognizers: RecognizerSet
    package let service: SuggestionService
    package let database: LibraryDatabase
    package let images: PictureImages
    package let libraryItems: Int
    /// The registry's listing when this snapshot was made.
    package let models: [RegisteredModel]
    package let broken: [BrokenModel]
    /// The A/B test's treatment arm, when one runs and its version is installed and valid.
    package let treatment: Treatment?

    /// What the treatment arm of an A/B test is answered with.
    package struct Treatment: Sendable {
        package let experiment: ModelExperiment
        package let recognizers: RecognizerSet
        package let service: SuggestionService

        package init(experiment: ModelExperiment, recognizers: RecognizerSet, service: SuggestionService) {
            self.experiment = experiment
            self.recognizers = recognizers
            self.service = service
        }
    }

    package init(
        recognizers: RecognizerSet, service: SuggestionService, database: LibraryDatabase, images: PictureImages, libraryItems: Int,
        models: [RegisteredModel], broken: [BrokenModel], treatment: Treatment?
    ) {
        self.recognizers = recognizers
        self.service = service
        self.database = database
        self.images = images
        self.libraryItems = libraryItems
        self.models = models
        self.broken = broken
        self.treatment = treatment
    }

    /// The recognisers and service for a person: the treatment's when they are in that arm, and
    /// the arm (nil when no A/B test runs or there is no person).
    package func answering(_ user: PersonalUser?) -> (recognizers: RecognizerSet, service: SuggestionService, arm: ModelExperiment.Arm?) {
        guard let treatment, let user else { return (recognizers, service, nil) }
        let arm = treatment.experiment.arm(ofUser: user.id)
        return arm == .treatment ? (treatment.recognizers, treatment.service, arm) : (recognizers, service, arm)
    }
}
