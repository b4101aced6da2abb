// Contacts: ask someone to be friends by username, answer the requests that came, see the
// ones waiting, and open a chat with a friend.

import { fill, h } from './dom.js';
import { avatar } from './format.js';

export class ContactsView {
  constructor(client, { onOpen }) {
    this.client = client;
    this.onOpen = onOpen;
    this.username = h('input', { id: 'friend-username', required: true, spellcheck: 'false' });
    this.note = h('input', { id: 'friend-message', maxlength: '200' });
    this.feedback = h('p', { class: 'form-note', role: 'status', id: 'friend-feedback' });
    const form = h('form', {
      class: 'add-friend', 'aria-labelledby': 'add-friend-title',
      onsubmit: (event) => {
        event.preventDefault();
        this.addFriend();
      },
    },
    h('h3', { id: 'add-friend-title' }, 'Add a friend'),
    h('label', { for: 'friend-username' }, 'Username'), this.username,
    h('label', { for: 'friend-message' }, 'Message (optional)'), this.note,
    h('button', { type: 'submit', class: 'primary', id: 'friend-send' }, 'Send request'),
    this.feedback);
    this.peopleQuery = h('input', { type: 'search', id: 'people-query', 'aria-label': 'Find people by name' });
    this.found = h('ul', { class: 'people', id: 'people-found', 'aria-label': 'People found' });
    const finder = h('form', {
      class: 'add-friend', role: 'search', 'aria-labelledby': 'find-title',
      onsubmit: (event) => {
        event.preventDefault();
        this.findPeople();
      },
    }, h('h3', { id: 'find-title' }, 'Find people'), h('div', { class: 'row' }, this.peopleQuery,
      h('button', { type: 'submit', class: 'ghost', id: 'people-search' }, 'Search')), this.found);
    this.incoming = h('ul', { class: 'people', id: 'incoming-requests', 'aria-labelledby': 'incoming-title' });
    this.blockedList = h('ul', { class: 'people', id: 'blocked', 'aria-labelledby': 'blocked-title' });
    this.outgoing = h('ul', { class: 'people', id: 'outgoing-requests', 'aria-labelledby': 'outgoing-title' });
    this.friends = h('ul', { class: 'people', id: 'friends', 'aria-labelledby': 'friends-title' });
    this.groupFilter = h('select', { id: 'friend-group-filter', 'aria-label': 'Show friends of', onchange: () => this.render() });
    this.newGroupName = h('input', { id: 'friend-group-name', maxlength: '32', 'aria-label': 'New friend group' });
    this.groupForm = h('form', {
      class: 'row', onsubmit: (event) => {
        event.preventDefault();
        const name = this.newGroupName.value.trim();
        if (!name) return;
        this.run(async () => {
          await this.client.createFriendGroup(name);
          this.newGroupName.value = '';
        });
      },
    }, this.newGroupName, h('button', { type: 'submit', class: 'ghost', id: 'friend-group-create' }, 'New friend group'));
    this.editor = new ContactEditor(client, { onError: (message) => { this.feedback.textContent = message; } });
    this.element = h('div', { class: 'contacts' },
      form, finder,
      h('h3', { id: 'incoming-title' }, 'Friend requests'), this.incoming,
      h('h3', { id: 'outgoing-title' }, 'Waiting for an answer'), this.outgoing,
      h('h3', { id: 'friends-title' }, 'Friends'), this.groupFilter, this.groupForm, this.friends, this.editor.element,
      h('h3', { id: 'blocked-title' }, 'Blocked'), this.blockedList);
  }

