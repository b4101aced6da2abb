// A group's panel: its name, announcement and rules, its members with their roles, and
// what my role lets me do (docs/protocol.md, "Who may do what"): rename, announce, mute
// everyone, add friends, make admins, remove, share an invite link, leave. The server
// enforces every rule; the panel only leaves out buttons that could not work.

import { fill, h, panel } from './dom.js';

const RANK = { owner: 3, admin: 2, member: 1 };

export class GroupPanel {
  constructor(client) {
    this.client = client;
    this.conversationId = null;
    this.body = h('div', { class: 'group-body' });
    this.error = h('p', { class: 'form-error', role: 'alert', id: 'group-error' });
    this.element = panel('group-panel', 'Group', 'Close', this.error, this.body);
    client.addEventListener('change', (event) => {
      const { what, conversationId } = event.detail;
      if (this.element.open && conversationId === this.conversationId && ['members', 'messages'].includes(what)) this.refresh();
    });
  }

  async open(conversationId) {
    this.conversationId = conversationId;
    this.inviteCode = null; // the code made last, shown until the panel closes
    this.error.textContent = '';
    fill(this.body, h('p', {}, 'Loading…'));
    if (!this.element.open) this.element.showModal();
    await this.refresh();
  }

  /** Fetches and shows the group; an answer overtaken by a later refresh is dropped. */
  async refresh() {
    const ticket = (this.refreshes = (this.refreshes ?? 0) + 1);
    try {
      const detail = await this.client.groupDetail(this.conversationId);
      const me = detail.members.find((member) => member.userId === this.client.me.id);
      const requests = RANK[me?.role] >= RANK.admin ? await this.client.joinRequests(this.conversationId) : [];
      for (const request of requests) {
        if (!this.client.users.has(request.userId)) await this.client.fetchUser(request.userId);
      }
      if (ticket === this.refreshes) this.render(detail, requests);
    } catch (error) {
      if (ticket === this.refreshes) this.error.textContent = error.message;
    }
  }

  /** Runs a change; the server's refusal is shown in its own words. */
  async act(change) {
    this.error.textContent = '';
    try {
      await change();
      await this.refresh();
    } catch (error) {
      this.error.textContent = error.message;
    }
  }

