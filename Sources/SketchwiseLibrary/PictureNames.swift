import SketchwiseLocalization

extension Localizer {
    /// The name of picture `id` (titled `title`, shown for class `label`) in `locale`: in English
    /// its title; otherwise CLDR's name of the emoji it shows, else the name of its class.
    public func pictureName(id: String, title: String, label: String, in locale: AppLocale) -> String {
        guard locale != .english else { return title }
        if let emoji = LibrarySource.emoji(ofPicture: id), let name = emojiName(emoji, in: locale) { return name }
        return className(label, in: locale)
    }
}