  async addFriend() {
    const username = this.username.value.trim();
    if (!username) return;
    this.feedback.textContent = 'Sending…';
    try {
      const request = await this.client.addFriend(username, this.note.value.trim());
      this.feedback.textContent = request.status === 'accepted'
        ? `You and ${request.to.nickname} are now friends.`
        : `Request sent to ${request.to.nickname}.`;
      this.username.value = '';
      this.note.value = '';
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }

  render() {
    const { incoming, outgoing } = this.client.requests;
    fill(this.incoming, incoming.length === 0
      ? h('li', { class: 'empty' }, 'No requests.')
      : incoming.map((request) => this.person(request.from, request.message,
        h('button', { type: 'button', class: 'primary', 'data-accept': request.from.username, onclick: () => this.answer(request.id, 'accept') }, 'Accept'),
        h('button', { type: 'button', class: 'ghost', onclick: () => this.answer(request.id, 'reject') }, 'Decline'))));
    fill(this.outgoing, outgoing.length === 0
      ? h('li', { class: 'empty' }, 'None.')
      : outgoing.map((request) => this.person(request.to, request.message)));
    const chosen = this.groupFilter.value;
    fill(this.groupFilter, h('option', { value: '' }, 'All friends'),
      this.client.friendGroups.map((group) => h('option', { value: group.id, selected: String(group.id) === chosen }, group.name)));
    const friends = this.client.contacts.filter((contact) => !chosen || contact.groups.includes(Number(chosen))).sort((a, b) => this.client.nameOf(a.user.id).localeCompare(this.client.nameOf(b.user.id)));
    fill(this.friends, friends.length === 0
      ? h('li', { class: 'empty' }, 'No friends yet.')
      : friends.map((contact) => this.person(contact.user, contact.remark ? `@${contact.user.username}` : '',
        h('button', { type: 'button', class: 'ghost', 'data-message': contact.user.username, onclick: () => this.openChat(contact.user.id) }, 'Message'),
        h('button', { type: 'button', class: 'ghost', 'data-edit': contact.user.username, onclick: () => this.editor.open(contact) }, 'Edit'),
        h('button', { type: 'button', class: 'ghost', 'data-block': contact.user.username, onclick: () => this.run(() => this.client.block(contact.user.id)) }, 'Block'))));
    fill(this.blockedList, this.client.blocked.length === 0
      ? h('li', { class: 'empty' }, 'Nobody.')
      : this.client.blocked.map((entry) => this.person(entry.user, '',
        h('button', { type: 'button', class: 'ghost', 'data-unblock': entry.user.username, onclick: () => this.run(() => this.client.unblock(entry.user.id)) }, 'Unblock'))));
  }

  /** Runs a change; the server's refusal shows in its own words. */
  async run(change) {
    try {
      await change();
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }

  async findPeople() {
    const query = this.peopleQuery.value.trim();
    if (!query) return;
    try {
      const people = await this.client.searchPeople(query);
      const friends = new Set(this.client.contacts.map((contact) => contact.user.id));
      fill(this.found, people.length === 0
        ? h('li', { class: 'empty' }, 'Nobody found.')
        : people.map((user) => this.person(user, '', friends.has(user.id) ? null : h('button', {
          type: 'button', class: 'ghost', 'data-ask': user.username,
          onclick: () => this.run(async () => {
            const request = await this.client.askToBeFriends(user.id);
            this.feedback.textContent = request.status === 'accepted'
              ? `You and ${request.to.nickname} are now friends.` : `Request sent to ${request.to.nickname}.`;
          }),
        }, 'Add'))));
    } catch (error) {
      fill(this.found, h('li', { class: 'empty', role: 'alert' }, error.message));
    }
  }

  person(user, note, ...actions) {
    return h('li', { class: 'person' },
      avatar(this.client, user.avatar, user.nickname),
      h('span', { class: 'summary' },
        h('span', { class: 'title' }, this.client.nameOf(user.id) === `User ${user.id}` ? user.nickname : this.client.nameOf(user.id), h('span', { class: 'handle' }, ` @${user.username}`)),
        note ? h('span', { class: 'preview' }, note) : null),
      h('span', { class: 'actions' }, actions));
  }

  async answer(requestId, answer) {
    try {
      await this.client.answerRequest(requestId, answer);
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }

  async openChat(userId) {
    try {
      this.onOpen(await this.client.openDirect(userId));
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }
}

/** A friend's remark (what I call them) and the friend groups they are in. */
class ContactEditor {
  constructor(client, { onError }) {
    this.client = client;
    this.onError = onError;
    this.remark = h('input', { id: 'contact-remark', maxlength: '64' });
    this.groups = h('fieldset', { class: 'friend-picks' });
    this.title = h('h2', { id: 'contact-editor-title' });
    this.element = h('dialog', { class: 'group-panel', id: 'contact-editor', 'aria-labelledby': 'contact-editor-title' },
      h('form', {
        class: 'panel-section', onsubmit: (event) => {
          event.preventDefault();
          this.save();
        },
      }, this.title, h('label', { for: 'contact-remark' }, 'What you call them (only you see it)'), this.remark, this.groups,
      h('div', { class: 'row' },
        h('button', { type: 'submit', class: 'primary', id: 'contact-save' }, 'Save'),
        h('button', { type: 'button', class: 'ghost', onclick: () => this.element.close() }, 'Cancel'))));
  }

  open(contact) {
    this.contact = contact;
    this.title.textContent = contact.user.nickname;
    this.remark.value = contact.remark;
    fill(this.groups, h('legend', {}, 'Friend groups'),
      this.client.friendGroups.length === 0 ? h('p', {}, 'Make a friend group first.') : null,
      this.client.friendGroups.map((group) => h('div', { class: 'check' },
        h('input', { type: 'checkbox', id: `in-group-${group.id}`, value: group.id, checked: contact.groups.includes(group.id) }),
        h('label', { for: `in-group-${group.id}` }, group.name))));
    this.element.showModal();
  }

  async save() {
    const groups = [...this.groups.querySelectorAll('input:checked')].map((box) => Number(box.value));
    const fields = { groups };
    if (this.remark.value.trim() !== this.contact.remark) fields.remark = this.remark.value.trim();
    try {
      await this.client.updateContact(this.contact.user.id, fields);
      this.element.close();
    } catch (error) {
      this.onError(error.message);
    }
  }
}
