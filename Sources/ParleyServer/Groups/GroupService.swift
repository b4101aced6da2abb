import ParleyCore
import ParleyStore

/// Group administration for HTTP and the WebSocket alike: checks the form of each request
/// (lengths, times), and leaves who may do what to ``GroupRules`` in the store.
struct GroupService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    /// The sensitive-word filter a group's name and description and members' nicknames in it must pass.
    let words: WordFilter
    /// Told of what may push to users with no device connected.
    let pushes: PushDispatcher

    /// Changes the group's profile; every member hears `conversation.updated`.
    func update(_ id: ConversationID, _ request: UpdateGroupRequest, by identity: Identity) async throws
        -> ConversationDetail
    {
        let edit = UpdateGroupRequest(
            name: try request.name.map { try TextRules.name($0, field: "name", maxLength: Limits.maxGroupNameLength) },
            description: try request.description.map {
                try TextRules.paragraph($0, field: "description", maxLength: Limits.maxGroupDescriptionLength)
            },
            avatar: try request.avatar.map(Self.fileID),
            announcement: try request.announcement.map {
                try TextRules.paragraph($0, field: "announcement", maxLength: Limits.maxAnnouncementLength)
            },
            joinPolicy: request.joinPolicy, muteAll: request.muteAll,
            everyoneMayMentionAll: request.everyoneMayMentionAll)
        if let name = edit.name { try words.check(name, field: "name") }
        if let description = edit.description { try words.check(description, field: "description") }
        if let avatar = edit.avatar { try await store.checkAvatar(avatar, by: identity.userId, code: .invalidField) }
        guard edit != UpdateGroupRequest() else {
            throw ParleyError(.missingField, "Give at least one of the group's fields to change.")
        }
        return try await change(id, .updateProfile(edit), by: identity)
    }

    /// Adds users directly; answers whom it added, not the whole member list.
    func addMembers(_ userIds: [UserID], to id: ConversationID, by identity: Identity) async throws -> MembersAdded {
        guard !userIds.isEmpty else { throw ParleyError(.invalidField, "'userIds' must not be empty.") }
        let outcome = try await store.changeGroup(id, .addMembers(userIds), by: identity.userId, at: clock.now())
        if !outcome.added.isEmpty {
            pushes.enqueue(.invitation(group: id, by: identity.userId, users: outcome.added.map(\.userId)))
        }
        return MembersAdded(conversationId: id, members: outcome.added, noticeSeq: outcome.noticeSeq)
    }

    /// Changes a member's role, mute or nickname.
    func updateMember(_ userId: UserID, of id: ConversationID, _ request: UpdateMemberRequest, by identity: Identity)
        async throws -> ConversationDetail
    {
        if let role = request.role, role == .owner {
            throw ParleyError(.invalidField, "'role' must be 'admin' or 'member'; ownership moves with a transfer.")
        }
        if let until = request.mutedUntil, until != 0, !(clock.now() + 1...Limits.mutedUntilLifted).contains(until) {
            throw ParleyError(
                .invalidField,
                "'mutedUntil' must be 0 (lift the mute) or a time in the future, at most \(Limits.mutedUntilLifted).")
        }
        let edit = UpdateMemberRequest(
            role: request.role, mutedUntil: request.mutedUntil,
            nickname: try request.nickname.map { nickname in
                nickname.isEmpty
                    ? "" : try TextRules.name(nickname, field: "nickname", maxLength: Limits.maxGroupNicknameLength)
            })
        if let nickname = edit.nickname { try words.check(nickname, field: "nickname") }
        guard edit != UpdateMemberRequest() else {
            throw ParleyError(.missingField, "Give at least one of 'role', 'mutedUntil' and 'nickname'.")
        }
        return try await change(id, .updateMember(userId, edit), by: identity)
    }

    /// Removes a member, or the caller themselves (leaving).
    func removeMember(_ userId: UserID, from id: ConversationID, by identity: Identity) async throws {
        _ = try await store.changeGroup(id, .removeMember(userId), by: identity.userId, at: clock.now())
    }

    func transfer(_ id: ConversationID, to userId: UserID, by identity: Identity) async throws -> ConversationDetail {
        try await change(id, .transfer(to: userId), by: identity)
    }

    func dissolve(_ id: ConversationID, by identity: Identity) async throws -> ConversationDetail {
        try await change(id, .dissolve, by: identity)
    }

    func createLink(for id: ConversationID, _ request: CreateInviteLinkRequest, by identity: Identity) async throws
        -> InviteLink
    {
        if let seconds = request.expiresInSeconds, !(1...Limits.maxInviteLinkLifetimeSeconds).contains(seconds) {
            throw ParleyError(
                .invalidField, "'expiresInSeconds' must be 1 to \(Limits.maxInviteLinkLifetimeSeconds).")
        }
        if let uses = request.maxUses, !(1...Limits.maxInviteLinkUses).contains(uses) {
            throw ParleyError(.invalidField, "'maxUses' must be 1 to \(Limits.maxInviteLinkUses).")
        }
        let now = clock.now()
        let outcome = try await store.changeGroup(
            id,
            .createLink(
                code: InviteCode.random(), expiresAt: request.expiresInSeconds.map { now + $0 * 1000 },
                maxUses: request.maxUses), by: identity.userId, at: now)
        return outcome.link!
    }

    func links(of id: ConversationID, for identity: Identity) async throws -> InviteLinkList {
        InviteLinkList(links: try await store.inviteLinks(of: id, for: identity.userId))
    }

    func revokeLink(_ code: String, of id: ConversationID, by identity: Identity) async throws {
        _ = try await store.changeGroup(id, .revokeLink(code: code), by: identity.userId, at: clock.now())
    }

    /// The group a working invite code leads to (not one that was dissolved).
    func preview(_ code: String) async throws -> InvitePreview {
        let invite = try await invite(code)
        try GroupRules.checkNotDissolved(invite.group, invite.link.conversationId)
        try GroupRules.checkUsable(invite.link, at: clock.now())
        return InvitePreview(
            conversationId: invite.link.conversationId, name: invite.group.name, memberCount: invite.memberCount,
            joinPolicy: invite.group.joinPolicy)
    }

    private func invite(_ code: String) async throws -> (link: InviteLink, group: GroupProfile, memberCount: Int) {
        guard InviteCode.isWellFormed(code) else { throw GroupRules.inviteNotFound() }
        return try await store.invite(code)
    }

    /// Joins with a link, or files a join request when the group wants approval (a member
    /// already in is answered with the group, whatever the link's state).
    func useInvite(_ code: String, _ request: UseInviteRequest, by identity: Identity) async throws -> InviteOutcome {
        let message = try TextRules.paragraph(
            request.message ?? "", field: "message", maxLength: Limits.maxJoinRequestMessageLength)
        let id = try await invite(code).link.conversationId
        let outcome = try await store.changeGroup(
            id, .useLink(code: code, message: message), by: identity.userId, at: clock.now())
        if let request = outcome.request { return InviteOutcome(request: request) }
        return InviteOutcome(conversation: try await store.conversation(id, for: identity.userId))
    }

    func joinRequests(of id: ConversationID, for identity: Identity) async throws -> JoinRequestList {
        JoinRequestList(requests: try await store.joinRequests(of: id, for: identity.userId))
    }

    func resolveRequest(of userId: UserID, to id: ConversationID, approve: Bool, by identity: Identity) async throws
        -> JoinRequest
    {
        let outcome = try await store.changeGroup(
            id, .resolveRequest(of: userId, approve: approve), by: identity.userId, at: clock.now())
        return outcome.request!
    }

    /// Applies `change` and answers with the group as the caller now sees it.
    private func change(_ id: ConversationID, _ change: GroupChange, by identity: Identity) async throws
        -> ConversationDetail
    {
        _ = try await store.changeGroup(id, change, by: identity.userId, at: clock.now())
        return try await store.conversation(id, for: identity.userId)
    }

    /// A file id: 1 to ``Limits/maxFileIDLength`` printable ASCII characters, or empty (none).
    static func fileID(_ id: String) throws -> String {
        guard TextRules.isFileIDOrEmpty(id) else {
            throw ParleyError(
                .invalidField,
                "'avatar' must be a file id of at most \(Limits.maxFileIDLength) printable ASCII characters, or empty.")
        }
        return id
    }
}
