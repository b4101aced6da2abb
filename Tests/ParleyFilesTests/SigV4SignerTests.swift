import Foundation
import NIOCore
import Testing

@testable import ParleyFiles

/// The signer against the worked examples of AWS's "Signature Calculations for the Authorization
/// Header: Transferring Payload in a Single Chunk", whose request S3 would accept.
struct SigV4SignerTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    /// 20130524T000000Z, the examples' date.
    static let date = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = (name: "Host", value: "examplebucket.s3.amazonaws.com")
    static let credential = "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"

    static func authorization(_ headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name == "authorization" }?.value
    }

    @Test func aRangedGetObjectIsSignedAsInTheAWSExample() {
        let headers = Self.signer.sign(
            method: "GET", path: "/test.txt", headers: [Self.host, (name: "Range", value: "bytes=0-9")],
            payloadSHA256: SigV4Signer.emptyPayloadSHA256, date: Self.date)
        #expect(
            Self.authorization(headers)
                == "AWS4-HMAC-SHA256 \(Self.credential),SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// The key has a `$`, which the canonical URI encodes as `%24`.
    @Test func aPutObjectWithItsPayloadHashIsSignedAsInTheAWSExample() {
        let payloadSHA256 = SigV4Signer.payloadSHA256(of: ByteBuffer(string: "Welcome to Amazon S3."))
        #expect(payloadSHA256 == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = Self.signer.sign(
            method: "PUT", path: "/test$file.text",
            headers: [
                Self.host, (name: "Date", value: "Fri, 24 May 2013 00:00:00 GMT"),
                (name: "x-amz-storage-class", value: "REDUCED_REDUNDANCY"),
            ],
            payloadSHA256: payloadSHA256, date: Self.date)
        #expect(
            Self.authorization(headers)
                == "AWS4-HMAC-SHA256 \(Self.credential),"
                + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
                + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    /// The parameters are given out of order; the canonical query sorts them.
    @Test func aListObjectsQueryIsSortedAndSignedAsInTheAWSExample() {
        let headers = Self.signer.sign(
            method: "GET", path: "/", query: [(name: "prefix", value: "J"), (name: "max-keys", value: "2")],
            headers: [Self.host], payloadSHA256: SigV4Signer.emptyPayloadSHA256, date: Self.date)
        #expect(
            Self.authorization(headers)?.hasSuffix(
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func aParameterWithoutValueIsSignedAsInTheAWSLifecycleExample() {
        let headers = Self.signer.sign(
            method: "GET", path: "/", query: [(name: "lifecycle", value: "")], headers: [Self.host],
            payloadSHA256: SigV4Signer.emptyPayloadSHA256, date: Self.date)
        #expect(
            Self.authorization(headers)?.hasSuffix(
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543") == true)
    }

    /// Every header sent is signed, the session token of temporary credentials included.
    @Test func theSignedRequestCarriesTheDateThePayloadHashAndTheSessionToken() throws {
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "AK", secretAccessKey: "secret", sessionToken: "token"),
            region: "eu-west-3")
        let headers = signer.sign(
            method: "DELETE", path: "/bucket/a", headers: [(name: "host", value: "127.0.0.1:9000")],
            payloadSHA256: SigV4Signer.emptyPayloadSHA256, date: Self.date)
        let sent = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
        #expect(sent["host"] == "127.0.0.1:9000")
        #expect(sent["x-amz-date"] == "20130524T000000Z")
        #expect(sent["x-amz-content-sha256"] == SigV4Signer.emptyPayloadSHA256)
        #expect(sent["x-amz-security-token"] == "token")
        let authorization = try #require(sent["authorization"])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AK/20130524/eu-west-3/s3/aws4_request,"))
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
    }

    @Test func pathsAndQueriesKeepOnlyTheUnreservedCharacters() {
        #expect(SigV4Signer.encodedPath("/bucket/files/ab/c-d_e.f~g") == "/bucket/files/ab/c-d_e.f~g")
        #expect(SigV4Signer.encodedPath("/bucket/a b+c$é") == "/bucket/a%20b%2Bc%24%C3%A9")
        #expect(
            SigV4Signer.encodedQuery([(name: "prefix", value: "uploads/a b"), (name: "list-type", value: "2")])
                == "list-type=2&prefix=uploads%2Fa%20b")
        #expect(
            SigV4Signer.encodedQuery([(name: "continuation-token", value: "1+a/b==")])
                == "continuation-token=1%2Ba%2Fb%3D%3D")
    }

    @Test func datesAreWrittenInUTCToTheSecond() {
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 951_782_400.9)) == "20000229T000000Z")
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 4_102_444_799)) == "20991231T235959Z")
    }
}
