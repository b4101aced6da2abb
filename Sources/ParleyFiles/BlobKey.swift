/// The rules for keys and key prefixes, shared by every ``BlobStore``: a key is a relative
/// path of `[a-z0-9._-]` segments joined by `/`, so it is safe as a file path under a directory
/// and needs no escaping in a URL.
enum BlobKey {
    /// S3's limit, kept on disk too so that a key stored on one backend fits the other.
    static let maximumLength = 1024

    /// Throws ``BlobStoreError/invalidKey(_:)`` unless `key` is a valid key.
    static func validate(_ key: String) throws {
        guard !key.isEmpty, key.utf8.count <= maximumLength, hasOnlyKeyCharacters(key),
            key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy(isValidSegment)
        else { throw BlobStoreError.invalidKey(key) }
    }

    /// Throws ``BlobStoreError/invalidKey(_:)`` unless `prefix` could begin a key: the empty
    /// prefix, or a key cut anywhere (`files/`, `files/a`). Only the segments before the last `/`
    /// are complete, so only they must be valid segments.
    static func validatePrefix(_ prefix: String) throws {
        guard prefix.utf8.count <= maximumLength, hasOnlyKeyCharacters(prefix),
            prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast().allSatisfy(isValidSegment)
        else { throw BlobStoreError.invalidKey(prefix) }
    }

    static func isValid(_ key: String) -> Bool {
        (try? validate(key)) != nil
    }

    private static let keyCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789._-/".utf8)

    private static func hasOnlyKeyCharacters(_ text: String) -> Bool {
        text.utf8.allSatisfy(keyCharacters.contains)
    }

    private static func isValidSegment(_ segment: Substring) -> Bool {
        !segment.isEmpty && segment != "." && segment != ".."
    }
}
