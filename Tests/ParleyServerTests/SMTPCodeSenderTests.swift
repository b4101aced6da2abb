import Foundation
import NIOCore
import NIOEmbedded
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyServer

/// Codes by email: the message as it goes after DATA, the `smtp://` URL, and, when
/// `scripts/test-smtp.sh start` runs a mail server (it requires STARTTLS, then AUTH), delivery
/// to it and each way it refuses.
struct SMTPCodeSenderTests {
    static let serverURL: String? = variable("PARLEY_TEST_SMTP_URL")
    static let maildir: String? = variable("PARLEY_TEST_SMTP_MAILDIR")
    static let hasServer: Bool = serverURL != nil && maildir != nil

    /// A hang guard, not the product's 30 s: the suite starts hundreds of tests at once, and
    /// for its first half-minute a continuation can wait that long for a thread, so a whole
    /// exchange with the test mail server ran out of its 30 s in a run on a loaded machine.
    static let timeout = TimeAmount.seconds(120)

    static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: The message

    static let date = Date(timeIntervalSince1970: 1_709_629_623)  // Tue, 05 Mar 2024 09:07:03 UTC

    func message(subject: String = "Your code", text: String) throws -> SMTPMessage {
        try SMTPMessage(
            from: "parley@example.com", to: "alice@example.org", subject: subject, text: text, date: Self.date,
            messageID: "<id-1@example.com>")
    }

