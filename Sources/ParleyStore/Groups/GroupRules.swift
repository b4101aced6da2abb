import Foundation
import ParleyCore

/// Who may change what in a group, and what each change writes: the system message that
/// records it in the conversation's seq and the events that tell the affected users.
///
/// Ranks: the owner outranks admins, who outrank members. The owner and admins edit the
/// profile, mute and remove those they outrank, and approve join requests; only the owner
/// appoints admins, transfers and dissolves. A dissolved group takes no change but members
/// leaving it.
public enum GroupRules {
    /// What `change` by `actorId` writes (nothing, when it changes nothing) and tells the caller.
    public static func decide(_ change: GroupChange, in state: GroupState, by actorId: UserID, at now: Int64)
        throws -> (effects: GroupEffects, outcome: GroupOutcome)
    {
        let decision = try decideEffects(change, in: state, by: actorId, at: now)
        var outcome = decision.outcome
        // As the backends store a join: a plain member who has read nothing yet.
        outcome.added = decision.effects.added.map { Member(userId: $0, role: .member, readSeq: 0, joinedAt: now) }
        return (decision.effects, outcome)
    }

    /// What `change` writes and tells, but for ``GroupOutcome/added``, which follows from
    /// what it writes.
    private static func decideEffects(
        _ change: GroupChange, in state: GroupState, by actorId: UserID, at now: Int64
    ) throws -> (effects: GroupEffects, outcome: GroupOutcome) {
        if case .useLink(let code, let message) = change {
            return try useLink(
                code, message: message, in: state, profile: try groupProfile(state), by: actorId, at: now)
        }
        guard let actor = state.member(actorId) else { throw ParleyError.notAMember(of: state.id) }
        let profile = try groupProfile(state)
        guard profile.dissolvedAt == nil else {
            guard case .removeMember(let userId) = change, userId == actorId else { throw dissolved(state.id) }
            return (leavingDissolved(state, by: actorId), GroupOutcome())
        }
        var context = Context(state: state, profile: profile, actor: actor, now: now)
        switch change {
        case .updateProfile(let edit): try context.updateProfile(edit)
        case .addMembers(let ids): try context.addMembers(ids)
        case .updateMember(let userId, let edit): try context.updateMember(userId, edit)
        case .removeMember(let userId): try context.removeMember(userId)
        case .transfer(let userId): try context.transfer(to: userId)
        case .dissolve: try context.dissolve()
        case .createLink(let code, let expiresAt, let maxUses):
            try context.createLink(code: code, expiresAt: expiresAt, maxUses: maxUses)
        case .revokeLink(let code): try context.revokeLink(code)
        case .resolveRequest(let userId, let approve): try context.resolveRequest(of: userId, approve: approve)
        case .useLink: break
        }
        return context.result
    }

    /// Throws `muted` or `group_dissolved` when a member with `role` and `mutedUntil` may not
    /// send to conversation `id` now.
    public static func checkCanSend(
        role: MemberRole, mutedUntil: Int64?, muteAll: Bool, dissolvedAt: Int64?, in id: ConversationID,
        at now: Int64
    ) throws {
        guard dissolvedAt == nil else { throw dissolved(id) }
        if let until = mutedUntil, until > now {
            throw ParleyError(
                .muted,
                until >= Limits.mutedUntilLifted
                    ? "You are muted in this group until an admin lifts it."
                    : "You are muted in this group until \(Date(timeIntervalSince1970: Double(until) / 1000).ISO8601Format()).",
                until: until)
        }
        if muteAll, role == .member {
            throw ParleyError(.muted, "Only the owner and admins may send while the group is muted.")
        }
    }

    /// The error for a code that names no link.
    public static func inviteNotFound() -> ParleyError { ParleyError(.inviteNotFound, "No such invite link.") }

    /// Throws unless `link` still admits people at `now`.
    public static func checkUsable(_ link: InviteLink?, at now: Int64) throws {
        guard let link else { throw inviteNotFound() }
        if link.revokedAt != nil { throw ParleyError(.inviteExpired, "This invite link was revoked.") }
        if let expiresAt = link.expiresAt, expiresAt <= now {
            throw ParleyError(.inviteExpired, "This invite link expired.")
        }
        if let maxUses = link.maxUses, link.uses >= maxUses {
            throw ParleyError(.inviteExpired, "This invite link has been used up.")
        }
    }

