import Foundation
import Hummingbird
import NIOCore
import SketchwiseFormats
import SketchwiseLocalization

/// The web app's manifest in the language a request asks for, `GET /manifest.webmanifest` (the
/// `lang` query parameter, else `Accept-Language`, else English): the app folder's
/// `manifest.template.json` with the language's `lang` and `dir`, and the `description` of its
/// catalog (`locales/<tag>.json`, key `app.description`, else English's). The app points its
/// `<link rel="manifest">` here with the language the person speaks, so that an install prompt
/// and the installed app speak it too.
struct WebAppManifest: Sendable {
    /// The web app's folder.
    let webFolder: URL

    func add(to router: Router<SketchwiseRequestContext>) {
        router.get("manifest.webmanifest") { request, _ in
            let locale = LanguagePreference.locale(
                lang: request.uri.queryParameters.get("lang"), acceptLanguage: request.headers[.acceptLanguage])
            return Response(
                status: .ok, headers: [.contentType: "application/manifest+json; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: try manifest(in: locale))))
        }
    }

    /// The manifest in `locale`, as JSON.
    func manifest(in locale: AppLocale) throws -> Data {
        guard case var .object(manifest)? = read("manifest.template.json") else {
            throw APIError(.notFound, "the web app manifest is missing from the installation")
        }
        manifest["lang"] = .string(locale.tag)
        manifest["dir"] = .string(locale.isRightToLeft ? "rtl" : "ltr")
        if let description = catalogString("app.description", in: locale) ?? catalogString("app.description", in: .english) {
            manifest["description"] = .string(description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JSONValue.object(manifest))
    }

    /// String `key` of `locale`'s catalog, if the catalog has it.
    private func catalogString(_ key: String, in locale: AppLocale) -> String? {
        guard case let .object(catalog)? = read("locales/\(locale.tag).json"), case let .string(text)? = catalog[key] else { return nil }
        return text
    }

    /// The JSON file at `path` in the web folder; nil when it is missing or not JSON.
    private func read(_ path: String) -> JSONValue? {
        FileManager.default.contents(atPath: webFolder.appendingPathComponent(path).path)
            .flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
    }
}
