import Foundation
import Logging
import PostgresNIO
import SketchwisePersonal

/// The personal database a `--database` value names: a file path (SQLite, one server) or a
/// `postgres://` URL (PostgreSQL, shared by replicas).
public enum PersonalDatabase: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (made if missing).
    case sqlite(path: String)
    /// A database on a PostgreSQL server.
    case postgres(PostgresLocation)

    /// The environment variable that gives `--database` when the option is not passed.
    public static let environmentVariable = "SKETCHWISE_DATABASE"

    /// Reads a `--database` value: `postgres://` or `postgresql://` URLs are PostgreSQL, anything
    /// else a SQLite file path.
    /// - Throws: ``PersonalError`` (`.invalid`) for a malformed URL.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(try PostgresLocation(url: text))
        } else if lowered.contains("://") {
            let shown = PostgresLocation.redacted(text)
            throw PersonalError(.invalid, "--database must be a file path (SQLite) or a postgres:// URL, not \(shown)")
        } else if text.isEmpty {
            throw PersonalError(.invalid, "--database must not be empty")
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The value given, or `$SKETCHWISE_DATABASE`, or `fallback` (a path).
    public static func resolve(_ given: String?, fallback: String) throws -> PersonalDatabase {
        try PersonalDatabase(parsing: given ?? ProcessInfo.processInfo.environment[environmentVariable] ?? fallback)
    }

    /// For logs: the path, or the URL without its password.
    public var description: String {
        switch self {
        case let .sqlite(path): path
        case let .postgres(location): location.description
        }
    }

    /// Opens the store (migrating its schema), runs `body` with it, then closes it: for
    /// PostgreSQL the connection pool runs in a child task for as long as `body` does and is shut
    /// down after, whether `body` returns or throws.
    /// - Throws: ``PersonalError`` (`.invalid`) when the database cannot be opened or reached,
    ///   or whatever `body` throws.
    public func withStore<T>(logger: Logger, _ body: (any PersonalStore) async throws -> T) async throws -> T {
        switch self {
        case let .sqlite(path):
            return try await body(try SQLitePersonalStore(path: path))
        case let .postgres(location):
            let client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let store = try await location.open(client, logger: logger)
                return try await body(store)
            }
        }
    }
}

/// Where a PostgreSQL database is: parsed from
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&host=/socket/dir]`
/// (libpq's form; `host=` a folder uses the server's unix socket there).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let user: String
    let password: String?
    public let database: String
    /// The folder of the server's unix socket (`.s.PGSQL.PORT`), instead of TCP.
    public let socketFolder: String?
    public let sslMode: String
    /// How long a connection may take before the server counts as unreachable.
    public var connectTimeout: Duration = .seconds(10)

    /// - Throws: ``PersonalError`` (`.invalid`) for a malformed URL or an unknown option.
    public init(url text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["postgres", "postgresql"].contains(scheme)
        else {
            throw PersonalError(
                .invalid, "not a PostgreSQL URL: \(Self.redacted(text)) (expected postgres://USER:PASSWORD@HOST:PORT/DATABASE)")
        }
        var options: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["sslmode", "host"].contains(item.name), let value = item.value, !value.isEmpty else {
                throw PersonalError(.invalid, "unknown or empty option \(item.name) in the database URL (known: sslmode, host)")
            }
            options[item.name] = value
        }
        socketFolder = options["host"]
        if let socketFolder, !socketFolder.hasPrefix("/") {
            throw PersonalError(.invalid, "host= in the database URL must be the folder of a unix socket (an absolute path)")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        guard components.host?.isEmpty == false || socketFolder != nil else {
            throw PersonalError(.invalid, "the database URL names no host: \(Self.redacted(text))")
        }
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw PersonalError(.invalid, "the database URL's port must be within 1…65535") }
        user = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw PersonalError(.invalid, "the database URL must name one database: postgres://USER@HOST:PORT/DATABASE")
        }
        database = path.removingPercentEncoding ?? path
        sslMode = options["sslmode"] ?? (socketFolder == nil ? "prefer" : "disable")
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw PersonalError(.invalid, "sslmode must be disable, prefer or require, not \(sslMode)")
        }
    }

    /// The URL without its password.
    public var description: String {
        let socket = socketFolder.map { "&host=\($0)" } ?? ""
        return "postgres://\(user)@\(socketFolder == nil ? host : ""):\(port)/\(database)?sslmode=\(sslMode)\(socket)"
    }

    var configuration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = .init(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    /// The store on a running client. One connection is tried first, so that a server that is
    /// down, a wrong password or a missing database is said at once (the pool would keep trying).
    func open(_ client: PostgresClient, logger: Logger) async throws -> PostgresPersonalStore {
        do {
            let probe = try await PostgresConnection.connect(configuration: try connectionConfiguration, id: 0, logger: logger)
            try await probe.close()
            return try await PostgresPersonalStore(client: client, logger: logger)
        } catch let error as PSQLError {
            throw PersonalError(.invalid, "cannot open PostgreSQL at \(self): \(Self.explain(error))")
        }
    }

    /// The configuration of the one connection that ``open(_:logger:)`` tries first.
    private var connectionConfiguration: PostgresConnection.Configuration {
        get throws {
            var configuration: PostgresConnection.Configuration
            if let socketFolder {
                configuration = .init(
                    unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            } else {
                let tls: PostgresConnection.Configuration.TLS =
                    switch sslMode {
                    case "disable": .disable
                    case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                    default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                    }
                configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
            }
            configuration.options.connectTimeout = .nanoseconds(
                Int64(connectTimeout.components.seconds) * 1_000_000_000
                    + connectTimeout.components.attoseconds / 1_000_000_000)
            return configuration
        }
    }

    /// What went wrong, without the query or the password: the server's message or the
    /// connection's error.
    static func explain(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    /// A URL with its password replaced by `***`; in one too malformed to parse (a port that is not
    /// a number), whatever lies between the user's colon and the last `@`.
    static func redacted(_ text: String) -> String {
        if var components = URLComponents(string: text) {
            guard components.password != nil else { return text }
            components.password = "***"
            return components.string ?? text
        }
        guard let start = text.range(of: "://")?.upperBound, let at = text.lastIndex(of: "@"),
            let colon = text[start..<at].firstIndex(of: ":")
        else { return text }
        return text.replacingCharacters(in: text.index(after: colon)..<at, with: "***")
    }
}
