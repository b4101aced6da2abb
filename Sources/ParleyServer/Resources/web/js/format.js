// How times, people and messages show in one line: list previews, notifications,
// separators, avatars.

import { h } from './dom.js';

/** A time of day (14:05) for today, else a date. */
export function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The day of a message, for separators: "Today", "Yesterday" or a date. */
export function dayLabel(ms) {
  const day = new Date(ms);
  const today = new Date();
  const yesterday = new Date(today.getTime() - 86_400_000);
  if (day.toDateString() === today.toDateString()) return 'Today';
  if (day.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return day.toLocaleDateString([], { year: 'numeric', month: 'long', day: 'numeric' });
}

export function initials(name) {
  return [...name.trim()].slice(0, 1).join('').toUpperCase() || '?';
}

/**
 * A round picture for a person or a group: their avatar file when they have one (loaded
 * through a signed link), else the first letter of their name.
 */
export function avatar(client, fileId, name) {
  const element = h('span', { class: 'avatar', 'aria-hidden': 'true' }, initials(name));
  if (fileId) {
    client.fileLinks.url(fileId).then((url) => {
      element.replaceChildren(h('img', { src: url, alt: '' }));
    }).catch(() => {});
  }
  return element;
}

/** One line saying what a message is. */
export function previewOf(message, client) {
  switch (message.kind) {
    case 'text':
    case 'reply':
      return message.content.text;
    case 'recalled':
      return message.content.recalledBy === client.me.id ? 'You recalled a message' : 'A message was recalled';
    case 'image':
      return '[Image]';
    case 'voice':
      return '[Voice message]';
    case 'video':
      return '[Video]';
    case 'file':
      return `[File] ${message.content.name ?? ''}`;
    case 'system':
      return systemText(message.content, client);
    default:
      return `[${message.kind}]`;
  }
}

const UNTIL_LIFTED = 253402300799999;

/** A group change in words: "Alice made Bob an admin". */
export function systemText({ event, actorId, userIds = [], text, until }, client) {
  const actor = actorId === client.me.id ? 'You' : client.nameOf(actorId);
  const users = userIds.map((id) => (id === client.me.id ? 'you' : client.nameOf(id))).join(', ');
  switch (event) {
    case 'member.joined':
      return userIds.length === 1 && userIds[0] === actorId ? `${actor} joined` : `${actor} added ${users}`;
    case 'member.left':
      return `${actor} left`;
    case 'member.removed':
      return `${actor} removed ${users}`;
    case 'member.muted':
      return until === UNTIL_LIFTED ? `${actor} muted ${users}` : `${actor} muted ${users} until ${new Date(until).toLocaleString()}`;
    case 'member.unmuted':
      return `${actor} lifted the mute of ${users}`;
    case 'admin.added':
      return `${actor} made ${users} ${userIds.length === 1 ? 'an admin' : 'admins'}`;
    case 'admin.removed':
      return `${actor} made ${users} ${userIds.length === 1 ? 'a member' : 'members'} again`;
    case 'mute_all.on':
      return `${actor} muted everyone but the admins`;
    case 'mute_all.off':
      return `${actor} let everyone send again`;
    case 'group.renamed':
      return `${actor} renamed the group to “${text}”`;
    case 'description.updated':
      return text ? `${actor} changed the description` : `${actor} cleared the description`;
    case 'announcement.updated':
      return text ? `${actor} posted an announcement: ${text}` : `${actor} cleared the announcement`;
    case 'join_policy.updated':
      return `${actor} set who may join to “${text}”`;
    case 'owner.transferred':
      return `${actor} handed the group to ${users}`;
    case 'group.dissolved':
      return `${actor} dissolved the group`;
    default:
      return 'The group was changed';
  }
}

/** A size in bytes as people read it: 512 B, 14 KB, 3.2 MB. */
export function readableSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
