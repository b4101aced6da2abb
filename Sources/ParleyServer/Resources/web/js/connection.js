// The WebSocket to the server, as protocol.md asks a client to hold it: authenticate with
// the `auth` frame, send `ping` every 20 s and give the socket up when no `pong` comes in
// 10 s, reconnect with jittered exponential backoff (at once, then 0.5 s doubling to 30 s,
// ±25 %), and answer each request by its id. It tells its listeners its state
// (`connecting`, `online`, `offline`) and every push.

import { ApiError } from './api.js';

const PING_EVERY = 20_000;
const PONG_WITHIN = 10_000;
const ANSWER_WITHIN = 30_000;
const MAX_BACKOFF = 30_000;
/** The HTTP status of the error codes a client waits out rather than shows as final. */
const TEMPORARY = { rate_limited: 429, too_many_attempts: 429, unavailable: 503, internal_error: 500 };

export class Connection extends EventTarget {
  /** `token()` answers the access token to authenticate with; `refresh()` renews it. */
  constructor({ token, refresh, onSessionEnded }) {
    super();
    this.token = token;
    this.refresh = refresh;
    this.onSessionEnded = onSessionEnded;
    this.state = 'offline';
    this.socket = null;
    this.pending = new Map();
    this.nextId = 1;
    this.attempt = 0;
    this.stopped = true;
    this.retryTimer = null;
    this.pingTimer = null;
    this.ready = null;
    window.addEventListener('online', () => this.reconnectNow());
    // The browser knows the network is gone: give the socket up now rather than at the
    // next missing pong, so the user sees it and what they write waits in the outbox.
    window.addEventListener('offline', () => this.socket?.close());
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.socket?.close(1000);
    this.setState('offline');
  }

  /** Skips the wait of the backoff (the network came back, the user asked). */
  reconnectNow() {
    if (this.stopped || this.state !== 'offline') return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.open();
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.dispatchEvent(new CustomEvent('state', { detail: state }));
  }

  open() {
    if (this.stopped) return;
    this.setState('connecting');
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}/v1/ws`);
    this.socket = socket;
    let refused = false;
    socket.onopen = async () => {
      try {
        const ready = await this.request('auth', { token: this.token() }, socket);
        this.ready = ready;
        this.attempt = 0;
        this.setState('online');
        this.startHeartbeat(socket);
        this.dispatchEvent(new CustomEvent('ready', { detail: ready }));
      } catch (error) {
        if (error.code === 'invalid_token') refused = true;
        socket.close();
      }
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      clearInterval(this.pingTimer);
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new ApiError('network', 'The connection to the server was lost.'));
      }
      this.pending.clear();
      this.setState('offline');
      this.afterClose(event.code, refused);
    };
  }

  async afterClose(code, refused) {
    if (this.stopped) return;
    if (code === 4002) return this.onSessionEnded();
    if (code === 4001 || refused) {
      try {
        await this.refresh();
      } catch {
        return; // the session is over: the app asks for a login
      }
    }
    const delay = this.attempt === 0 ? 0 : Math.min(MAX_BACKOFF, 500 * 2 ** (this.attempt - 1));
    this.attempt += 1;
    const jittered = delay * (0.75 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => this.open(), jittered);
  }

  startHeartbeat(socket) {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(async () => {
      try {
        await this.request('ping', undefined, socket, PONG_WITHIN);
      } catch {
        socket.close(); // no pong: the connection is dead, whatever the browser thinks
      }
    }, PING_EVERY);
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    const waiting = frame.id !== undefined ? this.pending.get(frame.id) : undefined;
    if (waiting && ['result', 'error', 'ready', 'pong'].includes(frame.type)) {
      this.pending.delete(frame.id);
      clearTimeout(waiting.timer);
      if (frame.type === 'error') {
        const { code, message, until } = frame.payload;
        waiting.reject(new ApiError(code, message, TEMPORARY[code] ?? 400, until));
      } else {
        waiting.resolve(frame.payload);
      }
      return;
    }
    this.dispatchEvent(new CustomEvent('push', { detail: frame }));
  }

  /** Sends a request frame and answers its `result` payload (or throws its `error`). */
  request(type, payload, socket = this.socket, timeout = ANSWER_WITHIN) {
    return new Promise((resolve, reject) => {
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        reject(new ApiError('network', 'Not connected to the server.'));
        return;
      }
      const id = `w${this.nextId++}`;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError('timeout', 'The server did not answer in time.'));
        socket.close();
      }, timeout);
      this.pending.set(id, { resolve, reject, timer });
      const frame = payload === undefined ? { type, id } : { type, id, payload };
      socket.send(JSON.stringify(frame));
    });
  }
}
