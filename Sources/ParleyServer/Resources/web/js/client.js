// The client engine of the browser app, following protocol.md as the Swift SDK does: on
// every `ready`, sync from the stored cursor, fill the holes by seq, then send what the
// outbox holds, in order, with its original clientMsgId; apply pushes idempotently. Views
// listen for `change` events and read the state from here.

import { Api, ApiError } from './api.js';
import { Connection } from './connection.js';
import { FileLinks, describeImage, upload } from './files.js';
import { previewOf } from './format.js';
import { LocalStore, mergeConversation } from './store.js';

/** How many messages back a conversation is filled before the user scrolls up. */
const RECENT = 100;
const HISTORY_PAGE = 200;

export class Client extends EventTarget {
  /** Opens the client of a logged-in session (as stored: tokens, account). */
  static async open(session, { onSessionEnded }) {
    const store = await LocalStore.open(session.account.user.id);
    return new Client(session, store, onSessionEnded);
  }

  constructor(session, store, onSessionEnded) {
    super();
    this.me = session.account.user;
    this.account = session.account;
    this.store = store;
    this.sessionEnded = onSessionEnded;
    this.api = new Api(session, {
      onTokens: (updated) => localStorage.setItem('parley.session', JSON.stringify(updated)),
      onSessionEnded: () => this.endSession(),
    });
    this.connection = new Connection({
      token: () => this.api.accessToken,
      refresh: () => this.api.refresh(this.api.accessToken),
      onSessionEnded: () => this.endSession(),
    });
    this.conversations = new Map();
    this.users = new Map([[this.me.id, this.me]]);
    this.contacts = [];
    this.blocked = [];
    this.friendGroups = [];
    this.requests = { incoming: [], outgoing: [], ignored: [] };
    this.outbox = [];
    this.typing = new Map();
    /** Friends' presence by user id, as the server lets me see it (`online`, `offline`, `hidden`). */
    this.presence = new Map();
    this.recentlyApplied = new Set();
    this.flushing = false;
    this.flushTimer = null;
    this.syncing = null;
    /** Events pushed while a sync page is fetched and applied: applied again after it. */
    this.pushedDuringSync = null;
    /** The catch-up to run again after one failed while online, and how long it waits (ms). */
    this.catchUpTimer = null;
    this.catchUpDelay = 0;
    this.openConversationId = null;
    /** The text of my messages recalled from this page, by message id: for "re-edit". */
    this.recalledTexts = new Map();
    this.fileLinks = new FileLinks(this.api);
    /** Upload progress of queued messages (0…1), by clientMsgId. */
    this.progress = new Map();
    this.connection.addEventListener('state', () => this.changed('connection'));
    this.connection.addEventListener('ready', () => this.afterReady());
    this.connection.addEventListener('push', (event) => this.applyPush(event.detail));
    document.addEventListener('visibilitychange', () => this.markOpenConversationRead());
  }

  /** Shows what is held at once, then connects. */
  async start() {
    for (const conversation of await this.store.all('conversations')) {
      this.conversations.set(conversation.id, conversation);
    }
    for (const user of await this.store.all('users')) this.users.set(user.id, user);
    this.outbox = await this.store.outbox();
    this.changed('conversations');
    this.connection.start();
  }

  async logout() {
    clearTimeout(this.catchUpTimer);
    this.connection.stop();
    try {
      await this.api.request('DELETE', '/v1/session');
    } catch {
      // Logged out here whatever the server says; the session lapses on its own.
    }
    this.store.close();
  }

  endSession() {
    clearTimeout(this.catchUpTimer);
    this.connection.stop();
    this.store.close();
    this.sessionEnded();
  }

  changed(what, detail = {}) {
    this.dispatchEvent(new CustomEvent('change', { detail: { what, ...detail } }));
  }

  // MARK: - Syncing

