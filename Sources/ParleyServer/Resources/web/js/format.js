// How times and messages read in one line: list previews, notifications, separators.

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
      return 'Group updated';
    default:
      return `[${message.kind}]`;
  }
}
