import ParleyCore

/// Group administration: every change goes through one operation, decided by
/// ``GroupRules`` and written in one transaction.
public protocol GroupStore: Sendable {
    /// Applies `change` to conversation `id` on behalf of `actorId`.
    func changeGroup(_ id: ConversationID, _ change: GroupChange, by actorId: UserID, at now: Int64) async throws
        -> GroupOutcome
    /// An invite link, the profile and size of the group it leads to, whether or not it still
    /// works (see ``GroupRules/checkUsable(_:at:)``); throws `invite_not_found`.
    func invite(_ code: String) async throws -> (link: InviteLink, group: GroupProfile, memberCount: Int)
    /// The group's links, newest first: all of them for the owner and admins, their own for
    /// a member.
    func inviteLinks(of id: ConversationID, for userId: UserID) async throws -> [InviteLink]
    /// The pending join requests (oldest first), for the owner and admins.
    func joinRequests(of id: ConversationID, for userId: UserID) async throws -> [JoinRequest]
}
