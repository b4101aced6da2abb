// Helpers of the composer: an emoji panel, and suggestions of members to mention when
// "@" is typed in a group (with "everyone" for those allowed to mention all).

import { fill, h } from './dom.js';

const EMOJI = [
  ['😀', 'grinning'], ['😂', 'tears of joy'], ['🙂', 'smile'], ['😉', 'wink'], ['😍', 'heart eyes'], ['🤔', 'thinking'],
  ['😅', 'sweat smile'], ['😎', 'cool'], ['😢', 'crying'], ['😮', 'surprised'], ['😴', 'sleeping'], ['🙏', 'thanks'],
  ['👍', 'thumbs up'], ['👎', 'thumbs down'], ['👏', 'clapping'], ['🙌', 'hooray'], ['👋', 'wave'], ['💪', 'strong'],
  ['❤️', 'heart'], ['🔥', 'fire'], ['🎉', 'party'], ['✅', 'done'], ['❌', 'no'], ['⭐', 'star'],
  ['☕', 'coffee'], ['🍜', 'noodles'], ['🍺', 'beer'], ['🎂', 'cake'], ['🚀', 'rocket'], ['💡', 'idea'],
  ['📌', 'pin'], ['📅', 'calendar'], ['⏰', 'alarm'], ['✈️', 'plane'], ['🏠', 'home'], ['💯', 'hundred'],
];

export class EmojiPicker {
  constructor({ onPick }) {
    this.panel = h('div', { class: 'emoji-panel', id: 'emoji-panel', role: 'group', 'aria-label': 'Emoji', hidden: true },
      EMOJI.map(([emoji, name]) => h('button', {
        type: 'button', class: 'ghost emoji', 'aria-label': name, title: name,
        onclick: () => {
          onPick(emoji);
          this.toggle(false);
        },
      }, emoji)));
    this.button = h('button', {
      type: 'button', class: 'ghost', id: 'emoji', 'aria-label': 'Insert an emoji', 'aria-expanded': 'false',
      'aria-controls': 'emoji-panel', onclick: () => this.toggle(this.panel.hidden),
    }, '😊');
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        this.toggle(false);
        this.button.focus();
      }
    });
  }

  toggle(open) {
    this.panel.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open) this.panel.querySelector('button').focus();
  }
}

const RANK = { owner: 3, admin: 2, member: 1 };

export class MentionSuggestions {
  constructor(client, input) {
    this.client = client;
    this.input = input;
    this.members = [];
    this.mayMentionAll = false;
    this.chosen = new Map();
    this.options = [];
    this.selected = 0;
    this.list = h('ul', { class: 'mentions', id: 'mention-list', role: 'listbox', 'aria-label': 'People to mention', hidden: true });
  }

  /** Loads the members of a group (a direct conversation has no one to mention). */
  async setConversation(conversation) {
    this.members = [];
    this.chosen.clear();
    this.close();
    if (conversation?.kind !== 'group' || conversation.removed) return;
    try {
      const { members, conversation: current } = await this.client.groupDetail(conversation.id);
      const me = members.find((member) => member.userId === this.client.me.id);
      this.mayMentionAll = RANK[me?.role] >= RANK.admin || current.group?.everyoneMayMentionAll === true;
      this.members = members
        .filter((member) => member.userId !== this.client.me.id)
        .map((member) => ({ userId: member.userId, name: member.nickname ?? this.client.nameOf(member.userId) }));
    } catch {
      // no suggestions; mentions can still be typed
    }
  }

  /** The "@word" being typed just before the cursor, if any. */
  query() {
    const before = this.input.value.slice(0, this.input.selectionStart);
    const match = /(^|\s)@([^\s@]*)$/.exec(before);
    return match ? match[2] : null;
  }

  update() {
    const query = this.query();
    if (query === null || this.members.length === 0) return this.close();
    const wanted = query.toLowerCase();
    this.options = this.members.filter((member) => member.name.toLowerCase().includes(wanted)).slice(0, 8);
    if (this.mayMentionAll && 'everyone'.startsWith(wanted)) this.options.push({ userId: 'all', name: 'everyone' });
    if (this.options.length === 0) return this.close();
    this.selected = 0;
    this.render();
  }

  render() {
    this.list.hidden = false;
    fill(this.list, this.options.map((option, index) => h('li', {
      role: 'option', id: `mention-${index}`, 'aria-selected': String(index === this.selected), 'data-user-id': option.userId,
      onmousedown: (event) => {
        event.preventDefault();
        this.pick(option);
      },
    }, option.userId === 'all' ? 'Everyone in the group' : option.name)));
  }

  close() {
    this.list.hidden = true;
    this.options = [];
  }

  /** Arrow keys, Enter and Tab, Escape while suggestions show; answers whether it used the key. */
  handleKey(event) {
    if (this.list.hidden || this.options.length === 0) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const step = event.key === 'ArrowDown' ? 1 : this.options.length - 1;
      this.selected = (this.selected + step) % this.options.length;
      this.render();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      this.pick(this.options[this.selected]);
    } else if (event.key === 'Escape') {
      this.close();
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }

  /** Replaces the "@word" typed with the chosen name. */
  pick(option) {
    const caret = this.input.selectionStart;
    const before = this.input.value.slice(0, caret);
    const start = before.lastIndexOf('@');
    const inserted = `@${option.name} `;
    this.input.value = before.slice(0, start) + inserted + this.input.value.slice(caret);
    this.input.selectionStart = this.input.selectionEnd = start + inserted.length;
    this.chosen.set(option.userId, option.name);
    this.close();
    this.input.focus();
  }

  /** The `mentions` and `mentionAll` of a text: the people picked whose "@name" it still holds. */
  contentFor(text) {
    const mentions = [];
    let mentionAll = false;
    for (const [userId, name] of this.chosen) {
      if (!text.includes(`@${name}`)) continue;
      if (userId === 'all') mentionAll = true;
      else mentions.push(userId);
    }
    this.chosen.clear();
    const content = {};
    if (mentions.length > 0) content.mentions = mentions;
    if (mentionAll) content.mentionAll = true;
    return content;
  }
}