  /**
   * Catches up after every (re)connection. One that fails while the socket stays up (an
   * error answer, a refused fetch) runs again a second later, then after waits that double
   * up to a minute: no reconnection would run it.
   */
  async afterReady() {
    clearTimeout(this.catchUpTimer);
    this.typing.clear();
    try {
      await this.sync();
      await this.refreshContacts();
      await this.refreshPresence();
      this.catchUpDelay = 0;
      this.flush();
    } catch (error) {
      if (!(error instanceof ApiError)) console.error(error);
      this.catchUpDelay = Math.min(60000, Math.max(1000, this.catchUpDelay * 2));
      this.catchUpTimer = setTimeout(() => {
        if (this.connection.state === 'online') this.afterReady();
      }, this.catchUpDelay);
    }
  }

  /** Syncs from the stored cursor until nothing more, then fills every hole. One at a time. */
  sync() {
    this.syncing ??= (async () => {
      try {
        let hasMore = true;
        while (hasMore) {
          const cursor = await this.store.get('kv', 'cursor');
          this.pushedDuringSync = [];
          const page = await this.connection.request('sync', cursor ? { cursor, limit: 100 } : { limit: 100 });
          const lastMessages = page.conversations.map((c) => c.lastMessage).filter(Boolean);
          await this.store.storeMessages(lastMessages);
          await this.store.applySyncPage(page.conversations, page.cursor);
          for (const conversation of page.conversations) this.holdConversation(conversation);
          for (const event of page.events) await this.applyEvent(event);
          // The page was read before the events pushed meanwhile were written, and may have
          // put back what they changed (or lacked the conversation they found missing): they
          // are applied again after it (protocol.md, "Applying a page"), pushes that come
          // while they are included.
          const covered = Math.max(0, ...page.events.map((event) => event.seq));
          const pushed = this.pushedDuringSync;
          for (let index = 0; index < pushed.length; index += 1) {
            if (pushed[index].seq > covered) await this.applyEvent(pushed[index]);
          }
          this.pushedDuringSync = null;
          hasMore = page.hasMore;
        }
        await this.resolveNames();
        this.changed('conversations');
        for (const conversation of this.conversations.values()) await this.fillHoles(conversation.id);
      } finally {
        this.pushedDuringSync = null;
        this.syncing = null;
      }
    })();
    return this.syncing;
  }

  holdConversation(incoming) {
    const merged = mergeConversation(this.conversations.get(incoming.id), incoming);
    this.conversations.set(merged.id, merged);
    return merged;
  }

  /** The lowest seq this device keeps for a conversation (it grows downwards as the user scrolls up). */
  floor(conversation) {
    const cleared = conversation.settings?.clearedUpToSeq ?? 0;
    return Math.max(cleared + 1, conversation.floor ?? Math.max(1, conversation.maxSeq - RECENT + 1));
  }

  /** Fetches every seq from the floor to maxSeq that is not held (protocol.md, "Filling holes"). */
  async fillHoles(conversationId) {
    const conversation = this.conversations.get(conversationId);
    if (!conversation || conversation.maxSeq === 0) return;
    const from = this.floor(conversation);
    const to = conversation.lastSeq ?? conversation.maxSeq;
    if (from > to) return;
    const held = new Set(await this.store.heldSeqs(conversationId, from, to));
    let fetched = false;
    let seq = from;
    while (seq <= to) {
      if (held.has(seq)) {
        seq += 1;
        continue;
      }
      let end = seq;
      while (end + 1 <= to && !held.has(end + 1)) end += 1;
      let after = seq - 1;
      for (;;) {
        const page = await this.connection.request('history', {
          conversationId, after, before: end + 1, limit: HISTORY_PAGE,
        });
        await this.store.storeMessages(page.messages);
        await this.learnUsersOf(page.messages);
        fetched = fetched || page.messages.length > 0;
        if (!page.hasMore || page.messages.length === 0) break;
        after = page.messages[page.messages.length - 1].seq;
      }
      seq = end + 1;
    }
    if (fetched) {
      await this.resolveNames();
      this.changed('messages', { conversationId });
    }
  }