    /// Whether `link` still admits people at `now`.
    public static func isActive(_ link: InviteLink, at now: Int64) -> Bool {
        (try? checkUsable(link, at: now)) != nil
    }

    /// The links `member` may see: all for the owner and admins, their own for a member.
    public static func visibleLinks(_ links: [InviteLink], to member: Member) -> [InviteLink] {
        member.role == .member ? links.filter { $0.createdBy == member.userId } : links
    }

    /// Throws unless `member` may see the group's join requests.
    public static func checkCanSeeRequests(_ member: Member) throws {
        guard member.role != .member else {
            throw ParleyError(.forbidden, "Only the owner and admins handle join requests.")
        }
    }

    private static func groupProfile(_ state: GroupState) throws -> GroupProfile {
        guard state.kind == .group, let profile = state.profile else {
            throw ParleyError(.forbidden, "Only groups have members to manage and a profile to change.")
        }
        return profile
    }

    /// Throws `group_dissolved` when the group of `profile` was dissolved.
    public static func checkNotDissolved(_ profile: GroupProfile, _ id: ConversationID) throws {
        guard profile.dissolvedAt == nil else { throw dissolved(id) }
    }

    static func dissolved(_ id: ConversationID) -> ParleyError {
        ParleyError(.groupDissolved, "Group \(id) was dissolved; it is read-only.")
    }

    private static func rank(_ role: MemberRole) -> Int {
        switch role {
        case .owner: 2
        case .admin: 1
        case .member: 0
        }
    }

    /// Leaving a dissolved group: no notice (its seq is closed), the leaver's devices drop it
    /// from their list, the others see one member fewer.
    private static func leavingDissolved(_ state: GroupState, by userId: UserID) -> GroupEffects {
        var effects = GroupEffects()
        effects.removed = [userId]
        effects.removedReadUpTo = state.maxSeq
        effects.announcements = removalAnnouncements(
            of: userId, from: state, reason: .left, by: userId, readUpTo: state.maxSeq)
        return effects
    }

    /// `conversation.removed` to the one who goes, `members.removed` to those who stay.
    private static func removalAnnouncements(
        of userId: UserID, from state: GroupState, reason: RemovalReason, by actorId: UserID, readUpTo: Int64
    ) -> [Announcement] {
        [
            Announcement(
                to: [userId],
                ConversationRemoved(conversationId: state.id, reason: reason, removedBy: actorId, lastSeq: readUpTo)
                    .body),
            Announcement(
                to: state.members.map(\.userId).filter { $0 != userId },
                MembersRemoved(
                    conversationId: state.id, userIds: [userId], reason: reason, removedBy: actorId, lastSeq: readUpTo
                ).body),
        ]
    }

    /// `request` answered by `resolver` (nil: settled by the user joining with a link).
    private static func resolve(_ request: JoinRequest, approve: Bool, by resolver: UserID?, at now: Int64)
        -> JoinRequest
    {
        var request = request
        request.state = approve ? .approved : .rejected
        request.resolvedBy = resolver
        request.resolvedAt = now
        return request
    }

    /// `join_request.updated` to the owner, the admins and the one who asks.
    private static func requestAnnouncement(_ request: JoinRequest, in state: GroupState) -> Announcement {
        Announcement(
            to: Array(Set(state.managers + [request.userId])).sorted(), JoinRequestUpdated(request: request).body)
    }

