import Foundation
import NIOCore

/// What an `smtp://` URL says: the mail server, how the connection is secured, whom to log in
/// as, and the sender's address.
///
/// `smtp://USER:PASSWORD@HOST:PORT?from=ADDRESS&tls=starttls|none&ca=/path/ca.pem`, or
/// `smtps://…` for TLS from the first byte. The port defaults to 587 (smtp) or 465 (smtps);
/// smtp requires STARTTLS unless `tls=none`, which sends in clear and then logs in only to a
/// loopback host. User and password are percent-encoded; the password may come from
/// `PARLEY_SMTP_PASSWORD` instead. `ca` names a PEM file of roots to trust besides the system's.
struct SMTPSettings: Sendable, Equatable {
    enum Security: Sendable, Equatable {
        /// Plain TCP, then STARTTLS before anything else; fails when the server does not offer it.
        case startTLS
        /// TLS from the first byte (smtps).
        case implicitTLS
        /// Plain TCP throughout.
        case none
    }

    struct Credentials: Sendable, Equatable {
        let user: String
        let password: String
    }

    static let passwordVariable = "PARLEY_SMTP_PASSWORD"

    let host: String
    let port: Int
    let security: Security
    let credentials: Credentials?
    let from: String
    /// A PEM file of roots to trust besides the system's.
    let trustedRootsFile: String?

