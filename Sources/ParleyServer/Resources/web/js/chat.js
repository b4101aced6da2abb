// The open conversation: its messages by seq with day separators and sender grouping,
// each of mine with its state (waiting, sent, delivered, read, or refused with the server's
// words), older pages fetched when scrolled to the top, and the composer.

import { fill, h } from './dom.js';
import { clock, dayLabel, previewOf, readableSize } from './format.js';
import { ForwardDialog } from './forward.js';
import { GroupPanel } from './group.js';
import { EmojiPicker, MentionSuggestions } from './composing.js';
import { VoiceRecorder } from './voice.js';

/** A new start is sent at most this often while the user keeps typing. */
const TYPING_EVERY = 3000;

export class ChatView {
  constructor(client, { onBack }) {
    this.client = client;
    this.conversationId = null;
    this.loadingOlder = false;
    this.lastTypingSent = 0;
    this.title = h('h2', { class: 'chat-title', id: 'chat-title' });
    this.typing = h('p', { class: 'typing', 'aria-live': 'polite', id: 'typing' });
    this.status = h('span', { class: 'presence', id: 'peer-presence' });
    const back = h('button', { type: 'button', class: 'ghost back', onclick: onBack, 'aria-label': 'Back to chats' }, '←');
    this.groupPanel = new GroupPanel(client);
    this.infoButton = h('button', {
      type: 'button', class: 'ghost', id: 'group-info', onclick: () => this.groupPanel.open(this.conversationId),
    }, 'Group info');
    this.pinButton = h('button', { type: 'button', class: 'ghost', id: 'pin', onclick: () => this.toggle('pinned') });
    this.muteButton = h('button', { type: 'button', class: 'ghost', id: 'mute', onclick: () => this.toggle('muted') });
    this.header = h('header', { class: 'chat-header' }, back, h('div', { class: 'heading' }, h('div', { class: 'row' }, this.title, this.status), this.typing),
      this.pinButton, this.muteButton, this.infoButton, this.groupPanel.element);
    this.list = h('ol', { class: 'message-list', id: 'messages' });
    // The scrolling log around the list: screen readers announce what is added.
    this.messages = h('div', { class: 'messages', role: 'log', 'aria-live': 'polite', 'aria-labelledby': 'chat-title', tabindex: '0' }, this.list);
    this.messages.addEventListener('scroll', () => this.scrolled());
    this.input = h('textarea', {
      id: 'composer', rows: '1', placeholder: 'Write a message', 'aria-label': 'Message', maxlength: '8000',
      onkeydown: (event) => {
        if (this.mentions.handleKey(event)) return;
        if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          this.sendTyped();
        }
      },
      oninput: () => {
        this.typed();
        this.mentions.update();
      },
    });
    this.sendButton = h('button', { type: 'submit', class: 'primary', id: 'send' }, 'Send');
    this.picker = h('input', {
      type: 'file', id: 'file-picker', class: 'visually-hidden', tabindex: '-1', 'aria-hidden': 'true',
      onchange: () => this.sendPicked(),
    });
    this.attach = h('button', { type: 'button', class: 'ghost', id: 'attach', 'aria-label': 'Send a picture or a file', onclick: () => this.picker.click() }, '📎');
    this.recorder = new VoiceRecorder({
      onDone: (blob, durationMs) => this.client.sendVoice(this.conversationId, blob, durationMs),
      onError: (message) => { this.notice.textContent = message; },
    });
    this.emoji = new EmojiPicker({ onPick: (emoji) => this.insert(emoji) });
    this.mentions = new MentionSuggestions(client, this.input);
    this.forwardDialog = new ForwardDialog(client);
    this.viewer = h('dialog', { class: 'viewer', 'aria-label': 'Picture' });
    this.viewer.addEventListener('click', () => this.viewer.close());
    this.replyingTo = null;
    this.replyText = h('span', { class: 'reply-text', id: 'reply-text' });
    this.replyBar = h('div', { class: 'reply-bar', hidden: true },
      this.replyText,
      h('button', { type: 'button', class: 'ghost', 'aria-label': 'Cancel', onclick: () => this.replyTo(null) }, '✕'));
    this.composer = h('form', {
      class: 'composer', 'aria-label': 'Write a message',
      onsubmit: (event) => {
        event.preventDefault();
        this.sendTyped();
      },
    }, this.attach, this.picker, this.recorder.button, this.emoji.button, this.mentions.list, this.input, this.sendButton);
    this.notice = h('p', { class: 'chat-notice', role: 'alert', id: 'chat-notice' });
    this.composerArea = h('div', { class: 'composer-area' }, this.notice, this.replyBar, this.emoji.panel, this.composer,
      this.viewer, this.forwardDialog.element);
    this.announcement = h('p', { class: 'announcement', id: 'announcement', hidden: true });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.keepDraft();
    });
    this.placeholder = h('p', { class: 'no-chat' }, 'Choose a chat, or add a friend under Contacts.');
    this.element = h('section', { class: 'chat', 'aria-label': 'Conversation' }, this.placeholder);
  }

  show(conversationId) {
    if (this.conversationId && this.conversationId !== conversationId) {
      this.stopTyping();
      this.keepDraft();
    }
    this.conversationId = conversationId;
    this.client.setOpenConversation(conversationId);
    if (!conversationId) {
      fill(this.element, this.placeholder);
      return;
    }
    fill(this.element, this.header, this.announcement, this.messages, this.composerArea);
    this.replyTo(null);
    this.notice.textContent = '';
    this.stickToBottom = true;
    this.input.value = this.client.conversations.get(conversationId)?.settings?.draft ?? '';
    this.mentions.setConversation(this.client.conversations.get(conversationId));
    this.renderHeader();
    this.render();
    this.input.focus();
  }

  /** What was typed and not sent is kept as the conversation's draft, on all my devices. */
  keepDraft() {
    const conversation = this.client.conversations.get(this.conversationId);
    if (!conversation || conversation.removed || (conversation.settings?.draft ?? '') === this.input.value) return;
    this.client.updateSettings(conversation.id, { draft: this.input.value }).catch(() => {});
  }

  async toggle(setting) {
    const conversation = this.client.conversations.get(this.conversationId);
    if (!conversation) return;
    const on = setting === 'pinned' ? conversation.settings?.pinnedAt !== undefined : conversation.settings?.muted === true;
    try {
      await this.client.updateSettings(conversation.id, { [setting]: !on });
    } catch (error) {
      this.notice.textContent = error.message;
    }
  }

  renderState() {
    if (this.conversationId) this.render();
  }

  renderHeader() {
    const conversation = this.client.conversations.get(this.conversationId);
    if (!conversation) return;
    this.title.textContent = this.client.titleOf(conversation);
    this.status.textContent = conversation.kind === 'direct' ? this.client.presenceText(conversation.peerId) : '';
    this.infoButton.hidden = conversation.kind !== 'group' || conversation.removed;
    const pinned = conversation.settings?.pinnedAt !== undefined;
    const muted = conversation.settings?.muted === true;
    this.pinButton.textContent = pinned ? 'Unpin' : 'Pin';
    this.pinButton.setAttribute('aria-pressed', String(pinned));
    this.muteButton.textContent = muted ? 'Unmute' : 'Mute';
    this.muteButton.setAttribute('aria-pressed', String(muted));
    this.pinButton.hidden = this.muteButton.hidden = conversation.removed === true;
    this.announcement.hidden = !conversation.group?.announcement;
    this.announcement.textContent = conversation.group?.announcement ? `📢 ${conversation.group.announcement.text}` : '';
    const removed = conversation.removed || conversation.group?.dissolvedAt !== undefined;
    this.input.disabled = removed;
    this.sendButton.disabled = removed;
    this.attach.disabled = removed;
    this.input.placeholder = removed ? 'You can read this group but no longer send to it' : 'Write a message';
  }

  async render() {
    const conversationId = this.conversationId;
    const conversation = this.client.conversations.get(conversationId);
    if (!conversation) return;
    const timeline = await this.client.timeline(conversationId);
    if (conversationId !== this.conversationId) return;
    const atBottom = this.stickToBottom || this.messages.scrollHeight - this.messages.scrollTop - this.messages.clientHeight < 40;
    const heightBefore = this.messages.scrollHeight;
    const items = [];
    let previous = null;
    for (const message of timeline) {
      const day = dayLabel(message.sentAt);
      if (!previous || dayLabel(previous.sentAt) !== day) {
        items.push(h('li', { class: 'day', role: 'separator' }, day));
        previous = null;
      }
      const grouped = previous && previous.senderId === message.senderId && message.sentAt - previous.sentAt < 5 * 60_000;
      items.push(this.messageItem(conversation, message, grouped));
      previous = message;
    }
    fill(this.list, items);
    if (atBottom) this.messages.scrollTop = this.messages.scrollHeight;
    else if (this.loadingOlder) this.messages.scrollTop += this.messages.scrollHeight - heightBefore;
    // Older messages come when scrolled to the top; a screen not yet full asks for them at once.
    if (this.messages.scrollHeight <= this.messages.clientHeight) this.scrolled();
    this.stickToBottom = false;
    const names = this.client.typists(conversationId).map((id) => this.client.nameOf(id));
    this.typing.textContent = names.length === 0 ? '' : `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} typing…`;
    this.client.markOpenConversationRead();
  }

  messageItem(conversation, message, grouped) {
    const mine = message.senderId === this.client.me.id;
    if (message.kind === 'system') {
      return h('li', { class: 'system', 'data-seq': message.seq }, previewOf(message, this.client));
    }
    const state = this.stateOf(conversation, message, mine);
    const sender = !mine && !grouped && conversation.kind === 'group'
      ? h('span', { class: 'sender' }, this.client.nameOf(message.senderId))
      : null;
    let body;
    if (message.kind === 'image') body = this.picture(message);
    else if (message.kind === 'file') body = this.fileCard(message);
    else if (message.kind === 'voice') body = this.voice(message);
    else if (message.kind === 'recalled') body = h('span', { class: 'text recalled' }, previewOf(message, this.client));
    else body = h('span', { class: 'text' }, previewOf(message, this.client));
    const quote = message.kind === 'reply' && message.quote
      ? h('span', { class: 'quote' }, `${this.client.nameOf(message.quote.senderId)}: `,
        message.quote.text ?? previewOf({ kind: message.quote.kind, content: {} }, this.client))
      : null;
    const actions = [];
    if (!message.queued && !['recalled', 'deleted'].includes(message.kind) && !conversation.removed) {
      actions.push(h('button', { type: 'button', class: 'ghost action', 'aria-label': 'Reply', onclick: () => this.replyTo(message) }, 'Reply'));
    }
    if (!message.queued && !['recalled', 'deleted', 'system'].includes(message.kind)) {
      actions.push(h('button', { type: 'button', class: 'ghost action', 'aria-label': 'Forward', onclick: () => this.forwardDialog.open(message) }, 'Forward'));
    }
    if (this.client.mayEdit(message)) {
      actions.push(h('button', { type: 'button', class: 'ghost action', 'aria-label': 'Edit', onclick: () => this.startEditing(message) }, 'Edit'));
    }
    if (this.client.mayRecall(message)) {
      actions.push(h('button', { type: 'button', class: 'ghost action', 'aria-label': 'Recall', onclick: () => this.recall(message) }, 'Recall'));
    }
    const recalledText = message.kind === 'recalled' ? this.client.recalledTexts.get(message.id) : undefined;
    if (recalledText !== undefined) {
      actions.push(h('button', { type: 'button', class: 'ghost action shown', onclick: () => this.reEdit(message.id, recalledText) }, 'Re-edit'));
    }
    // The actions sit in the footer line, shown on hover or keyboard focus: no extra height.
    const footer = h('span', { class: 'footer' },
      actions.length ? h('span', { class: 'actions' }, actions) : null,
      message.editedAt ? h('span', { class: 'edited' }, 'edited ') : null,
      h('time', { datetime: new Date(message.sentAt).toISOString() }, clock(message.sentAt)),
      state.mark ? h('span', { class: 'state', 'aria-label': state.label, title: state.label }, state.mark) : null);
    const failure = message.failure ? h('div', { class: 'failure-row' },
      h('span', { class: 'failure', role: 'alert' }, message.failure.message),
      h('button', { type: 'button', class: 'ghost', onclick: () => this.client.retry(message.clientMsgId) }, 'Retry'),
      h('button', { type: 'button', class: 'ghost', onclick: () => this.client.discard(message.clientMsgId) }, 'Delete')) : null;
    return h('li', {
      class: `message ${mine ? 'mine' : 'theirs'}${grouped ? ' grouped' : ''}`,
      'data-seq': message.seq, 'data-client-msg-id': message.clientMsgId, 'data-state': state.name,
    }, sender, h('div', { class: 'bubble' }, message.forwarded ? h('span', { class: 'forwarded' }, 'Forwarded') : null, quote, body, footer), failure);
  }

  /** An image message: its thumbnail at its proportions, the whole picture on a click. */
  picture(message) {
    const { width = 1, height = 1, fileId, thumbnailId } = message.content;
    const scale = Math.min(1, 280 / Math.max(width, height));
    const name = message.senderId === this.client.me.id ? 'you' : this.client.nameOf(message.senderId);
    const image = h('img', {
      class: 'picture', alt: `Picture from ${name}`, width: Math.round(width * scale), height: Math.round(height * scale),
    });
    const queued = message.files?.blob;
    if (queued) image.src = this.localURL(message.clientMsgId, queued);
    else this.client.fileLinks.url(thumbnailId ?? fileId).then((url) => { image.src = url; }).catch(() => {});
    const progress = this.client.progress.get(message.clientMsgId);
    return h('span', { class: 'text' },
      h('button', { type: 'button', class: 'picture-button', 'aria-label': `Open the picture from ${name}`, disabled: !fileId, onclick: () => this.view(fileId, name) }, image),
      progress !== undefined ? h('progress', { max: '1', value: String(progress), 'aria-label': 'Uploading' }) : null);
  }

  /** A file message: its name and size, and a link that downloads it. */
  fileCard(message) {
    const { name = 'file', size = 0, fileId } = message.content;
    const link = h('a', { class: 'download', download: name, href: '#', 'aria-label': `Download ${name}` }, 'Download');
    if (fileId) this.client.fileLinks.url(fileId).then((url) => { link.href = url; }).catch(() => {});
    const progress = this.client.progress.get(message.clientMsgId);
    return h('span', { class: 'text file-card' },
      h('span', { class: 'file-icon', 'aria-hidden': 'true' }, '📄'),
      h('span', { class: 'file-name' }, name), h('span', { class: 'file-size' }, readableSize(size)),
      fileId ? link : null,
      progress !== undefined ? h('progress', { max: '1', value: String(progress), 'aria-label': 'Uploading' }) : null);
  }

  /** A voice message: a player and its length. */
  voice(message) {
    const { durationMs = 0, fileId } = message.content;
    const player = h('audio', { controls: true, preload: 'none', 'aria-label': 'Voice message' });
    const queued = message.files?.blob;
    if (queued) player.src = this.localURL(message.clientMsgId, queued);
    else if (fileId) this.client.fileLinks.url(fileId).then((url) => { player.src = url; }).catch(() => {});
    return h('span', { class: 'text voice' }, player, h('span', { class: 'file-size' }, `${Math.round(durationMs / 1000)} s`));
  }

  /** Puts text where the cursor is in the composer. */
  insert(text) {
    const { selectionStart: start, selectionEnd: end, value } = this.input;
    this.input.value = value.slice(0, start) + text + value.slice(end);
    this.input.selectionStart = this.input.selectionEnd = start + text.length;
    this.input.focus();
  }

  /** One object URL per picture waiting to be sent, made once. */
  localURL(clientMsgId, blob) {
    this.localURLs ??= new Map();
    if (!this.localURLs.has(clientMsgId)) this.localURLs.set(clientMsgId, URL.createObjectURL(blob));
    return this.localURLs.get(clientMsgId);
  }

  async view(fileId, name) {
    const url = await this.client.fileLinks.url(fileId);
    fill(this.viewer, h('img', { src: url, alt: `Picture from ${name}` }),
      h('button', { type: 'button', class: 'primary', onclick: () => this.viewer.close() }, 'Close'));
    this.viewer.showModal();
  }

  async sendPicked() {
    const file = this.picker.files[0];
    this.picker.value = '';
    if (!file || !this.conversationId) return;
    this.stickToBottom = true;
    try {
      await this.client.sendFile(this.conversationId, file);
    } catch (error) {
      this.notice.textContent = `This file cannot be sent: ${error.message}`;
    }
  }

  /** Where one of my messages stands: queued, refused, sent, delivered or read. */
  stateOf(conversation, message, mine) {
    if (!mine || message.kind === 'recalled') return { name: mine ? 'recalled' : 'received', label: '', mark: '' };
    if (message.failure) return { name: 'failed', label: 'Not sent', mark: '!' };
    if (message.queued) return { name: 'sending', label: 'Sending', mark: '🕓' };
    if ((conversation.othersReadSeq ?? 0) >= message.seq) return { name: 'read', label: 'Read', mark: '✓✓' };
    if ((conversation.othersDeliveredSeq ?? 0) >= message.seq) return { name: 'delivered', label: 'Delivered', mark: '✓✓' };
    return { name: 'sent', label: 'Sent', mark: '✓' };
  }

  async scrolled() {
    if (this.messages.scrollTop > 50 || this.loadingOlder || !this.conversationId) return;
    this.loadingOlder = true;
    try {
      await this.client.loadOlder(this.conversationId);
    } finally {
      this.loadingOlder = false;
    }
  }

  sendTyped() {
    const text = this.input.value;
    if (!text.trim() || !this.conversationId) return;
    this.input.value = '';
    this.stopTyping();
    this.stickToBottom = true;
    if (this.editing) {
      const message = this.editing;
      this.replyTo(null);
      this.client.edit(message, text).catch((error) => { this.notice.textContent = error.message; });
      return;
    }
    const content = { text, ...this.mentions.contentFor(text) };
    if (this.replyingTo) this.client.send(this.conversationId, 'reply', { ...content, replyTo: this.replyingTo.id });
    else this.client.send(this.conversationId, 'text', content);
    this.replyTo(null);
    this.keepDraft();
  }

  /** Quotes a message in the next one sent (null: neither replying nor editing any more). */
  replyTo(message) {
    this.replyingTo = message;
    this.editing = null;
    this.replyBar.hidden = !message;
    this.replyText.textContent = message ? `Replying to ${this.client.nameOf(message.senderId)}: ${previewOf(message, this.client)}` : '';
    if (message) this.input.focus();
  }

  /** Puts the text of a message of mine in the composer; sending replaces it. */
  startEditing(message) {
    this.replyTo(null);
    this.editing = message;
    this.replyBar.hidden = false;
    this.replyText.textContent = `Editing: ${message.content.text}`;
    this.input.value = message.content.text;
    this.input.focus();
  }

  async recall(message) {
    try {
      await this.client.recall(message);
    } catch (error) {
      this.notice.textContent = error.message;
    }
  }

  /** Puts the text of a message I recalled back in the composer. */
  reEdit(messageId, text) {
    this.client.recalledTexts.delete(messageId);
    this.input.value = text;
    this.input.focus();
    this.render();
  }

  typed() {
    if (!this.conversationId) return;
    const now = Date.now();
    if (!this.input.value) return this.stopTyping();
    if (now - this.lastTypingSent < TYPING_EVERY) return;
    this.lastTypingSent = now;
    this.client.sendTyping(this.conversationId, true);
  }

  stopTyping() {
    if (!this.lastTypingSent || !this.conversationId) return;
    this.lastTypingSent = 0;
    this.client.sendTyping(this.conversationId, false);
  }
}