    /// Joining with a link: the link must work (a member already in is simply answered); a
    /// group that wants approval gets a request (merged with one already pending, which a
    /// note alone changes); else the user joins, a pending request of theirs counts as
    /// approved, and the link counts a use.
    private static func useLink(
        _ code: String, message: String, in state: GroupState, profile: GroupProfile, by userId: UserID, at now: Int64
    ) throws -> (effects: GroupEffects, outcome: GroupOutcome) {
        guard var link = state.link(code) else { throw inviteNotFound() }
        guard profile.dissolvedAt == nil else { throw dissolved(state.id) }
        guard state.member(userId) == nil else { return (GroupEffects(), GroupOutcome()) }
        try checkUsable(link, at: now)
        var effects = GroupEffects()
        let pending = state.pendingRequests.first { $0.userId == userId }
        if profile.joinPolicy == .approval {
            if let pending, message.isEmpty || message == pending.message {
                return (effects, GroupOutcome(link: link, request: pending))
            }
            var request =
                pending
                ?? JoinRequest(
                    conversationId: state.id, userId: userId, inviteCode: code, message: message, createdAt: now)
            request.message = message
            if pending == nil {
                link.uses += 1
                effects.links = [link]
            }
            effects.requests = [request]
            effects.announcements = [requestAnnouncement(request, in: state)]
            return (effects, GroupOutcome(link: link, request: request))
        }
        try ConversationRules.checkCapacity(state.members.count + 1, limit: profile.memberLimit)
        link.uses += 1
        effects.links = [link]
        effects.added = [userId]
        effects.notices = [SystemNotice(.memberJoined, by: userId, about: [userId])]
        effects.noticeRecipients = state.members.map(\.userId) + [userId]
        effects.announcements = ConversationRules.joinAnnouncements([userId], to: state.id)
        if let pending {
            let settled = resolve(pending, approve: true, by: nil, at: now)
            effects.requests = [settled]
            effects.announcements.append(requestAnnouncement(settled, in: state))
        }
        return (effects, GroupOutcome(link: link))
    }

    /// The decisions of one change by a member, collected into effects.
    private struct Context {
        let state: GroupState
        var profile: GroupProfile
        let actor: Member
        let now: Int64
        var effects = GroupEffects()
        var outcome = GroupOutcome()

        init(state: GroupState, profile: GroupProfile, actor: Member, now: Int64) {
            self.state = state
            self.profile = profile
            self.actor = actor
            self.now = now
        }

        var result: (effects: GroupEffects, outcome: GroupOutcome) { (effects, outcome) }
        var memberIds: [UserID] { state.members.map(\.userId) }

        func requireManager(_ what: String) throws {
            guard actor.role != .member else {
                throw ParleyError(.forbidden, "Only the owner and admins can \(what).")
            }
        }

        func requireOwner(_ what: String) throws {
            guard actor.role == .owner else { throw ParleyError(.forbidden, "Only the owner can \(what).") }
        }

        func target(_ userId: UserID) throws -> Member {
            guard let member = state.member(userId) else {
                throw ParleyError(.memberNotFound, "User \(userId) is not a member of conversation \(state.id).")
            }
            return member
        }

        /// Throws unless the actor outranks `target`.
        func requireOutranks(_ target: Member, _ what: String) throws {
            guard GroupRules.rank(actor.role) > GroupRules.rank(target.role) else {
                throw ParleyError(
                    .forbidden,
                    target.role == .member
                        ? "Only the owner and admins can \(what) a member."
                        : "Only the owner can \(what) an admin; nobody can \(what) the owner.")
            }
        }

        /// Records a notice (a system message) and the events that go with it.
        mutating func record(_ notices: [SystemNotice], _ announcements: [Announcement], recipients: [UserID]? = nil) {
            effects.notices += notices
            effects.noticeRecipients = recipients ?? memberIds
            effects.announcements += announcements
        }

        mutating func updateProfile(_ edit: UpdateGroupRequest) throws {
            try requireManager("change the group's profile")
            var notices: [SystemNotice] = []
            let actorId = actor.userId
            if let name = edit.name, name != profile.name {
                profile.name = name
                notices.append(SystemNotice(.groupRenamed, by: actorId, text: name))
            }
            if let description = edit.description, description != profile.description {
                profile.description = description
                notices.append(SystemNotice(.descriptionUpdated, by: actorId, text: description))
            }
            if let avatar = edit.avatar, avatar != (profile.avatar ?? "") {
                profile.avatar = avatar.isEmpty ? nil : avatar
                notices.append(SystemNotice(.avatarUpdated, by: actorId))
            }
            if let text = edit.announcement, text != (profile.announcement?.text ?? "") {
                profile.announcement =
                    text.isEmpty ? nil : GroupAnnouncement(text: text, updatedBy: actorId, updatedAt: now)
                notices.append(SystemNotice(.announcementUpdated, by: actorId, text: text))
            }
            if let policy = edit.joinPolicy, policy != profile.joinPolicy {
                profile.joinPolicy = policy
                notices.append(SystemNotice(.joinPolicyUpdated, by: actorId, text: policy.rawValue))
                if policy == .inviteOnly {
                    // Only the owner's and admins' links admit people from now on.
                    let plainMembers = Set(state.members.filter { $0.role == .member }.map(\.userId))
                    revokeLinks { plainMembers.contains($0.createdBy) }
                }
            }
            if let muteAll = edit.muteAll, muteAll != profile.muteAll {
                profile.muteAll = muteAll
                notices.append(SystemNotice(muteAll ? .muteAllOn : .muteAllOff, by: actorId))
            }
            if let open = edit.everyoneMayMentionAll, open != profile.everyoneMayMentionAll {
                profile.everyoneMayMentionAll = open
                notices.append(SystemNotice(open ? .mentionAllOpened : .mentionAllRestricted, by: actorId))
            }
            guard !notices.isEmpty else { return }
            effects.profile = profile
            record(notices, [profileAnnouncement()])
        }

