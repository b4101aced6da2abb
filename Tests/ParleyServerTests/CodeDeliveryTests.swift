import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ParleyCore
import ParleyServer
import Synchronization
import Testing

/// The configured senders end to end: a server whose `--email-codes` is a real mail server
/// (with STARTTLS and AUTH) delivers a reset code a user then uses, and one whose
/// `--phone-codes` is a webhook posts the code signed with the shared secret.
@Suite struct CodeDeliveryTests {
    /// The newest message in the test mail server's folder for `address`, waiting for it.
    static func mail(to address: String, in folder: String) async throws -> String {
        for _ in 0..<100 {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for file in files {
                let text = (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? ""
                if text.contains("RCPT TO: \(address)") { return text }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw APIFailure(status: 0, error: ParleyError(.notFound, "No mail to \(address)."))
    }

    static func code(in text: String) -> String? {
        guard let range = text.range(of: #"code is [0-9]{6}"#, options: .regularExpression) else { return nil }
        return String(text[range].suffix(6))
    }

    @Test(
        .enabled(
            if: SMTPCodeSenderTests.hasServer,
            "needs a mail server: set PARLEY_TEST_SMTP_URL and PARLEY_TEST_SMTP_MAILDIR"))
    func aResetCodeGoesThroughTheMailServerAndWorks() async throws {
        let url = try #require(SMTPCodeSenderTests.serverURL)
        let folder = try #require(SMTPCodeSenderTests.maildir)
        let address = "dana-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        try await withServer(configure: { $0.emailCodes = url }) { api in
            let _: Account = try await api.call(
                .post, "/v1/accounts", RegisterRequest(username: "dana", password: "Passw0rd!", email: address))
            let started = try await TwoFactorTests.post(api, "/v1/password-reset", PasswordResetRequest(login: "dana"))
            #expect(started.status == 202)
            let mail = try await Self.mail(to: address, in: folder)
            #expect(mail.contains("Subject: Your Parley password reset code"))
            let code = try #require(Self.code(in: mail))
            let reset = try await TwoFactorTests.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: address, code: code, newPassword: "N3w-Secret!"))
            #expect(reset.status == 204)
            _ = try await api.logIn("dana", password: "N3w-Secret!")
        }
    }

    @Test func aWebhookReceivesTheCodeSignedWithTheSharedSecret() async throws {
        let received = Mutex<[(headers: HTTPFields, body: String)]>([])
        let router = Router()
        router.post("codes") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 64 * 1024))
            received.withLock { $0.append((request.headers, body)) }
            return Response(status: .noContent)
        }
        router.post("broken") { _, _ -> Response in Response(status: .badGateway) }
        let gateway = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await gateway.test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)"
            // Through the server: a reset code for an account with only a phone.
            try await withServer(configure: { $0.phoneCodes = base + "/codes" }) { api in
                let _: Account = try await api.call(
                    .post, "/v1/accounts",
                    RegisterRequest(username: "erin", password: "Passw0rd!", phone: "+8613800000009"))
                #expect(
                    try await TwoFactorTests.post(
                        api, "/v1/password-reset", PasswordResetRequest(login: "+8613800000009")
                    )
                    .status == 202)
                let (_, body) = try #require(received.withLock { $0.first })
                let code = try #require(Self.code(in: body))
                let reset = try await TwoFactorTests.post(
                    api, "/v1/password-reset/confirm",
                    PasswordResetConfirmRequest(login: "erin", code: code, newPassword: "N3w-Secret!"))
                #expect(reset.status == 204)
            }
            received.withLock { $0 = [] }

            // Signed with a secret.
            let sender = try WebhookCodeSender(url: base + "/codes", secret: "s3cret")
            try await sender.send(
                CodeMessage(channel: .phone, to: "+8613800000001", purpose: .verifyPhone, code: "123456", expiresAt: 7))
            let (headers, body) = try #require(received.withLock { $0.first })
            let payload = try JSONDecoder().decode([String: JSONValue].self, from: Data(body.utf8))
            #expect(payload["code"] == .string("123456") && payload["to"] == .string("+8613800000001"))
            #expect(payload["channel"] == .string("phone") && payload["purpose"] == .string("verify_phone"))
            let timestamp = try #require(headers[HTTPField.Name("X-Parley-Timestamp")!])
            #expect(
                headers[HTTPField.Name("X-Parley-Signature")!]
                    == "sha256=" + WebhookCodeSender.signature(of: Data(body.utf8), at: timestamp, secret: "s3cret"))

            let broken = try WebhookCodeSender(url: base + "/broken", secret: nil)
            await #expect(throws: CodeDeliveryError.self) {
                try await broken.send(
                    CodeMessage(channel: .phone, to: "+1", purpose: .verifyPhone, code: "1", expiresAt: 7))
            }
        }
        #expect(throws: CodeSenderConfigurationError.self) {
            try WebhookCodeSender(url: "http://example.com/x", secret: nil)
        }
    }

    @Test func aSenderThatCannotBeMadeStopsTheServerFromStarting() async throws {
        for (email, phone) in [("smtp://host", "log"), ("log", "smtp://user@host:25?from=a@b.c"), ("ftp://x", "log")] {
            await #expect(throws: (any Error).self, "\(email) \(phone)") {
                try await withServer(configure: {
                    $0.emailCodes = email
                    $0.phoneCodes = phone
                }) { _ in }
            }
        }
    }
}