  render({ conversation, members }, requests) {
    const group = conversation.group;
    const me = members.find((member) => member.userId === this.client.me.id);
    const myRank = RANK[me?.role] ?? 0;
    const manages = myRank >= RANK.admin && !group.dissolvedAt;
    const id = conversation.id;
    const sections = [];

    const name = h('input', { id: 'group-name', value: group.name, maxlength: '64', disabled: !manages });
    sections.push(h('form', {
      class: 'panel-section', onsubmit: (event) => {
        event.preventDefault();
        this.act(() => this.client.updateGroup(id, { name: name.value }));
      },
    }, h('label', { for: 'group-name' }, 'Name'), h('div', { class: 'row' }, name,
      manages ? h('button', { type: 'submit', class: 'primary', id: 'group-rename' }, 'Rename') : null)));

    const announcement = h('textarea', { id: 'group-announcement', rows: '3', maxlength: '2000', disabled: !manages },
      group.announcement?.text ?? '');
    sections.push(h('form', {
      class: 'panel-section', onsubmit: (event) => {
        event.preventDefault();
        this.act(() => this.client.updateGroup(id, { announcement: announcement.value }));
      },
    }, h('label', { for: 'group-announcement' }, 'Announcement'), announcement,
    manages ? h('button', { type: 'submit', class: 'primary', id: 'group-announce' }, 'Post announcement') : null));

    if (manages) {
      const policy = h('select', {
        id: 'group-join-policy', onchange: () => this.act(() => this.client.updateGroup(id, { joinPolicy: policy.value })),
      }, [['open', 'Anyone in the group may add people'], ['approval', 'Admins approve who joins with a code'],
        ['invite_only', 'Only the owner and admins add people']]
        .map(([value, text]) => h('option', { value, selected: group.joinPolicy === value }, text)));
      sections.push(h('div', { class: 'panel-section' }, h('label', { for: 'group-join-policy' }, 'Who may join'), policy));
      const muteAll = h('input', {
        type: 'checkbox', id: 'group-mute-all', checked: group.muteAll,
        onchange: () => this.act(() => this.client.updateGroup(id, { muteAll: muteAll.checked })),
      });
      sections.push(h('div', { class: 'panel-section check' }, muteAll,
        h('label', { for: 'group-mute-all' }, 'Only the owner and admins may send')));
    }

    sections.push(h('h3', {}, `Members (${members.length})`),
      h('ul', { class: 'people', id: 'group-members' }, members
        .sort((a, b) => RANK[b.role] - RANK[a.role] || this.client.nameOf(a.userId).localeCompare(this.client.nameOf(b.userId)))
        .map((member) => this.memberItem(id, member, me, group))));

    if (requests.length > 0) {
      sections.push(h('h3', {}, 'Asking to join'), h('ul', { class: 'people', id: 'join-requests' }, requests.map((request) =>
        h('li', { class: 'person', 'data-join-request': request.userId },
          h('span', { class: 'summary' },
            h('span', { class: 'title' }, this.client.nameOf(request.userId)),
            request.message ? h('span', { class: 'preview' }, request.message) : null),
          h('span', { class: 'actions' },
            h('button', { type: 'button', class: 'primary', 'data-approve': request.userId, onclick: () => this.act(() => this.client.resolveJoinRequest(id, request.userId, true)) }, 'Approve'),
            h('button', { type: 'button', class: 'ghost', onclick: () => this.act(() => this.client.resolveJoinRequest(id, request.userId, false)) }, 'Decline'))))));
    }

    const mayAdd = !group.dissolvedAt && (group.joinPolicy === 'open' || manages);
    const memberIds = new Set(members.map((member) => member.userId));
    const candidates = this.client.contacts.filter((contact) => !memberIds.has(contact.user.id));
    if (mayAdd && candidates.length > 0) {
      const pick = h('select', { id: 'group-add-pick' },
        candidates.map((contact) => h('option', { value: contact.user.id }, this.client.nameOf(contact.user.id))));
      sections.push(h('form', {
        class: 'panel-section', onsubmit: (event) => {
          event.preventDefault();
          this.act(() => this.client.addMembers(id, [Number(pick.value)]));
        },
      }, h('label', { for: 'group-add-pick' }, 'Add a friend'), h('div', { class: 'row' }, pick,
        h('button', { type: 'submit', class: 'primary', id: 'group-add' }, 'Add'))));
    }

    const mayInvite = !group.dissolvedAt && (group.joinPolicy !== 'invite_only' || manages);
    if (mayInvite) {
      sections.push(h('div', { class: 'panel-section' },
        h('button', {
          type: 'button', class: 'ghost', id: 'group-invite',
          onclick: () => this.act(async () => {
            this.inviteCode = (await this.client.createInvite(id)).code;
          }),
        }, 'Create an invite code'),
        h('output', { id: 'group-invite-code', class: 'invite-code' }, this.inviteCode ?? '')));
    }

    if (me?.role === 'owner' && !group.dissolvedAt) {
      sections.push(h('button', {
        type: 'button', class: 'danger', id: 'group-dissolve',
        onclick: () => {
          if (confirm('Dissolve the group for everyone? It becomes read-only for good.')) {
            this.act(() => this.client.dissolveGroup(id));
          }
        },
      }, 'Dissolve the group'));
    }
    if (me && (me.role !== 'owner' || group.dissolvedAt)) {
      sections.push(h('button', {
        type: 'button', class: 'danger', id: 'group-leave',
        onclick: () => this.act(async () => {
          await this.client.removeMember(id, this.client.me.id);
          this.element.close();
        }),
      }, 'Leave the group'));
    }
    fill(this.body, sections);
  }

