import Foundation
import ParleyCore

/// Group administration (`client.groups`): the profile, members, roles and mutes, invite
/// links and join requests, and a live view of each group (``observe(_:)``).
///
/// Commands go to the server (over HTTP; ``update(_:_:)`` over the socket when it is up), and
/// what it answers is saved in the ``ClientStore`` at once; every member's devices (this one's included) then hear the change as events,
/// live or through sync after being offline, which the store applies the same way. The
/// server decides who may do what; its refusals come back as ``ParleyError``s with precise
/// sentences.
public struct Groups: Sendable {
    let store: ClientStore
    let session: Session
    let requests: ServerRequests

    // MARK: Observing

    /// The group now, then again whenever its profile, members, join requests or the user's
    /// own membership change. While it is observed, a member list this device does not hold
    /// whole (never fetched, or possibly stale after a sync that started afresh) is fetched
    /// again, unless the user left the group.
    public func observe(_ id: ConversationID) async -> AsyncStream<GroupSnapshot> {
        let observation = store.observeGroup(id, viewer: await session.currentUser?.id)
        return AsyncStream { continuation in
            let task = Task {
                do {
                    for try await snapshot in observation {
                        continuation.yield(snapshot)
                        if !snapshot.membersAreComplete, !snapshot.hasLeft { _ = try? await refresh(id) }
                    }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Fetches the group and its members from the server and stores them; for an owner or an
    /// admin, the pending join requests too.
    @discardableResult
    public func refresh(_ id: ConversationID) async throws -> ConversationDetail {
        let detail: ConversationDetail = try await session.http(.getConversation, id)
        try store.saveDetail(detail)
        let me = await session.currentUser?.id
        if detail.members.contains(where: { $0.userId == me && $0.role != .member }) {
            try await joinRequests(of: id)
        }
        return detail
    }

    // MARK: Profile

    /// Changes the fields of the profile that `changes` sets (the owner and admins; over the
    /// socket when it is up, else HTTP). An empty `announcement` clears it, an empty `avatar`
    /// removes it.
    @discardableResult
    public func update(_ id: ConversationID, _ changes: UpdateGroupRequest) async throws -> ConversationDetail {
        var changes = changes
        changes.conversationId = id
        return try await saved(requests(.updateGroup, changes, http: .updateGroup, id))
    }

    /// Hands the group to another member; the owner becomes an admin.
    @discardableResult
    public func transfer(_ id: ConversationID, to userId: UserID) async throws -> ConversationDetail {
        try await saved(session.http(.transferGroup, id, body: TransferGroupRequest(userId: userId)))
    }

    /// Makes the group read-only for everyone, for good (the owner only).
    @discardableResult
    public func dissolve(_ id: ConversationID) async throws -> ConversationDetail {
        try await saved(session.http(.dissolveGroup, id))
    }

    // MARK: Members

    /// Invites users directly (who may depends on the group's ``JoinPolicy``); answers whom
    /// it added (not the whole member list, which ``refresh(_:)`` reads).
    @discardableResult
    public func add(_ userIds: [UserID], to id: ConversationID) async throws -> MembersAdded {
        let added: MembersAdded = try await session.http(.addMembers, id, body: AddMembersRequest(userIds: userIds))
        try store.saveAdded(added)
        return added
    }

    /// Makes a member an admin, or an admin a plain member again (the owner only).
    @discardableResult
    public func setRole(_ role: MemberRole, of userId: UserID, in id: ConversationID) async throws
        -> ConversationDetail
    {
        try await updateMember(userId, in: id, UpdateMemberRequest(role: role))
    }

    /// Stops a member from sending until `until` (ms since the epoch;
    /// ``Limits/mutedUntilLifted`` for "until lifted"). The owner mutes anyone but
    /// themselves, an admin mutes plain members.
    @discardableResult
    public func mute(_ userId: UserID, in id: ConversationID, until: Int64) async throws -> ConversationDetail {
        try await updateMember(userId, in: id, UpdateMemberRequest(mutedUntil: until))
    }

    /// Lifts a member's mute.
    @discardableResult
    public func unmute(_ userId: UserID, in id: ConversationID) async throws -> ConversationDetail {
        try await updateMember(userId, in: id, UpdateMemberRequest(mutedUntil: 0))
    }

    /// Sets the user's own name in this group; nil removes it.
    @discardableResult
    public func setNickname(_ nickname: String?, in id: ConversationID) async throws -> ConversationDetail {
        try await updateMember(try await me(), in: id, UpdateMemberRequest(nickname: nickname ?? ""))
    }

    /// Removes a member (the owner removes anyone else, an admin plain members). Every
    /// member's devices, this one's included, hear it as `members.removed`, and the removed
    /// user's as `conversation.removed`.
    public func remove(_ userId: UserID, from id: ConversationID) async throws {
        let _: APIClient.Empty = try await session.http(.removeMember, id, userId)
    }

    /// Leaves the group (the owner must transfer or dissolve it first). The user's devices
    /// hear it as `conversation.removed` and keep its messages, read-only.
    public func leave(_ id: ConversationID) async throws {
        try await remove(try await me(), from: id)
    }

    private func updateMember(_ userId: UserID, in id: ConversationID, _ changes: UpdateMemberRequest) async throws
        -> ConversationDetail
    {
        try await saved(session.http(.updateMember, id, userId, body: changes))
    }

    // MARK: Invite links

    /// A new invite link: it stops working after `expiresInSeconds` (never when nil) or
    /// `maxUses` joins (unlimited when nil).
    public func createLink(for id: ConversationID, expiresInSeconds: Int64? = nil, maxUses: Int? = nil) async throws
        -> InviteLink
    {
        try await session.http(
            .createInviteLink, id, body: CreateInviteLinkRequest(expiresInSeconds: expiresInSeconds, maxUses: maxUses))
    }

    /// The group's links, newest first: all of them for the owner and admins, a member's own
    /// otherwise.
    public func links(of id: ConversationID) async throws -> [InviteLink] {
        let list: InviteLinkList = try await session.http(.listInviteLinks, id)
        return list.links
    }

    /// Stops a link from working.
    public func revokeLink(_ code: String, of id: ConversationID) async throws {
        let _: APIClient.Empty = try await session.http(.revokeInviteLink, id, code)
    }

    /// What a link leads to, before joining.
    public func preview(code: String) async throws -> InvitePreview {
        try await session.http(.previewInvite, code)
    }

    /// Joins with a link: the group, when it admits the user at once (stored like any other
    /// conversation); the request filed, when the group wants an admin's approval.
    @discardableResult
    public func join(code: String, message: String? = nil) async throws -> InviteOutcome {
        let outcome: InviteOutcome = try await session.http(.useInvite, code, body: UseInviteRequest(message: message))
        if let detail = outcome.conversation { try store.saveDetail(detail) }
        if let request = outcome.request { try store.saveJoinRequest(request) }
        return outcome
    }

    // MARK: Join requests

    /// The pending requests to join, oldest first (the owner and admins).
    @discardableResult
    public func joinRequests(of id: ConversationID) async throws -> [JoinRequest] {
        let list: JoinRequestList = try await session.http(.listJoinRequests, id)
        try store.savePendingRequests(list.requests, of: id)
        return list.requests
    }

    /// Approves (the user joins) or rejects a pending request.
    @discardableResult
    public func resolve(requestOf userId: UserID, in id: ConversationID, approve: Bool) async throws -> JoinRequest {
        let request: JoinRequest = try await session.http(
            .resolveJoinRequest, id, userId, body: ResolveJoinRequest(approve: approve))
        try store.saveJoinRequest(request)
        return request
    }

    // MARK: Helpers

    private func saved(_ detail: ConversationDetail) throws -> ConversationDetail {
        try store.saveDetail(detail)
        return detail
    }

    private func me() async throws -> UserID {
        guard let me = await session.currentUser?.id else { throw ParleyError(.unauthenticated, "Not logged in.") }
        return me
    }
}
