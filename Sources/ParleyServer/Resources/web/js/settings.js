// Settings: my profile (with a picture), who may find and reach me, desktop notifications,
// the devices signed in to my account (each may be signed out), and how the app looks
// (day or night, text size; kept in this browser).

import { applyTheme, fill, h, panel } from './dom.js';
import { upload } from './files.js';

const SIZES = { small: '87.5%', normal: '100%', large: '112.5%', larger: '125%' };

/** Applies the chosen text size (kept in this browser). */
export function applyTextSize(size) {
  document.documentElement.style.fontSize = SIZES[size] ?? SIZES.normal;
}

export class SettingsPanel {
  constructor(client) {
    this.client = client;
    this.body = h('div', { class: 'group-body' });
    this.feedback = h('p', { class: 'form-note', role: 'status', id: 'settings-feedback' });
    this.element = panel('settings', 'Settings', 'Close', this.feedback, this.body);
  }

  async open() {
    this.feedback.textContent = '';
    fill(this.body, h('p', {}, 'Loading…'));
    if (!this.element.open) this.element.showModal();
    try {
      const [account, sessions, notifications] = await Promise.all([
        this.client.api.get('/v1/me'), this.client.api.get('/v1/sessions'), this.client.api.get('/v1/me/notifications'),
      ]);
      this.render(account, sessions.sessions, notifications);
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }

  async save(what, change) {
    this.feedback.textContent = '';
    try {
      await change();
      this.feedback.textContent = `${what} saved.`;
    } catch (error) {
      this.feedback.textContent = error.message;
    }
  }

  /** What is pushed to my phones while none of my devices is connected, and quiet hours. */
  pushSettings(settings) {
    const save = (fields) => this.save('Notifications', () => this.client.api.request('PATCH', '/v1/me/notifications', fields));
    const toggle = (field, label) => {
      const box = h('input', { type: 'checkbox', id: `push-${field}`, checked: settings[field], onchange: () => save({ [field]: box.checked }) });
      return h('div', { class: 'check' }, box, h('label', { for: `push-${field}` }, label));
    };
    const quiet = settings.quietHours[0];
    const from = h('input', { type: 'time', id: 'quiet-from', value: quiet?.start ?? '22:00' });
    const to = h('input', { type: 'time', id: 'quiet-to', value: quiet?.end ?? '07:00' });
    const quietOn = h('input', { type: 'checkbox', id: 'quiet-on', checked: quiet !== undefined });
    const saveQuiet = () => save({
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      quietHours: quietOn.checked ? [{ start: from.value, end: to.value }] : [],
    });
    for (const input of [from, to, quietOn]) input.addEventListener('change', saveQuiet);
    return h('section', { class: 'panel-section', 'aria-labelledby': 'settings-pushes' },
      h('h3', { id: 'settings-pushes' }, 'Push to my phone'),
      toggle('direct', 'Direct messages'), toggle('group', 'Group messages'), toggle('mentions', 'Mentions of me'),
      toggle('friendRequests', 'Friend requests'), toggle('groupInvitations', 'Being added to a group'),
      toggle('preview', 'Show who wrote and what'),
      h('div', { class: 'check' }, quietOn, h('label', { for: 'quiet-on' }, 'Quiet hours, every day')),
      h('div', { class: 'row' }, h('label', { for: 'quiet-from' }, 'From'), from, h('label', { for: 'quiet-to' }, 'to'), to));
  }

  render(account, sessions, notifications) {
    const user = account.user;
    const nickname = h('input', { id: 'settings-nickname', value: user.nickname, maxlength: '32' });
    const signature = h('textarea', { id: 'settings-signature', rows: '2', maxlength: '140' }, user.signature);
    const picture = h('input', { type: 'file', id: 'settings-avatar', accept: 'image/png,image/jpeg,image/gif,image/webp' });
    const profile = h('form', {
      class: 'panel-section', 'aria-labelledby': 'settings-profile',
      onsubmit: (event) => {
        event.preventDefault();
        this.save('Profile', async () => {
          const fields = { nickname: nickname.value.trim(), signature: signature.value };
          const file = picture.files[0];
          if (file) fields.avatar = (await upload(this.client.api, file, { name: file.name || 'avatar', kind: 'image' })).fileId;
          await this.client.updateProfile(fields);
        });
      },
    },
    h('h3', { id: 'settings-profile' }, 'Profile'),
    h('label', { for: 'settings-nickname' }, 'Display name'), nickname,
    h('label', { for: 'settings-signature' }, 'About me'), signature,
    h('label', { for: 'settings-avatar' }, 'Picture'), picture,
    h('button', { type: 'submit', class: 'primary', id: 'settings-save-profile' }, 'Save profile'));

    const privacy = account.privacy ?? {};
    const choice = (id, label, field, options) => {
      const select = h('select', {
        id, onchange: () => this.save('Privacy', () => this.client.api.request('PATCH', '/v1/me/privacy', { [field]: select.value })),
      }, Object.entries(options).map(([value, text]) => h('option', { value, selected: privacy[field] === value }, text)));
      return [h('label', { for: id }, label), select];
    };
    const privacySection = h('section', { class: 'panel-section', 'aria-labelledby': 'settings-privacy' },
      h('h3', { id: 'settings-privacy' }, 'Privacy'),
      choice('privacy-add-me', 'Friend requests', 'addMe', { approval: 'Ask me first', anyone: 'Anyone may add me', nobody: 'Nobody' }),
      choice('privacy-message-from', 'Direct messages from', 'messageFrom', { everyone: 'Everyone', friends: 'Friends only' }),
      choice('privacy-presence', 'Who sees when I am online', 'presence', { everyone: 'Everyone', contacts: 'Friends', nobody: 'Nobody' }),
      choice('privacy-find-username', 'Found by my username', 'findByUsername', { everyone: 'Yes', nobody: 'No' }));

    const pushes = this.pushSettings(notifications);
    const desktop = h('section', { class: 'panel-section', 'aria-labelledby': 'settings-notifications' },
      h('h3', { id: 'settings-notifications' }, 'Notifications'),
      typeof Notification === 'undefined'
        ? h('p', {}, 'This browser cannot show notifications.')
        : h('div', { class: 'row' },
          h('span', { id: 'notification-state' }, {
            granted: 'Shown on this computer when Parley is in the background.',
            denied: 'Blocked for this site in the browser’s settings.',
            default: 'Not turned on yet.',
          }[Notification.permission]),
          Notification.permission === 'default'
            ? h('button', { type: 'button', class: 'ghost', onclick: async () => { await Notification.requestPermission(); this.open(); } }, 'Turn on')
            : null));

    const theme = localStorage.getItem('parley.theme') ?? 'system';
    const themeSelect = h('select', {
      id: 'settings-theme',
      onchange: () => {
        if (themeSelect.value === 'system') localStorage.removeItem('parley.theme');
        else localStorage.setItem('parley.theme', themeSelect.value);
        applyTheme(localStorage.getItem('parley.theme'));
      },
    }, [['system', 'As the system'], ['day', 'Day'], ['night', 'Night']]
      .map(([value, text]) => h('option', { value, selected: theme === value }, text)));
    const size = localStorage.getItem('parley.textSize') ?? 'normal';
    const sizeSelect = h('select', {
      id: 'settings-text-size',
      onchange: () => {
        localStorage.setItem('parley.textSize', sizeSelect.value);
        applyTextSize(sizeSelect.value);
      },
    }, [['small', 'Small'], ['normal', 'Normal'], ['large', 'Large'], ['larger', 'Larger']]
      .map(([value, text]) => h('option', { value, selected: size === value }, text)));
    const appearance = h('section', { class: 'panel-section', 'aria-labelledby': 'settings-appearance' },
      h('h3', { id: 'settings-appearance' }, 'Appearance'),
      h('label', { for: 'settings-theme' }, 'Theme'), themeSelect,
      h('label', { for: 'settings-text-size' }, 'Text size'), sizeSelect);

    const live = sessions.filter((session) => !session.revokedAt);
    const devices = h('section', { class: 'panel-section', 'aria-labelledby': 'settings-sessions' },
      h('h3', { id: 'settings-sessions' }, 'Signed-in devices'),
      h('ul', { class: 'people', id: 'sessions' }, live.map((session) => h('li', { class: 'person', 'data-session': session.id },
        h('span', { class: 'summary' },
          h('span', { class: 'title' }, session.device, session.current ? ' (this browser)' : ''),
          h('span', { class: 'preview' }, `${session.ip} · last active ${new Date(session.lastUsedAt).toLocaleString()}`)),
        session.current ? null : h('button', {
          type: 'button', class: 'ghost', 'data-revoke': session.id,
          onclick: () => this.save('Sign-out', async () => {
            await this.client.api.request('DELETE', `/v1/sessions/${session.id}`);
            await this.open();
          }),
        }, 'Sign out')))));
    fill(this.body, profile, privacySection, desktop, pushes, appearance, devices);
  }
}
