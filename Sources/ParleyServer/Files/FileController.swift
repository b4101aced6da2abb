import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyFiles
import ParleyStore

/// Uploads and downloads over HTTP.
struct FileController {
    let files: FileService
    let blobs: any BlobStore
    let accounts: AccountService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.startUpload) { request, context, identity in
            let body = try await request.decodeJSON(StartUploadRequest.self, context: context)
            let answer = try await files.start(body, by: identity)
            return JSONResponse(answer, status: answer.file == nil ? .created : .ok)
        }
        routes.authenticated(.getUpload) { _, context, identity in
            JSONResponse(try await files.status(of: try context.parameters.require("uploadId"), for: identity))
        }
        routes.authenticated(.putChunk) { request, context, identity in
            let limit = Int(files.configuration.chunkSize)
            let bytes = try await request.body.collect(upTo: limit)
            return JSONResponse(
                try await files.putChunk(
                    bytes, at: try context.parameters.require("offset"),
                    digest: request.headers[.init("Content-Digest")!],
                    of: try context.parameters.require("uploadId"), by: identity))
        }
        routes.authenticated(.completeUpload) { _, context, identity in
            JSONResponse(try await files.complete(try context.parameters.require("uploadId"), by: identity))
        }
        routes.authenticated(.cancelUpload) { _, context, identity in
            try await files.cancel(try context.parameters.require("uploadId"), by: identity)
            return Response(status: .noContent)
        }
        routes.authenticated(.getFileInfo) { _, context, identity in
            JSONResponse(try await files.readable(try context.parameters.require("fileId"), by: identity).info)
        }
        routes.authenticated(.createFileLink) { _, context, identity in
            JSONResponse(try await files.link(to: try context.parameters.require("fileId"), for: identity))
        }
        routes.on(.getFile) { request, context in
            let fileId = try context.parameters.require("fileId")
            let query = request.uri.queryParameters
            let file: StoredFile
            if let token = request.bearerToken {
                file = try await files.readable(fileId, by: try await accounts.authenticate(accessToken: token))
            } else if let expires = query.get("expires"), let signature = query.get("signature") {
                file = try await files.linked(fileId, expires: expires, signature: signature)
            } else {
                throw ParleyError(
                    .unauthenticated,
                    "Reading a file needs an 'Authorization: Bearer <access token>' header or a signed link.")
            }
            return try await download(file, request: request)
        }
    }

    /// The file's bytes, or the range asked for, with the headers that make it safe to open
    /// in a browser and cheap to fetch again.
    private func download(_ file: StoredFile, request: Request) async throws -> Response {
        var headers: HTTPFields = [
            .eTag: "\"\(file.sha256)\"",
            .acceptRanges: "bytes",
            // The content of an id never changes.
            .cacheControl: "private, max-age=31536000, immutable",
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'none'; sandbox",
            .contentType: file.mimeType == "text/plain" ? "text/plain; charset=utf-8" : file.mimeType,
        ]
        if ContentSniffer.isActive(file.mimeType) { headers[.contentDisposition] = "attachment" }
        if let tags = request.headers[.ifNoneMatch], Self.matches(tags, file.sha256) {
            return Response(status: .notModified, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var range: Range<Int64>?
        if let text = request.headers[.range] {
            switch ByteRangeRequest(text, size: file.size) {
            case .whole: break
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(file.size)"
            case .unsatisfiable:
                return Response(
                    status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(file.size)"],
                    body: .init(
                        byteBuffer: ByteBuffer(
                            string: try JSONText.encode(
                                ErrorBody(
                                    error: ParleyError(
                                        .rangeNotSatisfiable,
                                        "The range asked for lies outside the file's \(file.size) bytes."))))))
            }
        }
        let length = range.map { $0.upperBound - $0.lowerBound } ?? file.size
        headers[.contentLength] = String(length)
        let stream = try await blobs.read(file.blobKey, range: range)
        return Response(status: status, headers: headers, body: ResponseBody(asyncSequence: stream))
    }

    /// Whether an `If-None-Match` list names the file's tag (or is `*`).
    private static func matches(_ header: String, _ sha256: String) -> Bool {
        header.split(separator: ",").contains {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == "\"\(sha256)\"" || tag == "W/\"\(sha256)\""
        }
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
