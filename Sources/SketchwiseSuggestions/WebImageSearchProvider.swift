import Foundation
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseWork

/// Where and how to search the web for pictures: an endpoint that answers like Bing Image
/// Search v7 (`GET endpoint?q=…&count=…` with the key in `Ocp-Apim-Subscription-Key`, a JSON
/// body with `value: [{name, contentUrl, thumbnailUrl, encodingFormat}]`).
public struct WebImageSearchConfiguration: Sendable, Equatable {
    public var endpoint: URL
    public var key: String
    /// How many results are asked for per label.
    public var resultsPerLabel = 8
    /// Longest wait for the search and for each image.
    public var timeout: TimeInterval = 4
    /// Largest search response and largest image, in bytes.
    public var maximumBytes = 4 << 20

    public init(endpoint: URL, key: String) {
        self.endpoint = endpoint
        self.key = key
    }

    /// The configuration from `SKETCHWISE_IMAGE_SEARCH_ENDPOINT` and `SKETCHWISE_IMAGE_SEARCH_KEY`,
    /// or nil when the endpoint is not set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Self? {
        guard let text = environment["SKETCHWISE_IMAGE_SEARCH_ENDPOINT"], let endpoint = URL(string: text) else { return nil }
        return Self(endpoint: endpoint, key: environment["SKETCHWISE_IMAGE_SEARCH_KEY"] ?? "")
    }
}

/// Pictures from a web image search, as the seeds did with Bing: the top guesses are searched,
/// every result is downloaded (within limits), checked to be an image, reduced to its outline
/// by the library's picture recipe and ranked by the similarity of its embedding to the
/// sketch's, exactly like library pictures. Results that fail are skipped; a search that fails
/// makes the provider fail with the reason.
public final class WebImageSearchProvider: SuggestionProvider {
    public let name = "web"
    public let configuration: WebImageSearchConfiguration
    private let embedder: PictureEmbedder
    private let fetcher: HTTPFetcher
    /// Bitmap and SVG rasterisers for downloaded pictures, one pair per concurrent use.
    private let rasterizers: Pool<(bitmap: BitmapRasterizer, svg: SVGRasterizer)>

    /// - Parameter embedder: the raster model that embeds library pictures and sketches.
    public init(configuration: WebImageSearchConfiguration, embedder: PictureEmbedder) {
        self.configuration = configuration
        self.embedder = embedder
        fetcher = HTTPFetcher(timeout: configuration.timeout, maximumBytes: configuration.maximumBytes)
        let size = embedder.inputSize
        rasterizers = Pool { (try BitmapRasterizer(size: size), try SVGRasterizer(size: size)) }
    }

    deinit { fetcher.invalidate() }

    /// One result of the search response.
    struct Result: Decodable, Sendable {
        var name: String?
        var contentUrl: String?
        var thumbnailUrl: String?
    }

    struct SearchResponse: Decodable {
        var value: [Result]
    }

    public func suggestions(for request: SuggestionRequest) async throws -> [Suggestion] {
        let guesses = Array(request.analysis.guesses.prefix(max(0, request.labels)))
        return try await withThrowingTaskGroup(of: [Suggestion].self) { group in
            for guess in guesses {
                group.addTask { try await self.suggestions(for: guess, request: request) }
            }
            var all: [Suggestion] = []
            for try await found in group { all += found }
            return Suggestion.ranked(all)
        }
    }

    /// The `perLabel` most similar results of searching for one guess's label.
    private func suggestions(for guess: Guess, request: SuggestionRequest) async throws -> [Suggestion] {
        let results = try await search(guess.label)
        try Task.checkCancellation()
        let pictures = await withTaskGroup(of: Suggestion?.self) { group in
            for result in results {
                group.addTask { await self.picture(result, for: guess, embedding: request.analysis.embedding) }
            }
            var found: [Suggestion] = []
            for await picture in group { if let picture { found.append(picture) } }
            return found
        }
        try Task.checkCancellation()
        return Array(Suggestion.ranked(pictures).prefix(max(0, request.perLabel)))
    }

    /// The search results for `label`.
    /// - Throws: ``FetchError`` for a failed request, a status other than 200 or a body that is
    ///   not the expected JSON.
    func search(_ label: String) async throws -> [Result] {
        guard var components = URLComponents(url: configuration.endpoint, resolvingAgainstBaseURL: false) else {
            throw FetchError("\(configuration.endpoint): not a usable address")
        }
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "q", value: label), URLQueryItem(name: "count", value: String(configuration.resultsPerLabel)),
        ]
        guard let url = components.url else { throw FetchError("cannot make a search address for '\(label)'") }
        let response = try await fetcher.get(url, headers: ["Ocp-Apim-Subscription-Key": configuration.key])
        guard response.status == 200 else { throw FetchError("search for '\(label)' answered HTTP \(response.status)") }
        do {
            return Array(try JSONDecoder().decode(SearchResponse.self, from: response.body).value.prefix(configuration.resultsPerLabel))
        } catch {
            throw FetchError("search for '\(label)' answered with JSON that is not an image search response")
        }
    }

    /// One result downloaded, rendered and compared with the sketch; nil when it fails.
    private func picture(_ result: Result, for guess: Guess, embedding: [Float]) async -> Suggestion? {
        guard let address = result.thumbnailUrl ?? result.contentUrl, let url = URL(string: address),
              let response = try? await fetcher.get(url), response.status == 200
        else { return nil }
        let bytes = [UInt8](response.body)
        guard let rendered = try? rasterizers.with({ pair in
                  try BitmapRasterizer.looksLikeImage(bytes) ? pair.bitmap.render(bytes) : pair.svg.render(bytes)
              }),
              let described = try? embedder.describe(rendered.raster),
              let similarity = SuggestionRanker.cosine(described.embedding, embedding)
        else { return nil }
        let similar = max(0, similarity)
        return Suggestion(
            label: guess.label, score: Suggestion.score(probability: guess.probability, similarity: similar, strength: .keyword),
            probability: guess.probability, similarity: similar,
            source: .web, itemID: result.contentUrl ?? address, title: result.name ?? guess.label, aspect: rendered.aspect,
            reason: .webSearch
        )
    }
}
