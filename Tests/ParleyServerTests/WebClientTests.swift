import Foundation
import HTTPTypes
import Testing

/// The browser client's files as the server serves them: the page at `/`, every module it
/// imports under `/web/`, a strict Content-Security-Policy on each, and cheap reloads.
/// What the client does in a browser is tested in Chromium (Tests/Browser).
@Suite struct WebClientTests {
    @Test func thePageAndEveryModuleItImportsAreServedWithAStrictPolicy() async throws {
        try await withServer { api in
            let page = try await api.raw(.get, "/")
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.body.contains(#"<script type="module" src="/web/js/main.js"></script>"#))
            let policy = try #require(page.headers[.contentSecurityPolicy])
            for rule in [
                "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
            ] {
                #expect(policy.contains(rule), "\(rule) in \(policy)")
            }
            #expect(!policy.contains("unsafe"), "no inline script or style, no eval: \(policy)")
            SecurityHeadersTests.expectSecurityHeaders(page.headers, "the page")

            // Follow the module graph from the page: every import must be served, as JavaScript.
            var pending = ["/web/js/main.js", "/web/style.css", "/web/icon.svg"]
            var served: Set<String> = []
            while let path = pending.popLast() {
                guard served.insert(path).inserted else { continue }
                let file = try await api.raw(.get, path)
                #expect(file.status == 200, "\(path)")
                #expect(file.headers[.contentSecurityPolicy] == policy, "\(path)")
                guard path.hasSuffix(".js") else { continue }
                #expect(file.headers[.contentType] == "text/javascript; charset=utf-8", "\(path)")
                let directory = path.split(separator: "/").dropLast().joined(separator: "/")
                for match in file.body.matches(of: /from '\.\/([a-z]+\.js)'/) {
                    pending.append("/\(directory)/\(match.output.1)")
                }
            }
            #expect(served.count >= 10, "the client's modules: \(served.sorted())")
        }
    }

    @Test func anUnchangedFileIsAnswered304AndUnknownPathsAre404() async throws {
        try await withServer { api in
            let first = try await api.raw(.get, "/web/js/client.js")
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl] == "no-cache", "asked again each load, so an upgrade is picked up")
            let again = try await api.bytes(.get, "/web/js/client.js", headers: [.ifNoneMatch: tag])
            #expect(again.status == 304 && again.body.readableBytes == 0)
            let changed = try await api.bytes(.get, "/web/js/client.js", headers: [.ifNoneMatch: "\"other\""])
            #expect(changed.status == 200)
            for path in [
                "/web/nothing.js", "/web/../Package.swift", "/web/%2e%2e/Package.swift", "/web/js/", "/index.html",
            ] {
                let answer = try await api.raw(.get, path)
                #expect(answer.status == 404, "\(path)")
            }
        }
    }
}
