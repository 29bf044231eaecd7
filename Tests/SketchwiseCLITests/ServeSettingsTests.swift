import Testing

@testable import sketchwise

/// A settings file's values are read as systemd reads an `EnvironmentFile=`.
@Suite struct ServeSettingsTests {
    @Test(arguments: [
        (#"8080"#, "8080"),
        (#"  8080  "#, "8080"),
        (#""8080""#, "8080"),
        (#"'/var/lib/sketch wise'"#, "/var/lib/sketch wise"),
        (#"'a\"b'"#, #"a\"b"#),
        (#""say \"hi\" \\ \` \$""#, #"say "hi" \ ` $"#),
        (#""postgres://u:p\w@h/db""#, #"postgres://u:p\w@h/db"#),
        (#"postgres://u:p\w@h/db"#, "postgres://u:pw@h/db"),
        (#"a b  "#, "a b"),
        (#"a\ "#, "a "),
        (#""a" 'b'"#, "ab"),
        (#"a"b""#, #"a"b""#),
    ])
    func aValueIsReadAsSystemdReadsIt(written: String, read: String) {
        #expect(ServeSettings.unquoted(written[...]) == read)
    }
}