  /** Fetches older messages of a conversation, below what is held, when the user scrolls up. */
  async loadOlder(conversationId) {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return false;
    const floor = this.floor(conversation);
    const cleared = conversation.settings?.clearedUpToSeq ?? 0;
    if (floor <= cleared + 1) return false;
    conversation.floor = Math.max(cleared + 1, floor - 50);
    await this.store.mergeConversations([conversation]);
    await this.fillHoles(conversationId);
    this.changed('messages', { conversationId }); // shown now, whether fetched or held already
    return true;
  }

  // MARK: - Pushes

  async applyPush(frame) {
    const payload = frame.payload;
    switch (frame.type) {
      case 'message':
        await this.receiveMessages([payload]);
        break;
      case 'event':
        this.pushedDuringSync?.push(payload);
        await this.applyEvent(payload);
        break;
      case 'receipt':
        this.raiseWatermark(payload.conversationId, 'othersReadSeq', payload.seq);
        break;
      case 'delivered':
        this.raiseWatermark(payload.conversationId, 'othersDeliveredSeq', payload.seq);
        break;
      case 'typing':
        this.applyTyping(payload);
        break;
      case 'presence':
        this.presence.set(payload.userId, payload);
        this.changed('presence');
        break;
      default:
        break; // frame types of later versions: ignored, the socket stays open
    }
  }

  /** Stores messages that arrived (push or send result) and fills any hole they reveal. */
  async receiveMessages(messages) {
    const changed = await this.store.storeMessages(messages);
    await this.learnUsersOf(messages);
    const fresh = new Set(changed.map((message) => `${message.conversationId}:${message.seq}`));
    for (const message of messages) {
      const conversation = this.conversations.get(message.conversationId);
      if (!conversation) {
        await this.fetchConversation(message.conversationId);
        continue;
      }
      const updated = { ...conversation, maxSeq: Math.max(conversation.maxSeq, message.seq) };
      if (!conversation.lastMessage || conversation.lastMessage.seq <= message.seq) updated.lastMessage = message;
      if (message.senderId === this.me.id) updated.readSeq = Math.max(updated.readSeq, message.seq);
      else if (fresh.has(`${message.conversationId}:${message.seq}`) && message.seq > updated.readSeq && this.mentionsMe(message)) {
        updated.unreadMentions = (conversation.unreadMentions ?? 0) + 1;
      }
      updated.unreadCount = Math.max(0, updated.maxSeq - updated.readSeq);
      updated.lastActivityAt = Math.max(conversation.lastActivityAt ?? 0, message.sentAt);
      this.conversations.set(updated.id, updated);
      await this.store.mergeConversations([updated]);
      if (message.senderId !== this.me.id && conversation.kind === 'direct') {
        this.connection.request('delivered', { conversationId: message.conversationId, seq: message.seq }).catch(() => {});
      }
      if (message.senderId !== this.me.id) this.notify(updated, message);
    }
    await this.resolveNames();
    const conversationIds = new Set(messages.map((m) => m.conversationId));
    for (const conversationId of conversationIds) {
      await this.fillHoles(conversationId);
      this.changed('messages', { conversationId });
    }
    this.changed('conversations');
    this.markOpenConversationRead();
    return changed;
  }

  /** Whether a message names me, or everyone, in its mentions. */
  mentionsMe(message) {
    return message.content?.mentionAll === true || (message.content?.mentions ?? []).includes(this.me.id);
  }

  raiseWatermark(conversationId, field, seq) {
    const conversation = this.conversations.get(conversationId);
    if (!conversation || (conversation[field] ?? 0) >= seq) return;
    const updated = { ...conversation, [field]: seq };
    if (field === 'readSeq' && seq >= updated.maxSeq) updated.unreadMentions = 0;
    updated.unreadCount = Math.max(0, updated.maxSeq - updated.readSeq);
    this.conversations.set(conversationId, updated);
    this.store.mergeConversations([updated]);
    this.changed('messages', { conversationId });
    this.changed('conversations');
  }

