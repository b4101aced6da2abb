// The messenger screen: the header (connection state, me, theme, log out), the sidebar
// (chats and contacts) and the open conversation. At phone width the sidebar and the
// conversation take the whole screen in turn.

import { applyTheme, fill, h } from './dom.js';
import { avatar, clock, previewOf } from './format.js';
import { ChatView } from './chat.js';
import { ContactsView } from './contacts.js';
import { JoinForm, NewGroupDialog } from './group.js';
import { SettingsPanel } from './settings.js';

const STATE_TEXT = {
  online: 'Online',
  connecting: 'Connecting…',
  offline: 'Offline: messages are kept and sent when you are back',
};

export class Messenger {
  constructor(client, { onLogout }) {
    this.client = client;
    this.tab = 'chats';
    this.status = h('span', { class: 'connection', role: 'status', id: 'connection-state' });
    this.me = h('span', { class: 'me', id: 'me' });
    const theme = h('button', {
      type: 'button', class: 'ghost', id: 'theme-toggle', onclick: () => this.toggleTheme(),
    }, 'Day / night');
    const logout = h('button', { type: 'button', class: 'ghost', id: 'logout', onclick: onLogout }, 'Log out');
    this.settings = new SettingsPanel(client);
    const settings = h('button', { type: 'button', class: 'ghost', id: 'settings-open', onclick: () => this.settings.open() }, 'Settings');
    const header = h('header', { class: 'topbar' }, h('span', { class: 'brand' }, 'Parley'), this.status,
      h('span', { class: 'spacer' }), this.me, theme, settings, logout, this.settings.element);

    this.chatsTab = h('button', { type: 'button', role: 'tab', id: 'tab-chats', onclick: () => this.showTab('chats') }, 'Chats');
    this.contactsTab = h('button', { type: 'button', role: 'tab', id: 'tab-contacts', onclick: () => this.showTab('contacts') }, 'Contacts');
    this.requestBadge = h('span', { class: 'badge', hidden: true });
    this.contactsTab.append(this.requestBadge);
    this.list = h('ul', { class: 'conversation-list', id: 'conversation-list', 'aria-label': 'Chats' });
    this.newGroup = new NewGroupDialog(client, { onCreated: (id) => this.open(id) });
    this.joinForm = new JoinForm(client, { onJoined: (id) => this.open(id) });
    this.chats = h('div', { class: 'chats' },
      h('div', { class: 'list-actions' },
        h('button', { type: 'button', class: 'ghost', id: 'join-open', onclick: () => this.joinForm.toggle() }, 'Join with a code'),
        h('button', { type: 'button', class: 'ghost', id: 'new-group-open', onclick: () => this.newGroup.open() }, 'New group')),
      this.joinForm.element, this.list, this.newGroup.element);
    this.contacts = new ContactsView(client, { onOpen: (id) => this.open(id) });
    this.sidebarBody = h('div', { class: 'sidebar-body' });
    this.searchInput = h('input', {
      type: 'search', id: 'search', placeholder: 'Search messages', 'aria-label': 'Search messages',
      oninput: () => this.searchSoon(),
    });
    this.searchResults = h('ul', { class: 'search-results', id: 'search-results', 'aria-label': 'Messages found' });
    this.searchTimer = null;
    this.sidebar = h('nav', { class: 'sidebar', 'aria-label': 'Chats and contacts' },
      h('form', { class: 'search', role: 'search', onsubmit: (event) => { event.preventDefault(); this.search(); } }, this.searchInput),
      h('div', { class: 'tabs', role: 'tablist' }, this.chatsTab, this.contactsTab), this.sidebarBody);
    this.chat = new ChatView(client, { onBack: () => this.open(null) });
    this.element = h('div', { class: 'messenger', 'data-view': 'list' }, header, h('div', { class: 'panes' }, this.sidebar, this.chat.element));

    client.addEventListener('change', (event) => this.update(event.detail));
    this.showTab('chats');
    this.update({ what: 'connection' });
    this.update({ what: 'account' });
    if (typeof Notification !== 'undefined' && Notification.permission === 'default') {
      document.addEventListener('click', () => Notification.requestPermission(), { once: true });
    }
  }

