import GRDB

extension LibraryDatabase {
    /// Every schema change of the index, in order. Add a migration; never edit a shipped one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: items and skipped files") { db in
            try db.create(table: LibraryItem.databaseTableName) { t in
                t.primaryKey("id", .text)
                t.column("source", .text).notNull().indexed()
                t.column("path", .text).notNull()
                t.column("title", .text).notNull()
                t.column("sourceTitle", .text)
                t.column("keywords", .jsonText).notNull()
                t.column("licence", .text).notNull()
                t.column("thumbnail", .blob).notNull()
                t.column("raster", .blob).notNull()
                t.column("rasterSize", .integer).notNull()
                t.column("embedding", .blob).notNull()
                t.column("topClasses", .jsonText).notNull()
                t.column("fileHash", .text).notNull()
                t.column("fileSize", .integer).notNull()
                t.column("fileModified", .double).notNull()
                t.column("pipeline", .text).notNull()
            }
            try db.create(table: SkippedFile.databaseTableName) { t in
                t.primaryKey("id", .text)
                t.column("source", .text).notNull().indexed()
                t.column("path", .text).notNull()
                t.column("reason", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("fileHash", .text).notNull()
                t.column("fileSize", .integer).notNull()
                t.column("fileModified", .double).notNull()
                t.column("pipeline", .text).notNull()
            }
        }
        migrator.registerMigration("v2: picture aspect") { db in
            try db.alter(table: LibraryItem.databaseTableName) { t in
                t.add(column: "aspect", .double).notNull().defaults(to: 1)
            }
        }
        return migrator
    }
}