  applyTyping({ conversationId, userId, typing, expiresInMs }) {
    const key = `${conversationId}:${userId}`;
    clearTimeout(this.typing.get(key));
    if (typing) this.typing.set(key, setTimeout(() => this.applyTyping({ conversationId, userId, typing: false }), expiresInMs));
    else this.typing.delete(key);
    this.changed('typing', { conversationId });
  }

  /** The users typing in a conversation now. */
  typists(conversationId) {
    return [...this.typing.keys()]
      .filter((key) => key.startsWith(`${conversationId}:`))
      .map((key) => Number(key.split(':')[1]));
  }

  /** Applies one event of the user's stream; each is harmless to apply twice. */
  async applyEvent(event) {
    switch (event.type) {
      case 'conversation.added':
        await this.fetchConversation(event.conversationId);
        break;
      case 'read.moved':
        this.raiseWatermark(event.conversationId, 'readSeq', event.readSeq);
        break;
      case 'message.updated':
        await this.storeNewForm(event.message);
        break;
      case 'settings.updated':
      case 'conversation.updated': {
        const conversation = this.conversations.get(event.conversationId);
        if (!conversation) break;
        const updated = event.type === 'settings.updated'
          ? { ...conversation, settings: event.settings }
          : { ...conversation, name: event.name, group: event.group };
        this.conversations.set(updated.id, updated);
        await this.store.mergeConversations([updated]);
        this.changed('conversations');
        break;
      }
      case 'conversation.removed': {
        const conversation = this.conversations.get(event.conversationId);
        if (!conversation) break;
        const updated = { ...conversation, lastSeq: event.lastSeq, removed: true };
        this.conversations.set(updated.id, updated);
        await this.store.mergeConversations([updated]);
        this.changed('conversations');
        break;
      }
      case 'members.removed':
      case 'members.updated':
      case 'join_request.updated':
        this.changed('members', { conversationId: event.conversationId });
        break;
      case 'profile.updated':
        this.applyAccount(event.account);
        break;
      case 'friend_request.updated':
      case 'contact.updated':
      case 'contact.removed':
      case 'block.added':
      case 'block.removed':
      case 'friend_group.updated':
      case 'friend_group.removed':
        if (this.connection.state !== 'online') break;
        await this.refreshContacts();
        await this.refreshPresence(); // a new friend's presence comes by no frame of its own
        break;
      default:
        break; // event types of later versions: counted as applied
    }
  }

  async fetchConversation(conversationId) {
    const detail = await this.api.get(`/v1/conversations/${conversationId}`);
    const conversation = this.holdConversation(detail.conversation);
    await this.store.mergeConversations([conversation]);
    await this.resolveNames();
    this.changed('conversations');
    await this.fillHoles(conversationId);
  }

  // MARK: - Sending

  /**
   * Writes a message: shown at once, kept across reloads, sent (again) until the server has
   * it. `files` are Blobs to upload first (an image and its thumbnail), kept with the item.
   */
  async send(conversationId, kind, content, files = null) {
    const item = {
      clientMsgId: crypto.randomUUID(),
      conversationId,
      kind,
      content,
      files,
      order: Date.now() * 1000 + (this.outbox.length % 1000),
      writtenAt: Date.now(),
      failure: null,
    };
    await this.store.put('outbox', item);
    this.outbox.push(item);
    this.changed('messages', { conversationId });
    this.flush();
  }

  /**
   * Sends a file the user picked: a picture (png, jpeg, gif, webp) as an image with its
   * size and a thumbnail made here, anything else as a file. It is uploaded before the
   * message goes, and waits in the outbox (bytes included) until then.
   */
  async sendFile(conversationId, file) {
    const name = file.name || 'file';
    if (/^image\/(png|jpeg|gif|webp)$/.test(file.type)) {
      const { width, height, thumbnail } = await describeImage(file);
      await this.send(conversationId, 'image', { width, height }, { blob: file, thumbnail, name, kind: 'image' });
    } else {
      await this.send(conversationId, 'file', { name: name.slice(0, 255), size: file.size }, { blob: file, name, kind: 'file' });
    }
  }

