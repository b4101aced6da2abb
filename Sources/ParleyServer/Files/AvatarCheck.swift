import ParleyCore
import ParleyStore

extension FileStore {
    /// Checks that `avatar` (a file id; empty removes the avatar) names an image that
    /// `userId` may use: one they uploaded, claimed by hash or can read. Refused with `code`
    /// (the field's own error: `avatar_invalid` for a profile, `invalid_field` for a group).
    func checkAvatar(_ avatar: String, by userId: UserID, code: ErrorCode) async throws {
        guard !avatar.isEmpty else { return }
        guard FileRules.isWellFormedID(avatar), let file = try await file(id: avatar),
            try await mayRead(file.id, userId: userId)
        else { throw ParleyError(code, "'avatar' must be the id of an uploaded image you may use, or empty.") }
        guard FileRules.accepts(file.mimeType, for: .image) else {
            throw ParleyError(
                code, "'avatar' must be an image (png, jpeg, gif, webp, heic or avif); this file is \(file.mimeType).")
        }
    }
}
