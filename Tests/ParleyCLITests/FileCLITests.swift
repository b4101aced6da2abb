import Foundation
import ParleyTesting
import Testing

/// `parley send-file` and `parley download`.
extension CLITests {
    @Test func sendFileUploadsOnceAndDownloadGetsTheSameBytes() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        let folder = temporaryDirectory("parley-cli-files")
        // A 640×480 PNG header, then 5 MiB of pseudo-random bytes: two chunks of 4 MiB.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0]
        // Made a word at a time: a byte at a time takes seconds in a debug build.
        var noise = [UInt8](repeating: 0, count: 5 << 20)
        var state: UInt64 = 7
        noise.withUnsafeMutableBytes { raw in
            for index in raw.bindMemory(to: UInt64.self).indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                raw.storeBytes(of: state, toByteOffset: index * 8, as: UInt64.self)
            }
        }
        png += noise
        let photo = folder + "/photo.png"
        try Data(png).write(to: URL(fileURLWithPath: photo))
        let report = folder + "/report.pdf"
        try Data("%PDF-1.4 quarterly figures".utf8).write(to: URL(fileURLWithPath: report))

        let sent = try await alice.run(["send-file", "bob", photo])
        #expect(sent.status == 0 && sent.output.contains("Sent image to @bob (#1)."), "\(sent)")
        #expect(sent.errors.contains("100%"), "a progress bar: \(sent.errors)")
        #expect(try await alice.succeed(["send-file", "bob", report]).contains("Sent file to @bob (#2)."))
        let history = try await bob.succeed(["history", "alice"])
        #expect(history.contains("[image 640×480]") && history.contains("[file report.pdf, 26 bytes]"), "\(history)")

        // Bob sends the same photo: found by its hash, nothing is uploaded again.
        let again = try await bob.run(["send-file", "alice", photo])
        #expect(again.status == 0 && again.output.contains("Sent image"), "\(again)")

        let saved = folder + "/saved.png"
        let got = try await bob.run(["download", "alice", "1", saved])
        #expect(got.status == 0 && got.output.contains("Saved \(png.count) bytes"), "\(got)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: saved)) == Data(png))
        let named = try await bob.succeed(["download", "alice", "2", folder + "/copy.pdf"])
        #expect(named.contains("Saved 26 bytes"))

        let missing = try await alice.run(["send-file", "bob", folder + "/nothing-here"])
        #expect(missing.status != 0 && missing.errors.contains("Cannot read"), "\(missing)")
        let noSize = try await alice.run(["send-file", "bob", report, "--kind", "image"])
        #expect(noSize.status != 0 && noSize.errors.contains("needs --width and --height"), "\(noSize)")
        let badKind = try await alice.run([
            "send-file", "bob", report, "--kind", "image", "--width", "9", "--height", "9",
        ])
        #expect(badKind.status != 0 && badKind.errors.contains("cannot be sent as an image"), "\(badKind)")
        let voice = try await alice.run(["send-file", "bob", report, "--kind", "voice", "--duration-ms", "1000"])
        #expect(voice.status != 0 && voice.errors.contains("cannot be sent as a voice"), "\(voice)")
        let text = try await bob.run(["download", "alice", "99"])
        #expect(text.status != 0 && text.errors.contains("no message #99"), "\(text)")
        await server.stop()
    }
}