    @Test func theMessageHasItsHeadersThenTheTextWithCRLFLineEnds() throws {
        let data = try message(text: "Your code is 123456.\nBye").data
        #expect(
            data == "From: parley@example.com\r\nTo: alice@example.org\r\nSubject: Your code\r\n"
                + "Date: Tue, 05 Mar 2024 09:07:03 +0000\r\nMessage-ID: <id-1@example.com>\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
                + "Your code is 123456.\r\nBye\r\n.\r\n")
        #expect(!data.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(!data.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
    }

    @Test func aLineThatBeginsWithADotGetsAnotherSoItCannotEndTheData() throws {
        let data = try message(text: "first\r\n.\n..two\r.three").data
        #expect(data.hasSuffix("\r\n\r\nfirst\r\n..\r\n...two\r\n..three\r\n.\r\n"))
    }

    @Test func aSubjectThatIsNotASCIIIsEncodedWordsOfAtMost75Characters() throws {
        let subject = String(repeating: "Votre code Parley – vérifiez-le ", count: 3)
        let data = try message(subject: subject, text: "x").data
        let header = try #require(
            data.components(separatedBy: "\r\nDate:").first?.components(separatedBy: "Subject: ").last)
        let words = header.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.hasPrefix("=?utf-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        let decoded = words.map { word in
            Data(base64Encoded: String(word.dropFirst("=?utf-8?B?".count).dropLast(2))) ?? Data()
        }.reduce(Data(), +)
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func aSubjectCannotAddHeaders() throws {
        let data = try message(subject: "Hi\r\nBcc: eve@example.net", text: "x").data
        #expect(data.contains("Subject: Hi Bcc: eve@example.net\r\n"))
    }

    @Test(arguments: [
        "alice", "@example.org", "alice@", "alice@example.org\r\nRCPT TO:<eve@example.net>", "a b@c.d", "<a@b.c>",
    ])
    func aRecipientThatIsNotAnAddressIsRefusedBeforeAnyConnection(_ recipient: String) throws {
        let error = try #require(throws: SMTPError.self) {
            try SMTPMessage(
                from: "parley@example.com", to: recipient, subject: "s", text: "t", date: Self.date, messageID: "<m@x>")
        }
        #expect(error.step == "message")
    }

    // MARK: The URL

    @Test func smtpDefaultsToPort587AndRequiresSTARTTLS() throws {
        let settings = try SMTPSettings(url: "smtp://mail.example.com?from=parley@example.com", environment: [:])
        #expect(settings.host == "mail.example.com" && settings.port == 587 && settings.security == .startTLS)
        #expect(settings.credentials == nil && settings.from == "parley@example.com")
        #expect(settings.trustedRootsFile == nil && settings.serverHostname == "mail.example.com")
    }

    @Test func smtpsDefaultsToPort465WithTLSFromTheStart() throws {
        let settings = try SMTPSettings(url: "smtps://u:p@10.0.0.7?from=parley@example.com", environment: [:])
        #expect(settings.port == 465 && settings.security == .implicitTLS && settings.serverHostname == nil)
    }

    @Test func userAndPasswordArePercentDecoded() throws {
        let settings = try SMTPSettings(
            url: "smtp://me%40example.com:p%40ss%3Aw%2Frd%20!@[::1]:2525?from=parley%40example.com&tls=none",
            environment: [:])
        #expect(settings.credentials == .init(user: "me@example.com", password: "p@ss:w/rd !"))
        #expect(settings.host == "::1" && settings.port == 2525 && settings.security == .none)
        #expect(settings.from == "parley@example.com")
    }

    @Test func thePasswordMayComeFromTheEnvironment() throws {
        let url = "smtp://parley@mail.example.com?from=parley@example.com"
        let settings = try SMTPSettings(url: url, environment: ["PARLEY_SMTP_PASSWORD": "s3cret"])
        #expect(settings.credentials == .init(user: "parley", password: "s3cret"))
        let error = try #require(throws: SMTPError.self) { try SMTPSettings(url: url, environment: [:]) }
        #expect(error.step == "URL" && error.message.contains("PARLEY_SMTP_PASSWORD"))
    }

    @Test(arguments: [
        ("mail.example.com", "no scheme"),
        ("http://mail.example.com?from=a@b.c", "begins with http://"),
        ("smtp://?from=a@b.c", "no host"),
        ("smtp://mail example.com?from=a@b.c", "the host 'mail example.com'"),
        ("smtp://u:p@mail.example.com:smtp?from=a@b.c", "the port 'smtp'"),
        ("smtp://mail.example.com:70000", "the port '70000'"),
        ("smtp://u:p@mail.example.com:+25?from=a@b.c", "the port '+25'"),
        ("smtp://[::1?from=a@b.c", "IPv6"),
        ("smtp://mail.example.com/inbox?from=a@b.c", "a path"),
        ("smtp://mail.example.com", "no from parameter"),
        ("smtp://mail.example.com?from=parley", "from 'parley'"),
        ("smtp://mail.example.com?from=a@b.c&from=d@e.f", "from appears twice"),
        ("smtp://mail.example.com?from=a@b.c&port=25", "a parameter 'port'"),
        ("smtp://mail.example.com?from=a@b.c&tls=yes", "tls 'yes'"),
        ("smtp://mail.example.com?from=a@b.c&tls=", "tls of the SMTP URL has no value"),
        ("smtps://mail.example.com?from=a@b.c&tls=starttls", "smtps://"),
        ("smtp://mail.example.com?from=a@b.c&tls=none&ca=/tmp/ca.pem", "tls is none"),
        ("smtp://mail.example.com?from=a@b.c&ca=/nonexistent/ca.pem", "ca '/nonexistent/ca.pem'"),
        ("smtp://:pw@mail.example.com?from=a@b.c", "empty user"),
        ("smtp://u:@mail.example.com?from=a@b.c", "empty password"),
        ("smtp://u:p%zz@mail.example.com?from=a@b.c", "password in the SMTP URL has a '%'"),
        ("smtp://mail.example.com?from=a@b.c#top", "fragment"),
    ])
    func aMalformedURLIsRefusedWithAMessageNamingWhatIsWrong(_ url: String, _ expected: String) throws {
        let error = try #require(throws: SMTPError.self) { try SMTPCodeSender(url: url, environment: [:]) }
        #expect(error.step == "URL" && error.replyCode == nil)
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test(arguments: [
        "smtp://u:hunter2@mail.example.com:abc?from=a@b.c",
        "smtp://u:hun?ter2@mail.example.com?from=a@b.c",
        "smtp://u:hun/ter2@mail.example.com?from=a@b.c",
        "smtp://u:hun#ter2@mail.example.com?from=a@b.c",
        "smtp://u:hun:ter2@mail.example.com:x?from=a@b.c",
        "smtp://u:hun?ter2=x@mail.example.com?from=a@b.c",
        "smtp://u:hunter2@mail.example.com?from=a@b.c&tls=none",
        "u:hunter2@mail.example.com?from=a@b.c&ca=file:///ca.pem",
    ])
    func noMessageShowsThePassword(_ url: String) throws {
        let error = try #require(throws: SMTPError.self) { try SMTPCodeSender(url: url, environment: [:]) }
        #expect(!error.description.contains("hun") && !error.description.contains("ter2"), "\(error)")
    }

    @Test func inClearAUserIsAllowedOnlyOnALoopbackHost() throws {
        let error = try #require(throws: SMTPError.self) {
            try SMTPCodeSender(url: "smtp://u:p@mail.example.com?from=a@b.c&tls=none", environment: [:])
        }
        #expect(error.message.contains("in clear"))
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            _ = try SMTPCodeSender(url: "smtp://u:p@\(host):25?from=a@b.c&tls=none", environment: [:])
        }
        _ = try SMTPCodeSender(url: "smtp://mail.example.com?from=a@b.c&tls=none", environment: [:])
    }

    // MARK: Replies and STARTTLS

    @Test func replyLinesAreReadWithTheirCodeAndWhetherMoreFollow() {
        let continued = SMTPReply.Line("250-STARTTLS")
        #expect(continued?.code == 250 && continued?.text == "STARTTLS" && continued?.isLast == false)
        let last = SMTPReply.Line("535 5.7.8 No")
        #expect(last?.code == 535 && last?.text == "5.7.8 No" && last?.isLast == true)
        let bare = SMTPReply.Line("250")
        #expect(bare?.code == 250 && bare?.text == "" && bare?.isLast == true)
        for line in ["", "25", "abc def", "250+x", "700 no", "2500 x"] {
            #expect(SMTPReply.Line(line) == nil, "\(line)")
        }
        let ehlo = SMTPReply(code: 250, lines: ["mail.example.com", "8BITMIME", "auth PLAIN LOGIN", "STARTTLS"])
        #expect(ehlo.extensions == ["8BITMIME": "", "AUTH": "PLAIN LOGIN", "STARTTLS": ""])
    }

    @Test func linesAreSplitOnCRLF() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPLineDecoder()))
        try channel.writeInbound(ByteBuffer(string: "220 ready\r\n250-a\n250 "))
        try channel.writeInbound(ByteBuffer(string: "b\r\n"))
        var lines: [String] = []
        while let line = try channel.readInbound(as: ByteBuffer.self) { lines.append(String(buffer: line)) }
        #expect(lines == ["220 ready", "250-a", "250 b"])
    }

    @Test func bytesAfterTheReplyToSTARTTLSAreRefusedAsInjected() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPLineDecoder()))
        try channel.writeOutbound(ByteBuffer(string: "STARTTLS\r\n"))
        #expect(throws: SMTPLineDecoder.Failure.dataAfterReplyToSTARTTLS) {
            try channel.writeInbound(ByteBuffer(string: "220 go ahead\r\n250 AUTH PLAIN\r\n"))
        }
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    }

    // MARK: A real mail server

    /// A fresh recipient, so that a test finds its own message in the maildir.
    func recipient() -> String { "alice-\(UUID().uuidString.lowercased())@example.org" }

    func code(to recipient: String) -> CodeMessage {
        CodeMessage(
            channel: .email, to: recipient, purpose: .verifyEmail, code: String(Int.random(in: 100_000...999_999)),
            expiresAt: 0)
    }

    /// The messages the test server filed that mention `text`.
    func filed(containing text: String) throws -> [String] {
        let directory = try #require(Self.maildir)
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.compactMap {
            let content = try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
            return content.contains(text) ? content : nil
        }
    }

    /// The test server's URL with `change` made to it.
    func serverURL(_ change: (inout URLComponents) -> Void) throws -> String {
        let url = try #require(Self.serverURL)
        var components = try #require(URLComponents(string: url))
        change(&components)
        return try #require(components.string)
    }

    /// A mail server that accepts the connection and never answers fails the code at the
    /// sender's time limit, naming the step it waited on.
    @Test func aServerThatNeverAnswersFailsAtTheTimeLimit() async throws {
        let silent = try await SilentServer()
        let sender = try SMTPCodeSender(
            url: "smtp://127.0.0.1:\(silent.port)?from=parley@localhost&tls=none", environment: [:],
            timeout: .seconds(1))
        let error = try await #require(throws: SMTPError.self) { try await sender.send(code(to: recipient())) }
        #expect(error.step == "greeting" && error.message == "no answer within 1 s", "\(error)")
        await silent.stop()
    }

    @Test(.enabled(if: hasServer, "needs a mail server: set PARLEY_TEST_SMTP_URL and PARLEY_TEST_SMTP_MAILDIR"))
    func aCodeIsDeliveredOverSTARTTLSWithAUTH() async throws {
        let to = recipient()
        let message = code(to: to)
        try await SMTPCodeSender(url: try #require(Self.serverURL), timeout: Self.timeout).send(message)
        let filed = try #require(try filed(containing: to).first)
        #expect(filed.contains("RCPT TO: \(to)\n") && filed.contains("MAIL FROM: parley@localhost\n"))
        #expect(filed.contains("Subject: \(message.subject)\r\n") && filed.contains(message.code))
        #expect(filed.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"))
    }

    @Test(.enabled(if: hasServer, "needs a mail server: set PARLEY_TEST_SMTP_URL and PARLEY_TEST_SMTP_MAILDIR"))
    func aWrongPasswordFailsAtAUTHWith535() async throws {
        let url = try serverURL { $0.password = "wrong-password" }
        let to = recipient()
        let error = try await #require(throws: SMTPError.self) {
            try await SMTPCodeSender(url: url, timeout: Self.timeout).send(code(to: to))
        }
        #expect(error.step == "AUTH" && error.replyCode == 535, "\(error)")
        #expect(error.description.contains("AUTH") && error.description.contains("535"))
        #expect(!error.description.contains("wrong-password"))
        #expect(try filed(containing: to).isEmpty)
    }

    @Test(.enabled(if: hasServer, "needs a mail server: set PARLEY_TEST_SMTP_URL and PARLEY_TEST_SMTP_MAILDIR"))
    func inClearTheServerOffersNoAUTHSoNothingIsSent() async throws {
        let url = try serverURL {
            $0.queryItems =
                ($0.queryItems ?? []).filter { $0.name != "ca" } + [URLQueryItem(name: "tls", value: "none")]
        }
        let to = recipient()
        let error = try await #require(throws: SMTPError.self) {
            try await SMTPCodeSender(url: url, timeout: Self.timeout).send(code(to: to))
        }
        #expect(error.step == "AUTH", "\(error)")
        #expect(try filed(containing: to).isEmpty)
    }

    @Test(.enabled(if: hasServer, "needs a mail server: set PARLEY_TEST_SMTP_URL and PARLEY_TEST_SMTP_MAILDIR"))
    func anUntrustedCertificateFailsTheTLSHandshake() async throws {
        let url = try serverURL { $0.queryItems = ($0.queryItems ?? []).filter { $0.name != "ca" } }
        let to = recipient()
        let error = try await #require(throws: SMTPError.self) {
            try await SMTPCodeSender(url: url, timeout: Self.timeout).send(code(to: to))
        }
        #expect(error.step == "TLS" && error.message.contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
        #expect(try filed(containing: to).isEmpty)
    }
}