  memberItem(conversationId, member, me, group) {
    const userId = member.userId;
    const isMe = userId === this.client.me.id;
    const actions = [];
    const active = !group.dissolvedAt && me;
    if (active && me.role === 'owner' && !isMe) {
      const next = member.role === 'admin' ? 'member' : 'admin';
      actions.push(h('button', {
        type: 'button', class: 'ghost', 'data-role-for': userId,
        onclick: () => this.act(() => this.client.updateMember(conversationId, userId, { role: next })),
      }, next === 'admin' ? 'Make admin' : 'Make member'));
    }
    const muted = (member.mutedUntil ?? 0) > Date.now();
    // The owner mutes admins and members, admins mute members; nobody mutes the owner.
    if (active && !isMe && member.role !== 'owner' && (me.role === 'owner' || (me.role === 'admin' && member.role === 'member'))) {
      actions.push(h('button', {
        type: 'button', class: 'ghost', 'data-mute': userId,
        onclick: () => this.act(() => this.client.updateMember(conversationId, userId, { mutedUntil: muted ? 0 : Date.now() + 3_600_000 })),
      }, muted ? 'Lift mute' : 'Mute 1 h'));
    }
    if (active && !isMe && RANK[me.role] > RANK[member.role] && RANK[me.role] >= RANK.admin) {
      actions.push(h('button', {
        type: 'button', class: 'ghost', 'data-remove': userId,
        onclick: () => this.act(() => this.client.removeMember(conversationId, userId)),
      }, 'Remove'));
    }
    if (active && me.role === 'owner' && !isMe) {
      actions.push(h('button', {
        type: 'button', class: 'ghost', 'data-transfer': userId,
        onclick: () => this.act(() => this.client.transferGroup(conversationId, userId)),
      }, 'Make owner'));
    }
    const name = member.nickname ?? this.client.nameOf(userId);
    return h('li', { class: 'person', 'data-member': userId },
      h('span', { class: 'summary' },
        h('span', { class: 'title' }, isMe ? `${name} (you)` : name),
        h('span', { class: 'preview' }, member.role === 'member' ? 'Member' : member.role === 'admin' ? 'Admin' : 'Owner',
          muted ? ` · muted until ${new Date(member.mutedUntil).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}` : '')),
      h('span', { class: 'actions' }, actions));
  }
}

/** The dialog that makes a new group from a name and friends. */
export class NewGroupDialog {
  constructor(client, { onCreated }) {
    this.client = client;
    this.onCreated = onCreated;
    this.name = h('input', { id: 'new-group-name', maxlength: '64', required: true });
    this.friends = h('fieldset', { class: 'friend-picks' });
    this.error = h('p', { class: 'form-error', role: 'alert' });
    this.element = h('dialog', { class: 'group-panel', id: 'new-group', 'aria-labelledby': 'new-group-title' },
      h('form', {
        class: 'panel-section', onsubmit: (event) => {
          event.preventDefault();
          this.create();
        },
      },
      h('h2', { id: 'new-group-title' }, 'New group'),
      h('label', { for: 'new-group-name' }, 'Name'), this.name,
      this.friends, this.error,
      h('div', { class: 'row' },
        h('button', { type: 'submit', class: 'primary', id: 'new-group-create' }, 'Create'),
        h('button', { type: 'button', class: 'ghost', onclick: () => this.element.close() }, 'Cancel'))));
  }

  open() {
    this.name.value = '';
    this.error.textContent = '';
    fill(this.friends, h('legend', {}, 'Friends to add'),
      this.client.contacts.length === 0 ? h('p', {}, 'Add friends first, under Contacts.') : null,
      this.client.contacts.map((contact) => {
        const box = h('input', { type: 'checkbox', value: contact.user.id, id: `pick-${contact.user.id}`, 'data-username': contact.user.username });
        return h('div', { class: 'check' }, box, h('label', { for: `pick-${contact.user.id}` }, this.client.nameOf(contact.user.id)));
      }));
    this.element.showModal();
    this.name.focus();
  }

  async create() {
    const memberIds = [...this.friends.querySelectorAll('input:checked')].map((box) => Number(box.value));
    try {
      const conversationId = await this.client.createGroup(this.name.value, memberIds);
      this.element.close();
      this.onCreated(conversationId);
    } catch (error) {
      this.error.textContent = error.message;
    }
  }
}

/** Joining a group with an invite code someone shared. */
export class JoinForm {
  constructor(client, { onJoined }) {
    this.client = client;
    this.code = h('input', { id: 'join-code', spellcheck: 'false', maxlength: '64' });
    this.note = h('p', { class: 'form-note', role: 'status', id: 'join-feedback' });
    this.element = h('form', {
      class: 'panel-section join', hidden: true, onsubmit: async (event) => {
        event.preventDefault();
        this.note.textContent = '';
        try {
          const conversationId = await this.client.joinWithCode(this.code.value);
          if (conversationId === null) {
            this.note.textContent = 'Asked to join: an admin of the group will answer.';
          } else {
            this.code.value = '';
            this.element.hidden = true;
            onJoined(conversationId);
          }
        } catch (error) {
          this.note.textContent = error.message;
        }
      },
    }, h('label', { for: 'join-code' }, 'Invite code'), h('div', { class: 'row' }, this.code,
      h('button', { type: 'submit', class: 'primary', id: 'join-submit' }, 'Join')), this.note);
  }

  toggle() {
    this.element.hidden = !this.element.hidden;
    if (!this.element.hidden) this.code.focus();
  }
}