        func profileAnnouncement() -> Announcement {
            Announcement(
                to: memberIds,
                ConversationUpdated(conversationId: state.id, group: profile, updatedBy: actor.userId).body)
        }

        mutating func addMembers(_ ids: [UserID]) throws {
            switch profile.joinPolicy {
            case .open: break
            case .approval: try requireManager("add members to this group directly; share an invite link instead")
            case .inviteOnly: try requireManager("invite people to this group")
            }
            let added = try ConversationRules.membersToAdd(ids, to: .group, current: memberIds)
            try ConversationRules.requireExisting(added, existing: state.existingUsers)
            try ContactRules.checkCanAdd(blocked: state.blockedUsers.intersection(added))
            guard !added.isEmpty else { return }
            try ConversationRules.checkCapacity(memberIds.count + added.count, limit: profile.memberLimit)
            admit(added)
        }

        /// Revokes the working links that match `condition`.
        mutating func revokeLinks(where condition: (InviteLink) -> Bool) {
            for var link in state.links where link.revokedAt == nil && condition(link) {
                link.revokedAt = now
                effects.links.append(link)
            }
        }

        /// Adds `users` with a `member.joined` notice by the actor; their pending requests
        /// count as approved.
        mutating func admit(_ users: [UserID]) {
            effects.added = users
            let approved = state.pendingRequests.filter { users.contains($0.userId) }.map {
                GroupRules.resolve($0, approve: true, by: actor.userId, at: now)
            }
            effects.requests += approved
            record(
                [SystemNotice(.memberJoined, by: actor.userId, about: users)],
                ConversationRules.joinAnnouncements(users, to: state.id)
                    + approved.map { GroupRules.requestAnnouncement($0, in: state) }, recipients: memberIds + users)
        }

        mutating func updateMember(_ userId: UserID, _ edit: UpdateMemberRequest) throws {
            var member = try target(userId)
            let before = member
            var notices: [SystemNotice] = []
            if let nickname = edit.nickname {
                guard userId == actor.userId else {
                    throw ParleyError(.forbidden, "Members set their own group nickname only.")
                }
                member.nickname = nickname.isEmpty ? nil : nickname
            }
            if edit.role != nil { try requireOwner("appoint or remove admins") }
            if let role = edit.role, role != member.role {
                guard role != .owner, member.role != .owner else {
                    throw ParleyError(.invalidField, "Ownership moves with POST /v1/conversations/{id}/transfer.")
                }
                member.role = role
                if role == .member, profile.joinPolicy == .inviteOnly {
                    // Only the owner's and admins' links admit people to an invite-only group.
                    revokeLinks { $0.createdBy == userId }
                }
                notices.append(
                    SystemNotice(role == .admin ? .adminAdded : .adminRemoved, by: actor.userId, about: [userId]))
            }
            if let until = edit.mutedUntil {
                try requireOutranks(before, "mute")
                let lifting = until == 0
                if lifting ? member.isMuted(at: now) : member.mutedUntil != until {
                    member.mutedUntil = lifting ? nil : until
                    notices.append(
                        lifting
                            ? SystemNotice(.memberUnmuted, by: actor.userId, about: [userId])
                            : SystemNotice(.memberMuted, by: actor.userId, about: [userId], until: until))
                }
            }
            guard member != before else { return }
            effects.updatedMembers = [member]
            effects.notices = notices
            effects.noticeRecipients = memberIds
            effects.announcements = [
                Announcement(
                    to: memberIds,
                    MembersUpdated(conversationId: state.id, members: [member], updatedBy: actor.userId).body)
            ]
        }

