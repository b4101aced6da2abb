import Crypto
import Foundation
import ParleyCore

/// `parley bench upload`: uploads of distinct files (1 MiB and 100 MiB by default) through the real
/// protocol (declare by hash, chunks one after another, complete), then the same bytes
/// declared again by a second user (instant send). Reports MiB/s per size, each file's
/// time, and the server's CPU per MiB.
enum UploadBench {
    static func run(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        var report = BenchReport(scenario: "upload")
        let accounts = try await client.createUsers(2, role: "u")
        let (uploader, second) = (accounts[0], accounts[1])
        let started = ContinuousClock.now
        var totalBytes = 0
        let sizes = options.fileSizesMiB.map { (mebibytes: $0, files: $0 < 100 ? 20 : 3) }
        for (mebibytes, count) in sizes {
            let recorder = LatencyRecorder()
            var bytes = 0
            let cpuBefore = server?.cpuSeconds
            let began = ContinuousClock.now
            var declarations: [StartUploadRequest] = []
            for index in 0..<count {
                let content = Self.content(mebibytes << 20, seed: UInt64(mebibytes * 1_000 + index))
                // Hashed before the clock starts: what is measured is the server's part.
                let declaration = Self.declaration(of: content)
                let fileStarted = ContinuousClock.now
                try await upload(content, declared: declaration, as: uploader, client)
                declarations.append(declaration)
                recorder.record(microseconds: (ContinuousClock.now - fileStarted).microseconds)
                bytes += content.count
            }
            let seconds = (ContinuousClock.now - began).seconds
            report.figures["\(mebibytes) MiB: MiB/s"] = Double(bytes) / 1_048_576 / max(seconds, 0.001)
            for (percentile, value) in recorder.percentilesMs where percentile == "p50" || percentile == "p99" {
                report.figures["\(mebibytes) MiB: \(percentile) per file (ms)"] = value
            }
            if let cpuBefore, let cpuAfter = server?.cpuSeconds {
                report.figures["\(mebibytes) MiB: server CPU per MiB (ms)"] =
                    (cpuAfter - cpuBefore) * 1000 / (Double(bytes) / 1_048_576)
            }
            // The same bytes from someone else: found by hash, nothing sent.
            let instant = LatencyRecorder()
            for declaration in declarations {
                let instantStarted = ContinuousClock.now
                let answer: StartUploadResponse = try await client.api.call(
                    .startUpload, body: declaration, token: second.token)
                guard answer.file != nil else {
                    throw ParleyError(.internalError, "The server did not find a file it holds by its hash.")
                }
                instant.record(microseconds: (ContinuousClock.now - instantStarted).microseconds)
            }
            report.figures["\(mebibytes) MiB: instant send p50 (ms)"] = instant.percentilesMs["p50"] ?? 0
            totalBytes += bytes
        }
        report.parameters["files"] = sizes.map { "\($0.files) × \($0.mebibytes) MiB" }.joined(separator: ", ")
        report.parameters["chunks"] = "one after another, as the SDK sends them"
        report.sent = sizes.reduce(0) { $0 + $1.files }
        report.durationSeconds = (ContinuousClock.now - started).seconds
        report.throughput = Double(totalBytes) / 1_048_576 / max(report.durationSeconds, 0.001)
        return report
    }

    /// What a client declares for `content`.
    static func declaration(of content: [UInt8]) -> StartUploadRequest {
        StartUploadRequest(
            sha256: SHA256.hash(data: content).hexEncoded, size: Int64(content.count),
            mimeType: "application/octet-stream", name: "bench.bin")
    }

    /// Uploads `content` whole, chunk after chunk.
    static func upload(
        _ content: [UInt8], declared declaration: StartUploadRequest, as account: BenchAccount, _ client: BenchClient
    ) async throws {
        let answer: StartUploadResponse = try await client.api.call(
            .startUpload, body: declaration, token: account.token)
        guard let upload = answer.upload else { return }
        for offset in stride(from: 0, to: content.count, by: Int(upload.chunkSize)) {
            let end = min(offset + Int(upload.chunkSize), content.count)
            _ = try await client.api.transfer(
                .putChunk, [upload.uploadId, offset], body: Data(content[offset..<end]), token: account.token)
        }
        let _: FileInfo = try await client.api.call(.completeUpload, [upload.uploadId], token: account.token)
    }

    /// `count` pseudo-random bytes from `seed` (xorshift), distinct per seed.
    static func content(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return bytes
    }
}
