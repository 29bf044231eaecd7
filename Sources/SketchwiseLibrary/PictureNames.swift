import GRDB
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

extension LibraryDatabase {
    /// The names in `locale` of those of `ids` that are indexed pictures (see
    /// ``Localizer/pictureName(id:title:label:in:)``, with the title as the class: a picture whose
    /// title is not a class, nor an emoji, keeps its English title), by id. Ids the index does not
    /// hold are left out.
    public func pictureNames(ids: [String], localizer: Localizer, in locale: AppLocale) throws(LibraryError) -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try read { db in
            try LibraryItem.filter(ids.contains(Column("id"))).select(Column("id"), Column("title")).asRequest(of: Row.self).fetchAll(db)
        }
        var names: [String: String] = [:]
        for row in rows {
            let (id, title): (String, String) = (row["id"], row["title"])
            names[id] = localizer.pictureName(id: id, title: title, label: title.lowercased(), in: locale)
        }
        return names
    }
}
