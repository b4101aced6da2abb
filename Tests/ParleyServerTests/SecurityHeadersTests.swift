import Foundation
import HTTPTypes
import ParleyCore
import Testing

/// Security headers on every answer, errors included, and CORS closed unless an origin is
/// allowed.
@Suite struct SecurityHeadersTests {
    static let origin = HTTPField.Name("Origin")!
    static let requestMethod = HTTPField.Name("Access-Control-Request-Method")!
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!

    static func expectSecurityHeaders(_ headers: HTTPFields, _ what: String) {
        #expect(headers[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what)")
        #expect(headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(what)")
        #expect(headers[.contentSecurityPolicy] != nil, "\(what)")
        #expect(headers[.strictTransportSecurity] == nil, "no HSTS without TLS: \(what)")
    }

    @Test func everyAnswerCarriesTheSecurityHeadersAndCORSIsClosedByDefault() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let answers: [(String, HTTPFields)] = [
                ("health", try await api.raw(.get, "/health").headers),
                ("me", try await api.raw(.get, "/v1/me", token: alice.token).headers),
                ("unauthenticated", try await api.raw(.get, "/v1/me").headers),
                ("unknown path", try await api.raw(.get, "/v1/nothing-here").headers),
                ("wrong method", try await api.raw(.put, "/v1/me", token: alice.token).headers),
                ("bad JSON", try await api.raw(.post, "/v1/sessions", body: "{").headers),
            ]
            for (what, headers) in answers {
                Self.expectSecurityHeaders(headers, what)
                #expect(headers[.contentSecurityPolicy] == "default-src 'none'; frame-ancestors 'none'", "\(what)")
            }
            let file = try await api.upload(testPNG(100), as: alice)
            let download = try await api.bytes(.get, "/v1/files/\(file.fileId)", token: alice.token)
            Self.expectSecurityHeaders(download.headers, "download")
            #expect(download.headers[.contentSecurityPolicy]?.contains("sandbox") == true, "the file's own policy")

            let fromPage = try await api.bytes(
                .get, "/v1/me", headers: [Self.origin: "https://evil.example"], token: alice.token)
            #expect(fromPage.status == 200 && fromPage.headers[Self.allowOrigin] == nil)
            let preflight = try await api.bytes(
                .options, "/v1/me", headers: [Self.origin: "https://evil.example", Self.requestMethod: "GET"])
            #expect(preflight.headers[Self.allowOrigin] == nil && preflight.status != 204)
        }
    }

    @Test func anAllowedOriginGetsPreflightAndCORSHeadersAndOthersDoNot() async throws {
        try await withServer(configure: { $0.corsOrigins = ["https://chat.example.com"] }) { api in
            let alice = try await api.signUp("alice")
            let preflight = try await api.bytes(
                .options, "/v1/messages",
                headers: [
                    Self.origin: "https://chat.example.com", Self.requestMethod: "POST",
                    HTTPField.Name("Access-Control-Request-Headers")!: "authorization, content-type",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headers[Self.allowOrigin] == "https://chat.example.com")
            #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Methods")!]?.contains("POST") == true)
            #expect(
                preflight.headers[HTTPField.Name("Access-Control-Allow-Headers")!]?.contains("Authorization") == true)
            #expect(preflight.headers[.vary] == "Origin")

            let allowed = try await api.bytes(
                .get, "/v1/me", headers: [Self.origin: "https://chat.example.com"], token: alice.token)
            #expect(allowed.status == 200 && allowed.headers[Self.allowOrigin] == "https://chat.example.com")
            #expect(allowed.headers[HTTPField.Name("Access-Control-Expose-Headers")!]?.contains("Retry-After") == true)
            let refused = try await api.bytes(
                .get, "/v1/me", headers: [Self.origin: "https://chat.example.com.evil.example"], token: alice.token)
            #expect(refused.headers[Self.allowOrigin] == nil && refused.headers[.vary] == "Origin")
            let error = try await api.bytes(.get, "/v1/me", headers: [Self.origin: "https://chat.example.com"])
            #expect(error.status == 401 && error.headers[Self.allowOrigin] == "https://chat.example.com")
        }
    }
}
