import Foundation
import NIOCore
import NIOSSL

/// Sends codes by email through a mail server, described by a URL:
/// `smtp://USER:PASSWORD@HOST:PORT?from=parley@example.com` (see ``init(url:environment:)``).
///
/// Each code takes one connection: EHLO, STARTTLS (required unless the URL says `tls=none`),
/// AUTH PLAIN or LOGIN when the URL has a user, then MAIL FROM, RCPT TO and DATA with a plain
/// UTF-8 message, and QUIT. All of it within a time limit (30 seconds unless told); any refusal
/// throws an ``SMTPError`` that names the step and the server's reply.
public struct SMTPCodeSender: CodeSender {
    let settings: SMTPSettings
    /// How long one code's whole exchange may take before its connection is closed.
    let timeout: TimeAmount
    private let tls: SMTPConnection.TLS?

    /// Reads the mail server's URL: `smtp://USER:PASSWORD@HOST:PORT?from=ADDRESS` with
    /// optional `tls=starttls` (the default) or `tls=none` (in clear; then a user is allowed
    /// only on a loopback host), and `ca=/path/ca.pem` (roots to trust besides the system's);
    /// or `smtps://…` for TLS from the first byte. Ports default to 587 and 465. User and
    /// password are percent-encoded; the password may come from `PARLEY_SMTP_PASSWORD` instead.
    /// Throws an ``SMTPError`` naming the part of the URL that is wrong. `timeout` bounds each
    /// code's whole exchange.
    public init(
        url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: TimeAmount = .seconds(30)
    ) throws {
        settings = try SMTPSettings(url: url, environment: environment)
        self.timeout = timeout
        guard settings.security != .none else {
            tls = nil
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.trustedRootsFile {
            configuration.additionalTrustRoots = [.certificates(try Self.certificates(in: file))]
        }
        tls = SMTPConnection.TLS(
            context: try NIOSSLContext(configuration: configuration), serverHostname: settings.serverHostname)
    }

    public func send(_ message: CodeMessage) async throws {
        let email = try SMTPMessage(
            from: settings.from, to: message.to, subject: message.subject, text: message.text, date: Date(),
            messageID: SMTPMessage.newMessageID(from: settings.from))
        try await SMTPConnection.withConnection(
            host: settings.host, port: settings.port, tls: settings.security == .implicitTLS ? tls : nil,
            timeout: timeout
        ) { connection in
            try await deliver(email, on: &connection)
        }
    }

    private func deliver(_ email: SMTPMessage, on connection: inout SMTPConnection) async throws {
        try await connection.readReply(step: "greeting", expecting: [220])
        var extensions = try await connection.send(
            "EHLO \(connection.clientName)", step: "EHLO", expecting: [250]
        ).extensions
        if settings.security == .startTLS, let tls {
            guard extensions["STARTTLS"] != nil else {
                throw SMTPError(
                    step: "STARTTLS",
                    message: "the server does not offer STARTTLS; to send in clear, add tls=none to the URL")
            }
            try await connection.send("STARTTLS", step: "STARTTLS", expecting: [220])
            try await connection.startTLS(tls)
            extensions = try await connection.send(
                "EHLO \(connection.clientName)", step: "EHLO after STARTTLS", expecting: [250]
            ).extensions
        }
        if let credentials = settings.credentials {
            try await logIn(credentials, mechanisms: extensions["AUTH"], on: &connection)
        }
        var parameters = extensions["8BITMIME"] == nil ? "" : " BODY=8BITMIME"
        if email.needsUTF8 {
            guard extensions["SMTPUTF8"] != nil else {
                throw SMTPError(
                    step: "MAIL FROM", message: "an address is not ASCII and the server does not offer SMTPUTF8")
            }
            parameters += " SMTPUTF8"
        }
        try await connection.send("MAIL FROM:<\(email.from)>\(parameters)", step: "MAIL FROM", expecting: [250])
        try await connection.send("RCPT TO:<\(email.to)>", step: "RCPT TO", expecting: [250, 251])
        try await connection.send("DATA", step: "DATA", expecting: [354])
        try await connection.write(ByteBuffer(string: email.data), step: "DATA")
        try await connection.readReply(step: "DATA", expecting: [250])
        // The message is the server's now: a failed goodbye changes nothing.
        _ = try? await connection.send("QUIT", step: "QUIT", expecting: [221])
    }

    /// AUTH PLAIN when the server offers it (`mechanisms`, from EHLO), else AUTH LOGIN.
    private func logIn(
        _ credentials: SMTPSettings.Credentials, mechanisms: String?, on connection: inout SMTPConnection
    ) async throws {
        let offered = Set((mechanisms ?? "").uppercased().split(separator: " "))
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if offered.contains("PLAIN") {
            let token = base64("\0\(credentials.user)\0\(credentials.password)")
            try await connection.send("AUTH PLAIN \(token)", step: "AUTH", expecting: [235])
        } else if offered.contains("LOGIN") {
            try await connection.send("AUTH LOGIN", step: "AUTH", expecting: [334])
            try await connection.send(base64(credentials.user), step: "AUTH", expecting: [334])
            try await connection.send(base64(credentials.password), step: "AUTH", expecting: [235])
        } else if let mechanisms {
            throw SMTPError(step: "AUTH", message: "the server offers AUTH \(mechanisms), but not PLAIN or LOGIN")
        } else {
            throw SMTPError(
                step: "AUTH",
                message: "the server offers no AUTH on this connection (it may allow it only after STARTTLS)")
        }
    }

    /// The certificates of a PEM file, for the `ca` parameter of the URL.
    private static func certificates(in file: String) throws -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw SMTPError.url("ca '\(file)' in the SMTP URL is not a file this process can read")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(file)
        } catch {
            throw SMTPError.url("ca '\(file)' in the SMTP URL is not a PEM file of certificates: \(error)")
        }
        guard !certificates.isEmpty else {
            throw SMTPError.url("ca '\(file)' in the SMTP URL holds no PEM certificate")
        }
        return certificates
    }
}
