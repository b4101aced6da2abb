import Foundation

/// Where an ``S3BlobStore`` keeps its objects: a bucket of an S3-compatible store, and the
/// credentials to sign requests with. Written as a URL,
/// `s3://BUCKET?endpoint=http://127.0.0.1:9000&region=us-east-1`, where both parameters are
/// optional: the region defaults to `us-east-1`, the endpoint to AWS's for the region.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public let bucket: String
    /// The store's base URL: a scheme, a host and a port, such as `http://127.0.0.1:9000`.
    public let endpoint: String
    public let region: String
    public let credentials: S3Credentials
    /// The `Host` header of requests: the endpoint's host, and its port unless it is the
    /// scheme's default.
    let host: String

    /// Reads `url`, and the credentials from `environment` (``S3Credentials/init(environment:)``).
    /// Throws ``S3ConfigurationError`` saying what is wrong with either.
    public init(url: String, environment: [String: String]) throws {
        let expected = "expected s3://BUCKET?endpoint=URL&region=REGION"
        guard let components = URLComponents(string: url) else {
            throw S3ConfigurationError("the S3 URL '\(url)' is not a URL; \(expected)")
        }
        guard components.scheme?.lowercased() == "s3" else {
            throw S3ConfigurationError("'\(url)' is not an s3:// URL; \(expected)")
        }
        guard components.user == nil, components.password == nil else {
            throw S3ConfigurationError(
                "the S3 URL must not hold credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead")
        }
        guard let bucket = components.host, !bucket.isEmpty else {
            throw S3ConfigurationError("the S3 URL '\(url)' names no bucket; \(expected)")
        }
        guard Self.isBucketName(bucket) else {
            throw S3ConfigurationError(
                "'\(bucket)' is not a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, "
                    + "beginning and ending with a letter or digit")
        }
        guard components.port == nil, components.path.isEmpty || components.path == "/", components.fragment == nil
        else {
            throw S3ConfigurationError(
                "the S3 URL '\(url)' has more than a bucket and parameters; the store's port goes in its endpoint "
                    + "parameter, and objects are at the top of the bucket; \(expected)")
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard item.name == "endpoint" || item.name == "region" else {
                throw S3ConfigurationError(
                    "unknown parameter '\(item.name)' in the S3 URL; the parameters are endpoint and region")
            }
            guard parameters[item.name] == nil else {
                throw S3ConfigurationError("the parameter '\(item.name)' appears twice in the S3 URL")
            }
            guard let value = item.value, !value.isEmpty else {
                throw S3ConfigurationError("the parameter '\(item.name)' of the S3 URL has no value")
            }
            parameters[item.name] = value
        }
        let region = parameters["region"] ?? "us-east-1"
        guard region.utf8.allSatisfy({ Self.regionCharacters.contains($0) }) else {
            throw S3ConfigurationError(
                "'\(region)' is not a region name: lower-case letters, digits and hyphens, such as us-east-1")
        }
        let (endpoint, host) = try Self.endpointAndHost(parameters["endpoint"] ?? "https://s3.\(region).amazonaws.com")
        self.bucket = bucket
        self.endpoint = endpoint
        self.region = region
        self.host = host
        self.credentials = try S3Credentials(environment: environment)
    }

    /// The location as a URL, without the credentials.
    public var description: String {
        "s3://\(bucket)?endpoint=\(endpoint)&region=\(region)"
    }

    private static let regionCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-".utf8)
    private static let bucketCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789.-".utf8)

    private static func isBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count) && name.utf8.allSatisfy(bucketCharacters.contains)
            && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }

    /// The endpoint as `scheme://host[:port]`, and the `Host` header that goes with it.
    private static func endpointAndHost(_ endpoint: String) throws -> (endpoint: String, host: String) {
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased() else {
            throw S3ConfigurationError(
                "the endpoint '\(endpoint)' is not a URL; expected http://HOST:PORT or https://HOST")
        }
        guard scheme == "http" || scheme == "https" else {
            throw S3ConfigurationError(
                "the endpoint '\(endpoint)' must begin with http:// or https://, not \(scheme)://")
        }
        guard let hostName = components.host, !hostName.isEmpty else {
            throw S3ConfigurationError(
                "the endpoint '\(endpoint)' has no host; expected http://HOST:PORT or https://HOST")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            throw S3ConfigurationError(
                "the endpoint '\(endpoint)' must be a scheme, a host and a port, with no path, query or credentials")
        }
        let bracketedHost = hostName.contains(":") && !hostName.hasPrefix("[") ? "[\(hostName)]" : hostName
        let defaultPort = scheme == "https" ? 443 : 80
        let host = components.port.map { $0 == defaultPort ? bracketedHost : "\(bracketedHost):\($0)" } ?? bracketedHost
        return ("\(scheme)://\(host)", host)
    }
}
