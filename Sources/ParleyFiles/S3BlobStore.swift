import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// A ``BlobStore`` in a bucket of an S3-compatible object store (AWS S3, MinIO, Ceph, R2),
/// reached path-style at `{endpoint}/{bucket}/{key}` with requests signed with AWS Signature
/// Version 4.
///
/// Each object goes up in a single PUT, which S3 limits to 5 GiB, and S3 makes it visible whole
/// or not at all. The credentials need `s3:GetObject`, `s3:PutObject`, `s3:DeleteObject` and
/// `s3:ListBucket`: without the last, S3 answers 403 instead of 404 for a missing object.
public struct S3BlobStore: BlobStore {
    public let location: S3Location
    private let httpClient: HTTPClient
    private let signer: SigV4Signer
    private let timeout: TimeAmount
    /// How many keys a listing asks for at once; S3 gives at most 1000.
    let listPageSize: Int

    /// A store at `location` that sends its requests through `httpClient`. The caller owns the
    /// client and shuts it down after the store's last use. `timeout` limits each request until
    /// the answer begins, the sending of an uploaded object included; the body a ``read(_:range:)``
    /// streams has no limit but the client's read timeout.
    public init(location: S3Location, httpClient: HTTPClient, timeout: TimeAmount = .minutes(10)) {
        self.init(location: location, httpClient: httpClient, timeout: timeout, listPageSize: 1000)
    }

    init(location: S3Location, httpClient: HTTPClient, timeout: TimeAmount, listPageSize: Int) {
        self.location = location
        self.httpClient = httpClient
        self.signer = SigV4Signer(credentials: location.credentials, region: location.region)
        self.timeout = timeout
        self.listPageSize = listPageSize
    }

    public func put(_ key: String, bytes: ByteBuffer) async throws {
        try BlobKey.validate(key)
        let response = try await send(
            .PUT, key: key, body: .bytes(bytes), payloadSHA256: SigV4Signer.payloadSHA256(of: bytes))
        try await expectSuccess(response)
    }

    /// Streams the file up from disk, signed with `sha256`, so S3 refuses it if it does not
    /// match, then deletes it.
    public func putFile(_ key: String, path: String, size: Int64, sha256: String) async throws {
        try BlobKey.validate(key)
        guard let chunks = try await LocalFileChunks.open(path: path) else {
            throw IOError(errnoCode: ENOENT, reason: "there is no file at '\(path)' to put")
        }
        let response = try await send(
            .PUT, key: key, body: .stream(chunks, length: .known(size)), payloadSHA256: sha256)
        try await expectSuccess(response)
        _ = try await FileSystem.shared.removeItem(at: FilePath(path), recursively: false)
    }

    public func size(of key: String) async throws -> Int64? {
        try BlobKey.validate(key)
        let response = try await send(.HEAD, key: key)
        switch response.status {
        case .ok:
            guard let size = response.headers.first(name: "content-length").flatMap({ Int64($0) }) else {
                throw BlobStoreError.remote(
                    status: 200, code: "MissingContentLength", message: "HEAD \(key) gave no Content-Length")
            }
            return size
        case .notFound:
            return nil
        default:
            throw await failure(response)
        }
    }

    public func read(_ key: String, range: Range<Int64>?) async throws -> BlobStream {
        try BlobKey.validate(key)
        if let range, range.isEmpty {
            // HTTP cannot ask for no bytes; only whether the object exists matters.
            guard try await size(of: key) != nil else { throw BlobStoreError.notFound(key) }
            return BlobStream(ByteBuffer())
        }
        let rangeHeader = range.map { [(name: "range", value: "bytes=\($0.lowerBound)-\($0.upperBound - 1)")] }
        let response = try await send(.GET, key: key, headers: rangeHeader ?? [])
        switch response.status {
        case .ok where range == nil, .partialContent where range != nil:
            return BlobStream(response.body)
        case .ok:
            throw BlobStoreError.remote(
                status: 200, code: "RangeIgnored", message: "GET \(key) gave the whole object for a range of it")
        case .notFound:
            _ = await failure(response)
            throw BlobStoreError.notFound(key)
        default:
            throw await failure(response)
        }
    }

    public func delete(_ key: String) async throws {
        try BlobKey.validate(key)
        let response = try await send(.DELETE, key: key)
        if response.status == .notFound {
            _ = await failure(response)
            return
        }
        try await expectSuccess(response)
    }

    /// Lists the keys with ListObjectsV2, a page of ``listPageSize`` keys at a time.
    public func keys(prefix: String) async throws -> [String] {
        try BlobKey.validatePrefix(prefix)
        var keys: [String] = []
        var continuationToken: String?
        repeat {
            var query = [(name: "list-type", value: "2"), (name: "max-keys", value: String(listPageSize))]
            if !prefix.isEmpty { query.append((name: "prefix", value: prefix)) }
            if let continuationToken { query.append((name: "continuation-token", value: continuationToken)) }
            let response = try await send(.GET, key: nil, query: query)
            guard response.status == .ok else { throw await failure(response) }
            let listing = String(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
            keys += S3XML.texts(of: "Key", in: listing)
            continuationToken = nil
            if S3XML.text(of: "IsTruncated", in: listing) == "true" {
                guard let token = S3XML.text(of: "NextContinuationToken", in: listing) else {
                    throw BlobStoreError.remote(
                        status: 200, code: "MissingContinuationToken",
                        message: "a truncated listing of '\(prefix)' gave no NextContinuationToken")
                }
                continuationToken = token
            }
        } while continuationToken != nil
        return keys
    }

    /// Sends a signed request for `key`, or for the bucket when `key` is nil.
    private func send(
        _ method: HTTPMethod, key: String?, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: HTTPClientRequest.Body? = nil,
        payloadSHA256: String = SigV4Signer.emptyPayloadSHA256
    ) async throws -> HTTPClientResponse {
        let path = "/\(location.bucket)" + (key.map { "/\($0)" } ?? "")
        let encodedQuery = SigV4Signer.encodedQuery(query)
        var request = HTTPClientRequest(
            url: location.endpoint + SigV4Signer.encodedPath(path) + (encodedQuery.isEmpty ? "" : "?\(encodedQuery)"))
        request.method = method
        let signedHeaders = signer.sign(
            method: method.rawValue, path: path, query: query,
            headers: [(name: "host", value: location.host)] + headers, payloadSHA256: payloadSHA256, date: Date())
        for header in signedHeaders {
            request.headers.add(name: header.name, value: header.value)
        }
        request.body = body
        return try await httpClient.execute(request, timeout: timeout)
    }

    /// Throws the store's error unless `response` is a success; reads its body to the end, so
    /// that the connection can serve the next request.
    private func expectSuccess(_ response: HTTPClientResponse) async throws {
        guard (200..<300).contains(response.status.code) else { throw await failure(response) }
        _ = try await response.body.collect(upTo: 1024 * 1024)
    }

    /// The error `response` stands for, with the code and message of S3's XML error body when
    /// it has one (a HEAD has none).
    private func failure(_ response: HTTPClientResponse) async -> BlobStoreError {
        let body = (try? await response.body.collect(upTo: 1024 * 1024)).map { String(buffer: $0) } ?? ""
        return .remote(
            status: Int(response.status.code),
            code: S3XML.text(of: "Code", in: body) ?? response.status.reasonPhrase,
            message: S3XML.text(of: "Message", in: body) ?? "")
    }
}
