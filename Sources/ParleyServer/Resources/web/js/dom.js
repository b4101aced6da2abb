// A small helper for building DOM: every text goes in as text, never as HTML, so nothing a
// user wrote can run in another user's page.

/** Makes an element: `h('button', { class: 'x', onclick: f }, 'Send')`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/**
 * A modal panel: a dialog `id` titled `title`, whose header button (`id`-close, worded
 * `closeLabel`) closes it, followed by `children`.
 */
export function panel(id, title, closeLabel, ...children) {
  const dialog = h('dialog', { class: 'group-panel', id, 'aria-labelledby': `${id}-title` });
  dialog.append(h('header', { class: 'panel-header' }, h('h2', { id: `${id}-title` }, title),
    h('button', { type: 'button', class: 'ghost', id: `${id}-close`, onclick: () => dialog.close() }, closeLabel)), ...children);
  return dialog;
}

/** Replaces the children of `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) element.append(child);
  }
}

/** Day or night, as chosen (`day`, `night`), else as the system is. */
export function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}