    /// Reads `url`, and the password from `environment` when the URL has a user but no password.
    /// Throws an ``SMTPError`` whose message names the part of the URL that is wrong.
    init(url: String, environment: [String: String]) throws {
        let expected = "expected smtp://USER:PASSWORD@HOST:PORT?from=ADDRESS, or smtps://"
        guard let schemeEnd = url.range(of: "://"), url[..<schemeEnd.lowerBound].allSatisfy(Self.isSchemeCharacter)
        else {
            throw SMTPError.url("the SMTP URL has no scheme; \(expected)")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let (defaultSecurity, defaultPort): (Security, Int)
        switch scheme {
        case "smtp": (defaultSecurity, defaultPort) = (.startTLS, 587)
        case "smtps": (defaultSecurity, defaultPort) = (.implicitTLS, 465)
        default: throw SMTPError.url("the SMTP URL begins with \(scheme)://; \(expected)")
        }
        var rest = url[schemeEnd.upperBound...]
        let quote = Quote(url: url, afterScheme: rest.startIndex)
        guard !rest.contains("#") else {
            throw SMTPError.url("the SMTP URL has a fragment (#), or a '#' that is not percent-encoded (%23)")
        }
        var query: Substring = ""
        if let questionMark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: questionMark)...]
            rest = rest[..<questionMark]
        }
        var authority = rest
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...] == "/" else {
                throw SMTPError.url("the SMTP URL has a path after the host; \(expected)")
            }
            authority = rest[..<slash]
        }
        var userInfo: Substring?
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
        }
        (host, port) = try Self.hostAndPort(authority, defaultPort: defaultPort, quote: quote)
        let parameters = try Self.parameters(query, quote: quote)
        guard let from = parameters["from"] else {
            throw SMTPError.url("the SMTP URL has no from parameter, the sender's address: ?from=parley@example.com")
        }
        guard SMTPMessage.isAddress(from.value) else {
            throw SMTPError.url("\(quote("from", from.raw)) in the SMTP URL is not an email address")
        }
        self.from = from.value
        switch (scheme, parameters["tls"]) {
        case (_, nil): security = defaultSecurity
        case ("smtp", let tls?) where tls.value == "starttls": security = .startTLS
        case ("smtp", let tls?) where tls.value == "none": security = .none
        case ("smtp", let tls?):
            throw SMTPError.url("\(quote("tls", tls.raw)) in the SMTP URL must be starttls or none")
        default:
            throw SMTPError.url(
                "tls does not apply to smtps://, always TLS from the first byte; use smtp:// for starttls or none")
        }
        trustedRootsFile = parameters["ca"]?.value
        guard trustedRootsFile == nil || security != .none else {
            throw SMTPError.url("ca in the SMTP URL names certificates for TLS, but tls is none")
        }
        credentials = try userInfo.map { try Self.credentials($0, environment: environment) }
        guard credentials == nil || security != .none || isLoopback else {
            throw SMTPError.url(
                "with tls=none the password would cross the network in clear to a host that is not this machine; "
                    + "use STARTTLS (leave tls out), smtps://, or a loopback host")
        }
    }

    /// The name to check the server's certificate against: the host, unless it is an IP address.
    var serverHostname: String? { Self.isIPAddress(host) ? nil : host }

    /// Whether the host is this machine: `localhost`, `127.x.x.x` or `::1`.
    var isLoopback: Bool {
        host == "localhost" || (Self.isIPAddress(host) && (host.hasPrefix("127.") || host == "::1"))
    }

    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    private static let hostNameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-._")

    /// `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`.
    private static func hostAndPort(_ authority: Substring, defaultPort: Int, quote: Quote) throws
        -> (host: String, port: Int)
    {
        var host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw SMTPError.url("the host of the SMTP URL opens '[' for an IPv6 address but does not close it")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw SMTPError.url(
                    "the SMTP URL has \(quote("something", after)) after its IPv6 address, where a port (:PORT) goes")
            }
            port = after.isEmpty ? nil : after.dropFirst()
            guard isIPAddress(String(host)), host.contains(":") else {
                throw SMTPError.url("the host \(quote("in brackets", host)) in the SMTP URL is not an IPv6 address")
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            port = parts.count > 1 ? parts[1] : nil
            guard !host.isEmpty else { throw SMTPError.url("the SMTP URL names no host") }
            guard host.lowercased().allSatisfy(hostNameCharacters.contains) else {
                throw SMTPError.url("\(quote("the host", host)) in the SMTP URL is not a host name or an IP address")
            }
        }
        guard let port else { return (host.lowercased(), defaultPort) }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number)
        else {
            throw SMTPError.url("\(quote("the port", port)) in the SMTP URL is not a number from 1 to 65535")
        }
        return (host.lowercased(), number)
    }

    /// The parameters after `?`: `from`, `tls` and `ca`, each once, percent-decoded and as written.
    private static func parameters(_ query: Substring, quote: Quote) throws
        -> [String: (value: String, raw: Substring)]
    {
        var parameters: [String: (value: String, raw: Substring)] = [:]
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].lowercased()
            guard ["from", "tls", "ca"].contains(name) else {
                throw SMTPError.url(
                    "\(quote("a parameter", parts[0])) in the SMTP URL is unknown; the parameters are from, tls and ca")
            }
            guard parameters[name] == nil else {
                throw SMTPError.url("the parameter \(name) appears twice in the SMTP URL")
            }
            guard parts.count > 1, !parts[1].isEmpty else {
                throw SMTPError.url("the parameter \(name) of the SMTP URL has no value")
            }
            guard let value = parts[1].removingPercentEncoding else {
                throw SMTPError.url("the value of \(name) in the SMTP URL has a '%' that is not %XX")
            }
            parameters[name] = (value, parts[1])
        }
        return parameters
    }

    /// `USER:PASSWORD` or `USER`, percent-decoded; the password then comes from `environment`.
    /// No message shows the password.
    private static func credentials(_ userInfo: Substring, environment: [String: String]) throws -> Credentials {
        let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let user = parts[0].removingPercentEncoding else {
            throw SMTPError.url("the user in the SMTP URL has a '%' that is not %XX")
        }
        guard !user.isEmpty else { throw SMTPError.url("the SMTP URL has an empty user before '@'") }
        if parts.count > 1 {
            guard let password = parts[1].removingPercentEncoding else {
                throw SMTPError.url("the password in the SMTP URL has a '%' that is not %XX")
            }
            guard !password.isEmpty else { throw SMTPError.url("the SMTP URL has an empty password after '\(user):'") }
            return Credentials(user: user, password: password)
        }
        guard let password = environment[passwordVariable], !password.isEmpty else {
            throw SMTPError.url(
                "the SMTP URL names the user \(user) but no password; give it in the URL (user:password@) "
                    + "or in \(passwordVariable)")
        }
        return Credentials(user: user, password: password)
    }

    /// Quotes a part of the URL in a message, unless it may be part of the password: what lies
    /// between the first ':' after `://` and the next '@'. When a '/', '?' or '#' lies between
    /// them too, perhaps unencoded in the password, the URL splits there and pieces of the
    /// password would pass for a host, a port or a parameter: then nothing up to the last '@'
    /// is quoted.
    private struct Quote {
        let secret: Range<String.Index>?

        init(url: String, afterScheme: String.Index) {
            let rest = url[afterScheme...]
            guard let colon = rest.firstIndex(of: ":"), let at = rest[colon...].firstIndex(of: "@") else {
                secret = nil
                return
            }
            let splitsInside = rest[colon..<at].contains { "/?#".contains($0) }
            secret = colon..<(splitsInside ? rest.lastIndex(of: "@") ?? at : at)
        }

        /// `what 'part'`, or `what` alone when `part` may hold some of the password.
        func callAsFunction(_ what: String, _ part: Substring) -> String {
            guard let secret, part.startIndex < secret.upperBound, part.endIndex > secret.lowerBound else {
                return "\(what) '\(part)'"
            }
            return what
        }
    }
}
