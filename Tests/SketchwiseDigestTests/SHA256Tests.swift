import Foundation
import SketchwiseDigest
import Testing

/// SHA-256 against FIPS 180-4's examples and `sha256sum`.
@Suite struct SHA256Tests {
    @Test func knownDigests() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func piecesGiveTheDigestOfTheWhole() throws {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for cut in [0, 1, 55, 56, 63, 64, 65, 9_999] {
            var hash = SHA256()
            hash.update(message[..<cut])
            hash.update(message[cut...])
            #expect(hash.hexDigest() == SHA256.hex(message), "cut at \(cut)")
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(message).write(to: url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let expected = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
        #expect(SHA256.hex(message) == String(expected))
    }
}
