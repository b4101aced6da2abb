import Hummingbird

/// Serves the browser client: its page at `/` and its scripts, styles and icons under
/// `/web/`. The pages get a strict Content-Security-Policy: scripts, styles and everything
/// else only from this server, no inline script or style, no plug-ins, no framing.
struct WebClientController {
    let files: WebClientFiles

    /// What the client's pages may load: from this origin only, images and media also from
    /// `blob:` (previews of what the user picked and recorded), and sockets to this origin.
    static let pagePolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
        + "media-src 'self' blob:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; "
        + "form-action 'none'; frame-ancestors 'none'"

    func addRoutes(to router: Router<ParleyRequestContext>) {
        router.get("/") { request, _ in serve("index.html", request: request) }
        router.get("/web/**") { request, context in
            serve(context.parameters.getCatchAll().joined(separator: "/"), request: request)
        }
    }

    private func serve(_ path: String, request: Request) -> Response {
        guard let file = files.files[path] else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Not found\n")))
        }
        let tag = "\"\(file.hash)\""
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .eTag: tag,
            // Always asked again, answered 304 while unchanged: an upgraded server's client
            // is picked up at the next load, with no stale module mixed in.
            .cacheControl: "no-cache",
            .contentSecurityPolicy: Self.pagePolicy,
        ]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == tag
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