  /** Sends a recorded voice message (a WebM or other audio Blob) of `durationMs`. */
  async sendVoice(conversationId, blob, durationMs) {
    await this.send(conversationId, 'voice', { durationMs: Math.max(1, Math.round(durationMs)) },
      { blob, name: 'voice.webm', kind: 'voice' });
  }

  /** Uploads what a queued message carries, then keeps only the file ids in it. */
  async uploadFiles(item) {
    const onProgress = (fraction) => {
      this.progress.set(item.clientMsgId, fraction);
      this.changed('messages', { conversationId: item.conversationId });
    };
    const { blob, thumbnail, name, kind } = item.files;
    if (thumbnail) {
      const small = await upload(this.api, thumbnail, { name: `thumbnail-${name}`, kind: 'image' });
      item.content = { ...item.content, thumbnailId: small.fileId };
    }
    const stored = await upload(this.api, blob, { name, kind, onProgress });
    item.content = { ...item.content, fileId: stored.fileId };
    item.files = null;
    this.progress.delete(item.clientMsgId);
    await this.store.put('outbox', item);
  }

  /** Sends a copy of a message into another conversation. */
  async forward(message, conversationId) {
    const answer = await this.connection.request('forward', {
      messageId: message.id, conversationId, clientMsgId: crypto.randomUUID(),
    });
    await this.receiveMessages([answer.message]);
  }

