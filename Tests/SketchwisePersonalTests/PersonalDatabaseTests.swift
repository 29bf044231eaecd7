import SketchwisePersonal
import SketchwisePostgres
import Testing

/// Reading `--database` values.
@Suite struct PersonalDatabaseTests {
    @Test func aPathIsSQLiteAndAPostgresURLIsParsed() throws {
        #expect(try PersonalDatabase(parsing: "out/personal.sqlite") == .sqlite(path: "out/personal.sqlite"))
        guard case let .postgres(tcp) = try PersonalDatabase(parsing: "postgresql://ann:p%40ss@db.local:6543/sketch?sslmode=require") else {
            Issue.record("not PostgreSQL")
            return
        }
        #expect(tcp.host == "db.local" && tcp.port == 6543 && tcp.user == "ann" && tcp.database == "sketch" && tcp.sslMode == "require")
        #expect(tcp.description == "postgres://ann@db.local:6543/sketch?sslmode=require", "no password in logs")
        let socket = try PostgresLocation(url: "postgres://ann@/sketch?host=/run/postgresql")
        #expect(socket.socketFolder == "/run/postgresql" && socket.port == 5432 && socket.sslMode == "disable")
    }

    @Test(arguments: [
        "mysql://x/y", "", "postgres://host:5432/", "postgres://host/a/b", "postgres://host/db?sslmode=maybe",
        "postgres://host/db?timeout=3", "postgres:///db", "postgres:///db?host=relative/dir",
    ])
    func aMalformedValueIsRefused(value: String) {
        #expect(throws: PersonalError.self) { try PersonalDatabase(parsing: value) }
    }

    /// A URL too malformed to parse still keeps its password out of the message (it goes to logs).
    @Test(arguments: ["postgres://ann:hunter2@127.0.0.1:notaport/sketch", "postgres://ann:hun/ter2@db:x/sketch", "postgres://ann:hunter2@"])
    func theMessageOfAMalformedURLHidesItsPassword(value: String) {
        #expect {
            try PersonalDatabase(parsing: value)
        } throws: { error in
            let message = "\(error)"
            return !message.contains("hunter2") && !message.contains("hun/ter2") && message.contains("ann:***@")
        }
    }
}