        mutating func removeMember(_ userId: UserID) throws {
            let member = try target(userId)
            let leaving = userId == actor.userId
            if leaving {
                guard member.role != .owner else {
                    throw ParleyError(
                        .ownerMustTransfer, "The owner cannot leave: transfer the group to a member, or dissolve it.")
                }
            } else {
                try requireOutranks(member, "remove")
            }
            effects.removed = [userId]
            // They may still read up to the notice of their removal, which is the next seq.
            effects.removedReadUpTo = state.maxSeq + 1
            // Links someone made stop admitting people once they are gone.
            revokeLinks { $0.createdBy == userId }
            record(
                [
                    leaving
                        ? SystemNotice(.memberLeft, by: userId)
                        : SystemNotice(.memberRemoved, by: actor.userId, about: [userId])
                ],
                GroupRules.removalAnnouncements(
                    of: userId, from: state, reason: leaving ? .left : .removed, by: actor.userId,
                    readUpTo: effects.removedReadUpTo))
        }

        mutating func transfer(to userId: UserID) throws {
            try requireOwner("transfer the group")
            var heir = try target(userId)
            guard userId != actor.userId else { return }
            var former = actor
            heir.role = .owner
            heir.mutedUntil = nil
            former.role = .admin
            profile.ownerId = userId
            effects.profile = profile
            effects.updatedMembers = [former, heir]
            record(
                [SystemNotice(.ownerTransferred, by: actor.userId, about: [userId])],
                [
                    profileAnnouncement(),
                    Announcement(
                        to: memberIds,
                        MembersUpdated(conversationId: state.id, members: [former, heir], updatedBy: actor.userId).body
                    ),
                ])
        }

        mutating func dissolve() throws {
            try requireOwner("dissolve the group")
            profile.dissolvedAt = now
            effects.profile = profile
            record([SystemNotice(.groupDissolved, by: actor.userId)], [profileAnnouncement()])
        }

        mutating func createLink(code: String, expiresAt: Int64?, maxUses: Int?) throws {
            if profile.joinPolicy == .inviteOnly { try requireManager("create invite links for this group") }
            guard state.links.filter({ GroupRules.isActive($0, at: now) }).count < Limits.maxActiveInviteLinks else {
                throw ParleyError(
                    .tooManyInviteLinks,
                    "A group may have at most \(Limits.maxActiveInviteLinks) working invite links; revoke one first.")
            }
            let link = InviteLink(
                code: code, conversationId: state.id, createdBy: actor.userId, createdAt: now, expiresAt: expiresAt,
                maxUses: maxUses)
            effects.links = [link]
            outcome.link = link
        }

        mutating func revokeLink(_ code: String) throws {
            guard var link = state.link(code) else { throw GroupRules.inviteNotFound() }
            guard actor.role != .member || link.createdBy == actor.userId else {
                throw ParleyError(.forbidden, "Only the owner, admins and the link's creator can revoke it.")
            }
            outcome.link = link
            guard link.revokedAt == nil else { return }
            link.revokedAt = now
            effects.links = [link]
            outcome.link = link
        }

        mutating func resolveRequest(of userId: UserID, approve: Bool) throws {
            try GroupRules.checkCanSeeRequests(actor)
            guard let request = state.pendingRequests.first(where: { $0.userId == userId }) else {
                throw ParleyError(.joinRequestNotFound, "User \(userId) has no pending request to join.")
            }
            guard approve, state.member(userId) == nil else {
                let resolved = GroupRules.resolve(request, approve: approve, by: actor.userId, at: now)
                effects.requests = [resolved]
                outcome.request = resolved
                effects.announcements = [GroupRules.requestAnnouncement(resolved, in: state)]
                return
            }
            try ConversationRules.checkCapacity(memberIds.count + 1, limit: profile.memberLimit)
            admit([userId])
            outcome.request = effects.requests.first
        }
    }
}