  /** Sends the outbox in order while online; a temporary refusal stops and retries later. */
  async flush() {
    if (this.flushing || this.connection.state !== 'online') return;
    this.flushing = true;
    clearTimeout(this.flushTimer);
    try {
      for (const item of [...this.outbox]) {
        if (item.failure) continue;
        try {
          if (item.files) await this.uploadFiles(item);
          const answer = await this.connection.request('send', {
            conversationId: item.conversationId, clientMsgId: item.clientMsgId, kind: item.kind, content: item.content,
          });
          await this.store.commitSent(answer.message);
          this.outbox = this.outbox.filter((held) => held.clientMsgId !== item.clientMsgId);
          await this.receiveMessages([answer.message]);
        } catch (error) {
          if (error.code === 'network' || error.code === 'timeout') break; // sent again after the reconnect
          if (error.isTemporary) {
            const wait = error.until ? Math.max(1000, error.until - Date.now()) : 5000;
            this.flushTimer = setTimeout(() => this.flush(), wait);
            break;
          }
          item.failure = { code: error.code, message: error.message };
          await this.store.put('outbox', item);
          this.changed('messages', { conversationId: item.conversationId });
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Puts a message that the server refused back in the queue. */
  async retry(clientMsgId) {
    const item = this.outbox.find((held) => held.clientMsgId === clientMsgId);
    if (!item) return;
    item.failure = null;
    await this.store.put('outbox', item);
    this.changed('messages', { conversationId: item.conversationId });
    this.flush();
  }

  /** Drops a message that was never sent. */
  async discard(clientMsgId) {
    const item = this.outbox.find((held) => held.clientMsgId === clientMsgId);
    if (!item || !item.failure) return;
    await this.store.delete('outbox', clientMsgId);
    this.outbox = this.outbox.filter((held) => held.clientMsgId !== clientMsgId);
    this.changed('messages', { conversationId: item.conversationId });
  }

  // MARK: - Message actions

  /** Whether I may still recall a message of mine (the server's window, from `ready`). */
  mayRecall(message) {
    const limit = this.connection.ready?.recallWindowMs;
    return message.senderId === this.me.id && !message.queued && limit !== undefined
      && ['text', 'reply', 'image', 'voice', 'video', 'file', 'sticker', 'location'].includes(message.kind)
      && Date.now() - message.sentAt < limit;
  }

  /** Whether I may still edit the text of a message of mine (the server's window). */
  mayEdit(message) {
    const limit = this.connection.ready?.editWindowMs;
    return message.senderId === this.me.id && !message.queued && limit !== undefined
      && ['text', 'reply'].includes(message.kind) && Date.now() - message.sentAt < limit;
  }

  /** Replaces the text of a message of mine; everyone sees the new text, marked edited. */
  async edit(message, text) {
    const answer = await this.connection.request('edit', { messageId: message.id, text });
    await this.storeNewForm(answer);
  }

  /** Recalls a message: everyone sees it recalled; its text stays here for re-editing. */
  async recall(message) {
    const answer = await this.connection.request('recall', { messageId: message.id });
    if (typeof message.content?.text === 'string') this.recalledTexts.set(message.id, message.content.text);
    await this.storeNewForm(answer);
  }

  /** Stores a recalled or edited form of a message, in the chat and in the chat list. */
  async storeNewForm(message) {
    const [kept] = await this.store.storeMessages([message]);
    const conversation = this.conversations.get(message.conversationId);
    if (kept && conversation?.lastMessage?.seq === kept.seq) {
      const updated = { ...conversation, lastMessage: kept };
      this.conversations.set(updated.id, updated);
      await this.store.mergeConversations([updated]);
    }
    this.changed('messages', { conversationId: message.conversationId });
    this.changed('conversations');
  }

  /** Finds the messages I may read that hold every word of `query`, best first. */
  async searchMessages(query) {
    const page = await this.api.get(`/v1/search/messages?q=${encodeURIComponent(query)}&limit=30`);
    await this.resolveNames();
    return page.hits;
  }

  // MARK: - Reading

  /** What a conversation shows: held messages, then the outbox's, without a message twice. */
  async timeline(conversationId) {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return [];
    const messages = await this.store.messages(conversationId, this.floor(conversation));
    const sent = new Set(messages.map((m) => m.clientMsgId));
    const queued = this.outbox
      .filter((item) => item.conversationId === conversationId && !sent.has(item.clientMsgId))
      .map((item) => ({ ...item, senderId: this.me.id, sentAt: item.writtenAt, queued: true }));
    return [...messages, ...queued];
  }

  setOpenConversation(conversationId) {
    this.openConversationId = conversationId;
    this.markOpenConversationRead();
  }

  /** Moves the read watermark of the conversation on screen, while the page is visible. */
  markOpenConversationRead() {
    const conversation = this.conversations.get(this.openConversationId);
    if (!conversation || document.visibilityState !== 'visible' || this.connection.state !== 'online') return;
    if (conversation.readSeq >= conversation.maxSeq || conversation.removed) return;
    this.connection
      .request('read', { conversationId: conversation.id, seq: conversation.maxSeq })
      .then((answer) => this.raiseWatermark(conversation.id, 'readSeq', answer.seq))
      .catch(() => {});
  }

  sendTyping(conversationId, typing) {
    if (this.connection.state !== 'online') return;
    this.connection.request('typing', { conversationId, typing }).catch(() => {});
  }

  // MARK: - People

  /** The name to show for a user: my remark, else their nickname. */
  nameOf(userId) {
    const contact = this.contacts.find((c) => c.user.id === userId);
    if (contact?.remark) return contact.remark;
    return this.users.get(userId)?.nickname ?? `User ${userId}`;
  }

  /** The avatar file of a conversation: a group's own, or the other person's. */
  avatarOf(conversation) {
    return conversation.kind === 'group' ? conversation.group?.avatar : this.users.get(conversation.peerId)?.avatar;
  }

  /** The title of a conversation: a group's name, or the other person's name. */
  titleOf(conversation) {
    if (conversation.kind === 'group') return conversation.name ?? conversation.group?.name ?? 'Group';
    return this.nameOf(conversation.peerId);
  }

  /** Fetches the profiles of users shown but not yet known. */
  async resolveNames() {
    const wanted = new Set();
    for (const conversation of this.conversations.values()) {
      if (conversation.peerId) wanted.add(conversation.peerId);
      if (conversation.lastMessage) wanted.add(conversation.lastMessage.senderId);
      for (const id of conversation.lastMessage?.content?.userIds ?? []) wanted.add(id);
    }
    const missing = [...wanted].filter((id) => !this.users.has(id));
    await Promise.all(missing.map((id) => this.fetchUser(id)));
  }

  /** Fetches the profiles of the senders and the people named in messages, if unknown. */
  async learnUsersOf(messages) {
    const ids = new Set();
    for (const message of messages) {
      ids.add(message.senderId);
      if (message.content?.actorId) ids.add(message.content.actorId);
      for (const id of message.content?.userIds ?? []) ids.add(id);
    }
    await Promise.all([...ids].filter((id) => !this.users.has(id)).map((id) => this.fetchUser(id)));
  }

  async fetchUser(id) {
    try {
      const user = await this.api.get(`/v1/users/${id}`);
      this.users.set(id, user);
      await this.store.put('users', user);
    } catch {
      // shown as "User <id>" until the next try
    }
  }

  async refreshContacts() {
    const [contacts, requests, blocks, groups] = await Promise.all([
      this.api.get('/v1/contacts'), this.api.get('/v1/friend-requests'), this.api.get('/v1/blocks'),
      this.api.get('/v1/friend-groups'),
    ]);
    this.friendGroups = groups.groups;
    this.contacts = contacts.contacts;
    this.requests = requests;
    this.blocked = blocks.blocked;
    for (const contact of this.contacts) this.users.set(contact.user.id, contact.user);
    this.changed('contacts');
    this.changed('conversations');
  }

  /** Friends' presence, fetched after each `ready`: changes missed while away are not replayed. */
  async refreshPresence() {
    const answer = await this.api.get('/v1/presence');
    this.presence = new Map(answer.users.map((presence) => [presence.userId, presence]));
    this.changed('presence');
  }

  /** "online", "last seen 14:05", or nothing when hidden or unknown. */
  presenceText(userId) {
    const presence = this.presence.get(userId);
    if (presence?.status === 'online') return 'online';
    if (presence?.status === 'offline' && presence.lastSeenAt) {
      return `last seen ${new Date(presence.lastSeenAt).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })}`;
    }
    return '';
  }

  /** Asks a user, found by username, to be friends. Answers the request as it stands. */
  async addFriend(username, message) {
    const user = await this.api.get(`/v1/users/lookup?username=${encodeURIComponent(username)}`);
    return this.askToBeFriends(user.id, message);
  }

  async askToBeFriends(userId, message) {
    const request = await this.api.post('/v1/friend-requests', message ? { userId, message } : { userId });
    await this.refreshContacts();
    return request;
  }

  /** People whose nickname holds `query` (those who let themselves be found so). */
  async searchPeople(query) {
    const page = await this.api.get(`/v1/users/search?q=${encodeURIComponent(query)}&limit=20`);
    return page.users.filter((user) => user.id !== this.me.id);
  }

  /** Makes one of my friend groups (only I see them). */
  async createFriendGroup(name) {
    await this.api.post('/v1/friend-groups', { name });
    await this.refreshContacts();
  }

  /** Sets my remark for a friend and the friend groups they are in. */
  async updateContact(userId, fields) {
    await this.api.request('PATCH', `/v1/contacts/${userId}`, fields);
    await this.refreshContacts();
  }

  async block(userId) {
    await this.api.request('PUT', `/v1/blocks/${userId}`);
    await this.refreshContacts();
  }

  async unblock(userId) {
    await this.api.request('DELETE', `/v1/blocks/${userId}`);
    await this.refreshContacts();
  }

  /** Joins a group with an invite code: answers its conversation id, or null when asked to wait for approval. */
  async joinWithCode(code) {
    const outcome = await this.api.post(`/v1/invites/${encodeURIComponent(code.trim())}`, {});
    if (!outcome.conversation) return null;
    await this.holdDetail(outcome.conversation);
    return outcome.conversation.conversation.id;
  }

  async answerRequest(requestId, answer) {
    await this.api.post(`/v1/friend-requests/${requestId}`, { answer });
    await this.refreshContacts();
  }

  /** The direct conversation with a user, opened if needed. */
  async openDirect(userId) {
    const detail = await this.api.post('/v1/conversations/direct', { userId });
    const conversation = this.holdConversation(detail.conversation);
    await this.store.mergeConversations([conversation]);
    this.changed('conversations');
    await this.fillHoles(conversation.id);
    return conversation.id;
  }

  // MARK: - My settings for a conversation

  /** Sets `pinned`, `muted`, `hidden` or `draft` for a conversation, on all my devices. */
  async updateSettings(conversationId, fields) {
    const summary = await this.api.request('PATCH', `/v1/conversations/${conversationId}/settings`, fields);
    const conversation = { ...this.holdConversation(summary), settings: summary.settings };
    this.conversations.set(conversationId, conversation);
    await this.store.mergeConversations([conversation]);
    this.changed('conversations');
  }

  // MARK: - Me

  /** Changes my profile (nickname, signature, avatar, …) and answers my account. */
  async updateProfile(fields) {
    const account = await this.api.request('PATCH', '/v1/me', fields);
    this.applyAccount(account);
    return account;
  }

  applyAccount(account) {
    this.account = account;
    this.me = account.user;
    this.users.set(this.me.id, this.me);
    this.changed('account');
  }

  // MARK: - Groups

  /** Creates a group with me as its owner and answers its conversation id. */
  async createGroup(name, memberIds) {
    const detail = await this.api.post('/v1/conversations', { name, memberIds });
    await this.holdDetail(detail);
    return detail.conversation.id;
  }

  /** A group as it stands, with its members (fetched). */
  async groupDetail(conversationId) {
    const detail = await this.api.get(`/v1/conversations/${conversationId}`);
    await this.holdDetail(detail);
    return detail;
  }

  async holdDetail(detail) {
    const conversation = this.holdConversation(detail.conversation);
    await this.store.mergeConversations([conversation]);
    for (const member of detail.members ?? []) {
      if (!this.users.has(member.userId)) await this.fetchUser(member.userId);
    }
    this.changed('conversations');
  }

  /** Changes the group's profile (name, announcement, muteAll, …): owner and admins. */
  async updateGroup(conversationId, fields) {
    await this.holdDetail(await this.connection.request('update_group', { conversationId, ...fields }));
  }

  addMembers(conversationId, userIds) {
    return this.api.post(`/v1/conversations/${conversationId}/members`, { userIds });
  }

  /** Sets a member's `role`, `mutedUntil` or (my own) `nickname`. */
  updateMember(conversationId, userId, fields) {
    return this.api.request('PATCH', `/v1/conversations/${conversationId}/members/${userId}`, fields);
  }

  /** Removes a member, or, with my own id, leaves. */
  removeMember(conversationId, userId) {
    return this.api.request('DELETE', `/v1/conversations/${conversationId}/members/${userId}`);
  }

  /** Hands the group to another member (the owner only). */
  transferGroup(conversationId, userId) {
    return this.api.post(`/v1/conversations/${conversationId}/transfer`, { userId });
  }

  /** Ends the group for good: read-only from then on (the owner only). */
  dissolveGroup(conversationId) {
    return this.api.post(`/v1/conversations/${conversationId}/dissolve`);
  }

  async joinRequests(conversationId) {
    return (await this.api.get(`/v1/conversations/${conversationId}/join-requests`)).requests;
  }

  resolveJoinRequest(conversationId, userId, approve) {
    return this.api.post(`/v1/conversations/${conversationId}/join-requests/${userId}`, { approve });
  }

  createInvite(conversationId) {
    return this.api.post(`/v1/conversations/${conversationId}/links`, {});
  }

  // MARK: - Notifications

  notify(conversation, message) {
    if (document.visibilityState === 'visible' || conversation.settings?.muted) return;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const notification = new Notification(this.titleOf(conversation), {
      body: previewOf(message, this), tag: `conversation-${conversation.id}`,
    });
    notification.onclick = () => {
      window.focus();
      this.changed('open', { conversationId: conversation.id });
    };
  }
}
