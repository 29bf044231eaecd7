import SketchwiseLocalization
import Testing

/// Which locale a request gets: its `lang`, else the first supported `Accept-Language` tag.
@Suite struct LanguagePreferenceTests {
    @Test func tagsMatchTheirLanguageWhateverTheRegionOrCase() {
        #expect(AppLocale(tag: "es-MX") == .spanish)
        #expect(AppLocale(tag: "FR_ca") == .french)
        #expect(AppLocale(tag: "de-AT") == .german)
        #expect(AppLocale(tag: "ja-JP") == .japanese)
        #expect(AppLocale(tag: "iw") == .hebrew)
        #expect(AppLocale(tag: "he-IL") == .hebrew)
        #expect(AppLocale(tag: "en-GB") == .english)
        #expect(AppLocale(tag: "pt-BR") == nil)
        #expect(AppLocale(tag: "") == nil)
    }

    @Test func chineseIsSimplifiedUnlessTheTagAsksForTraditional() {
        for tag in ["zh", "zh-CN", "zh-SG", "zh-Hans", "zh-Hans-CN"] { #expect(AppLocale(tag: tag) == .chineseSimplified, "\(tag)") }
        for tag in ["zh-Hant", "zh-TW", "zh-HK", "zh-Hant-TW"] { #expect(AppLocale(tag: tag) == nil, "\(tag)") }
    }

    @Test func acceptLanguageIsReadByWeightThenOrder() {
        #expect(LanguagePreference.tags(acceptLanguage: "fr;q=0.5, de, en;q=0.9, *;q=0.1, ja;q=0") == ["de", "en", "fr"])
        #expect(LanguagePreference.tags(acceptLanguage: "he, zh-CN") == ["he", "zh-CN"])
        #expect(LanguagePreference.tags(acceptLanguage: ";q=1, <script>, en;q=abc, es") == ["es"])
    }

    @Test func langWinsThenTheFirstSupportedTagThenEnglish() {
        #expect(LanguagePreference.locale(lang: "he", acceptLanguage: "de") == .hebrew)
        #expect(LanguagePreference.locale(lang: "pt", acceptLanguage: "pt-BR, ja;q=0.8, de;q=0.5") == .japanese)
        #expect(LanguagePreference.locale(lang: nil, acceptLanguage: "zh-TW, zh-CN;q=0.9") == .chineseSimplified)
        #expect(LanguagePreference.locale(lang: nil, acceptLanguage: nil) == .english)
        #expect(LanguagePreference.locale(lang: "xx", acceptLanguage: "ko") == .english)
    }

    @Test func everyLocaleHasAnEndonymAndOnlyHebrewRunsRightToLeft() {
        #expect(Set(AppLocale.allCases.map(\.endonym)).count == AppLocale.allCases.count)
        #expect(AppLocale.allCases.filter(\.isRightToLeft) == [.hebrew])
        #expect(AppLocale.allCases.allSatisfy { AppLocale(tag: $0.tag) == $0 })
    }
}
