import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed certificate for `localhost` and 127.0.0.1, valid for an hour either side of
/// now, with its P-256 key: for servers under test that speak TLS, and clients that trust
/// exactly it.
public struct TestCertificate: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String

    public init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
        privateKeyPEM = key.pemRepresentation
    }

    /// Both written as PEM files in a new temporary directory: (certificate, key) paths.
    public func writeFiles() throws -> (certificate: String, key: String) {
        let folder = temporaryDirectory()
        try certificatePEM.write(toFile: folder + "/cert.pem", atomically: true, encoding: .utf8)
        try privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        return (folder + "/cert.pem", folder + "/key.pem")
    }
}