  toggleTheme() {
    const current = document.documentElement.dataset.theme
      ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'night' : 'day');
    const next = current === 'night' ? 'day' : 'night';
    localStorage.setItem('parley.theme', next);
    applyTheme(next);
  }

  searchSoon() {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.search(), 250);
  }

  /** Shows the messages found for what is typed in the search field, or the tab again. */
  async search() {
    const query = this.searchInput.value.trim();
    if (!query) return this.showTab(this.tab);
    fill(this.sidebarBody, this.searchResults);
    try {
      const hits = await this.client.searchMessages(query);
      if (query !== this.searchInput.value.trim()) return;
      fill(this.searchResults, hits.length === 0
        ? h('li', { class: 'empty' }, 'No messages found.')
        : hits.map((hit) => this.searchHit(hit)));
    } catch (error) {
      fill(this.searchResults, h('li', { class: 'empty', role: 'alert' }, error.message));
    }
  }

  searchHit({ message, highlights }) {
    const conversation = this.client.conversations.get(message.conversationId);
    const text = message.content.text ?? message.content.name ?? '';
    const parts = [];
    let at = 0;
    for (const { start, length } of highlights) {
      parts.push(text.slice(at, start), h('mark', {}, text.slice(start, start + length)));
      at = start + length;
    }
    parts.push(text.slice(at));
    return h('li', {},
      h('button', { type: 'button', class: 'conversation', onclick: () => this.open(message.conversationId) },
        h('span', { class: 'summary' },
          h('span', { class: 'title' }, conversation ? this.client.titleOf(conversation) : 'Conversation',
            conversation?.kind === 'group' ? ` · ${this.client.nameOf(message.senderId)}` : ''),
          h('span', { class: 'preview hit' }, parts)),
        h('span', { class: 'meta' }, clock(message.sentAt))));
  }

  showTab(tab) {
    this.tab = tab;
    this.chatsTab.setAttribute('aria-selected', String(tab === 'chats'));
    this.contactsTab.setAttribute('aria-selected', String(tab === 'contacts'));
    fill(this.sidebarBody, tab === 'chats' ? this.chats : this.contacts.element);
    if (tab === 'contacts') this.contacts.render();
  }

  open(conversationId) {
    this.element.dataset.view = conversationId ? 'chat' : 'list';
    this.chat.show(conversationId);
    this.renderList();
  }

  update({ what, conversationId }) {
    switch (what) {
      case 'connection':
        this.status.textContent = STATE_TEXT[this.client.connection.state];
        this.status.dataset.state = this.client.connection.state;
        this.chat.renderState();
        break;
      case 'presence':
        this.renderList();
        this.chat.renderHeader();
        break;
      case 'account':
        this.me.textContent = this.client.me.nickname;
        break;
      case 'conversations':
        this.renderList();
        this.chat.renderHeader();
        break;
      case 'contacts': {
        const waiting = this.client.requests.incoming.length;
        this.requestBadge.hidden = waiting === 0;
        this.requestBadge.textContent = String(waiting);
        this.requestBadge.setAttribute('aria-label', `${waiting} friend requests`);
        if (this.tab === 'contacts') this.contacts.render();
        break;
      }
      case 'messages':
      case 'typing':
        if (conversationId === this.chat.conversationId) this.chat.render();
        break;
      case 'open':
        this.open(conversationId);
        break;
      default:
        break;
    }
  }

  /** Pinned first (in the order pinned), then by last activity; hidden ones left out. */
  renderList() {
    const conversations = [...this.client.conversations.values()]
      .filter((c) => !(c.settings?.hiddenUpToSeq !== undefined && c.maxSeq <= c.settings.hiddenUpToSeq))
      .sort((a, b) => {
        const pinA = a.settings?.pinnedAt;
        const pinB = b.settings?.pinnedAt;
        if (pinA !== undefined || pinB !== undefined) {
          if (pinA === undefined) return 1;
          if (pinB === undefined) return -1;
          return pinA - pinB;
        }
        return (b.lastActivityAt ?? 0) - (a.lastActivityAt ?? 0);
      });
    if (conversations.length === 0) {
      fill(this.list, h('li', { class: 'empty' }, 'No chats yet. Add a friend under Contacts to start one.'));
      return;
    }
    fill(this.list, conversations.map((conversation) => this.listItem(conversation)));
  }

  listItem(conversation) {
    const title = this.client.titleOf(conversation);
    const last = conversation.lastMessage;
    const queued = this.client.outbox.filter((item) => item.conversationId === conversation.id);
    const draft = conversation.settings?.draft;
    let preview = '';
    if (queued.length > 0) preview = previewOf(queued[queued.length - 1], this.client);
    else if (draft) preview = `Draft: ${draft}`;
    else if (last) preview = previewOf(last, this.client);
    // A group I left or was removed from cannot be marked read: it shows nothing unread.
    const unread = conversation.removed ? 0 : conversation.unreadCount ?? 0;
    const muted = conversation.settings?.muted;
    const badge = unread > 0
      ? h('span', { class: muted ? 'badge muted' : 'badge', 'aria-label': `${unread} unread` }, muted ? '' : String(unread))
      : null;
    const mention = conversation.unreadMentions > 0 ? h('span', { class: 'mention', 'aria-label': 'mentions you' }, '@') : null;
    return h('li', {},
      h('button', {
        type: 'button', class: 'conversation', 'data-conversation-id': conversation.id,
        'aria-current': conversation.id === this.chat.conversationId ? 'true' : undefined,
        onclick: () => this.open(conversation.id),
      },
      h('span', { class: 'avatar-wrap' }, avatar(this.client, this.client.avatarOf(conversation), title),
        conversation.kind === 'direct' && this.client.presence.get(conversation.peerId)?.status === 'online'
          ? h('span', { class: 'online-dot', role: 'img', 'aria-label': 'online' }) : null),
      h('span', { class: 'summary' },
        h('span', { class: 'title-row' },
          h('span', { class: 'title' }, title),
          conversation.settings?.pinnedAt ? h('span', { class: 'flag pinned', role: 'img', 'aria-label': 'pinned' }, '📌') : null,
          muted ? h('span', { class: 'flag muted', role: 'img', 'aria-label': 'muted' }, '🔕') : null),
        h('span', { class: 'preview' }, preview)),
      h('span', { class: 'meta' },
        h('span', { class: 'time' }, last ? clock(last.sentAt) : ''),
        mention, badge)));
  }
}
