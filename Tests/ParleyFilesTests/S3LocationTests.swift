import Testing

@testable import ParleyFiles

/// Reading the `s3://` URL and the credentials of an S3 store.
struct S3LocationTests {
    static let credentials = ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "hush-hush"]

    @Test func aLocalStoreIsABucketAtAnEndpoint() throws {
        let location = try S3Location(
            url: "s3://parley-test?endpoint=http://127.0.0.1:54330", environment: Self.credentials)
        #expect(location.bucket == "parley-test")
        #expect(location.endpoint == "http://127.0.0.1:54330")
        #expect(location.host == "127.0.0.1:54330")
        #expect(location.region == "us-east-1")
        #expect(location.credentials == S3Credentials(accessKeyID: "AK", secretAccessKey: "hush-hush"))
    }

    @Test func withoutAnEndpointTheStoreIsAWSInTheRegion() throws {
        let location = try S3Location(url: "s3://my.bucket-1?region=eu-west-3", environment: Self.credentials)
        #expect(location.endpoint == "https://s3.eu-west-3.amazonaws.com")
        #expect(location.host == "s3.eu-west-3.amazonaws.com")
        #expect(location.region == "eu-west-3")
        #expect(
            try S3Location(url: "s3://my-bucket", environment: Self.credentials).endpoint
                == "https://s3.us-east-1.amazonaws.com")
    }

    @Test func theSchemesDefaultPortAndATrailingSlashAreLeftOut() throws {
        let https = try S3Location(url: "s3://bkt?endpoint=https://minio.example:443/", environment: Self.credentials)
        #expect(https.endpoint == "https://minio.example" && https.host == "minio.example")
        let http = try S3Location(url: "s3://bkt?endpoint=HTTP://localhost:80", environment: Self.credentials)
        #expect(http.endpoint == "http://localhost" && http.host == "localhost")
    }

    @Test func aSessionTokenIsTakenWhenSetAndSecretsStayOutOfDescriptions() throws {
        let location = try S3Location(
            url: "s3://bkt?region=auto&endpoint=https://account.r2.cloudflarestorage.com",
            environment: Self.credentials.merging(["AWS_SESSION_TOKEN": "token"]) { $1 })
        #expect(location.credentials.sessionToken == "token")
        #expect(
            "\(location)" == "s3://bkt?endpoint=https://account.r2.cloudflarestorage.com&region=auto")
        #expect(!"\(location.credentials)".contains("hush-hush"))
    }

    static let malformed: [(url: String, environment: [String: String], says: String)] = [
        ("http://bucket", credentials, "is not an s3:// URL"),
        ("s3://", credentials, "names no bucket"),
        ("s3://?region=us-east-1", credentials, "names no bucket"),
        ("s3://Parley_Test", credentials, "'Parley_Test' is not a bucket name"),
        ("s3://ab", credentials, "'ab' is not a bucket name"),
        ("s3://-bucket", credentials, "'-bucket' is not a bucket name"),
        ("s3://bucket/files", credentials, "has more than a bucket and parameters"),
        ("s3://bucket:9000", credentials, "has more than a bucket and parameters"),
        ("s3://AK:secret@bucket", credentials, "must not hold credentials"),
        ("s3://bucket?endpoint=ftp://127.0.0.1", credentials, "must begin with http:// or https://, not ftp://"),
        ("s3://bucket?endpoint=127.0.0.1:9000", credentials, "the endpoint '127.0.0.1:9000' is not a URL"),
        ("s3://bucket?endpoint=http://", credentials, "'http://' has no host"),
        ("s3://bucket?endpoint=http://minio/s3", credentials, "a scheme, a host and a port, with no path"),
        ("s3://bucket?endpont=http://minio", credentials, "unknown parameter 'endpont'"),
        ("s3://bucket?region=us-east-1&region=eu-west-3", credentials, "'region' appears twice"),
        ("s3://bucket?region=", credentials, "'region' of the S3 URL has no value"),
        ("s3://bucket?region=US_EAST_1", credentials, "'US_EAST_1' is not a region name"),
        ("s3://bucket", ["AWS_SECRET_ACCESS_KEY": "hush-hush"], "AWS_ACCESS_KEY_ID is not set"),
        ("s3://bucket", ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": ""], "AWS_SECRET_ACCESS_KEY is not set"),
    ]

    @Test(arguments: malformed)
    func aMalformedLocationIsRefusedWithWhatIsWrong(_ url: String, _ environment: [String: String], _ says: String) {
        let error = #expect(throws: S3ConfigurationError.self) {
            try S3Location(url: url, environment: environment)
        }
        #expect(error?.message.contains(says) == true, "\(url): \(error?.message ?? "no error")")
    }
}
