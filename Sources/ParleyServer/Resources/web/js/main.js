// The browser app: the login screen until there is a session, then the messenger. The
// session (tokens and account) lives in localStorage; everything else in IndexedDB.

import { publicApi } from './api.js';
import { Client } from './client.js';
import { applyTheme, fill, h } from './dom.js';
import { Messenger } from './messenger.js';
import { applyTextSize } from './settings.js';

const root = document.getElementById('app');
applyTheme(localStorage.getItem('parley.theme'));
applyTextSize(localStorage.getItem('parley.textSize'));

function storedSession() {
  try {
    return JSON.parse(localStorage.getItem('parley.session') ?? 'null');
  } catch {
    return null;
  }
}

async function start() {
  const session = storedSession();
  if (!session) return showLogin();
  const client = await Client.open(session, { onSessionEnded: () => loggedOut('Your session ended. Log in again.') });
  const messenger = new Messenger(client, {
    onLogout: async () => {
      await client.logout();
      loggedOut();
    },
  });
  fill(root, messenger.element);
  await client.start();
}

function loggedOut(notice) {
  localStorage.removeItem('parley.session');
  showLogin(notice);
}

function showLogin(notice) {
  let mode = 'login';
  const error = h('p', { class: 'form-error', role: 'alert', id: 'auth-error' });
  if (notice) error.textContent = notice;
  const username = h('input', { id: 'auth-login', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', {
    id: 'auth-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true,
  });
  const nickname = h('input', { id: 'auth-nickname', name: 'nickname', autocomplete: 'nickname' });
  const code = h('input', { id: 'auth-code', name: 'code', inputmode: 'numeric' });
  const loginLabel = h('label', { for: 'auth-login' }, 'Username, email or phone');
  const nicknameRow = h('div', { class: 'field', hidden: true }, h('label', { for: 'auth-nickname' }, 'Display name (optional)'), nickname);
  const codeRow = h('div', { class: 'field', hidden: true }, h('label', { for: 'auth-code' }, 'Code from your authenticator app'), code);
  const submit = h('button', { type: 'submit', class: 'primary', id: 'auth-submit' }, 'Log in');
  let challenge = null;
  const tabs = {
    login: h('button', { type: 'button', role: 'tab', id: 'tab-login', 'aria-selected': 'true', onclick: () => setMode('login') }, 'Log in'),
    register: h('button', { type: 'button', role: 'tab', id: 'tab-register', 'aria-selected': 'false', onclick: () => setMode('register') }, 'Create account'),
  };

  function setMode(next) {
    mode = next;
    tabs.login.setAttribute('aria-selected', String(mode === 'login'));
    tabs.register.setAttribute('aria-selected', String(mode === 'register'));
    loginLabel.textContent = mode === 'login' ? 'Username, email or phone' : 'Username';
    password.autocomplete = mode === 'login' ? 'current-password' : 'new-password';
    nicknameRow.hidden = mode !== 'register';
    submit.textContent = mode === 'login' ? 'Log in' : 'Create account';
    error.textContent = '';
  }

  async function signIn(tokens) {
    localStorage.setItem('parley.session', JSON.stringify({
      accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, account: tokens.account,
    }));
    await start();
  }

  const form = h('form', {
    class: 'auth-form', 'aria-labelledby': 'auth-title', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      error.textContent = '';
      submit.disabled = true;
      try {
        const device = `Browser (${navigator.platform || 'web'})`.slice(0, 64);
        if (challenge) {
          await signIn(await publicApi.secondFactor(challenge, code.value.trim()));
          return;
        }
        if (mode === 'register') {
          const fields = { username: username.value.trim(), password: password.value };
          if (nickname.value.trim()) fields.nickname = nickname.value.trim();
          await publicApi.register(fields);
        }
        const answer = await publicApi.login(username.value.trim(), password.value, device);
        if (answer.challenge) {
          challenge = answer.challenge;
          codeRow.hidden = false;
          code.focus();
          submit.textContent = 'Confirm code';
          return;
        }
        await signIn(answer);
      } catch (failure) {
        error.textContent = failure.message;
      } finally {
        submit.disabled = false;
      }
    },
  },
  h('h1', { id: 'auth-title' }, 'Parley'),
  h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Log in or create an account' }, tabs.login, tabs.register),
  h('div', { class: 'field' }, loginLabel, username),
  h('div', { class: 'field' }, h('label', { for: 'auth-password' }, 'Password'), password),
  nicknameRow,
  codeRow,
  error,
  submit);
  fill(root, h('main', { class: 'auth' }, form));
  username.focus();
}

start().catch((error) => {
  console.error(error);
  showLogin('Parley could not start in this browser: ' + error.message);
});
