// The HTTP half of the public API: JSON requests with the access token, one refresh of
// the token pair when the server says the access token is no longer good, and the
// server's errors as ApiError (its code and its words, for people).

/** An error the server answered (`code`, `message`, and `until` for waits), or a network failure. */
export class ApiError extends Error {
  constructor(code, message, status = 0, until = undefined) {
    super(message);
    this.code = code;
    this.status = status;
    this.until = until;
  }

  /** Whether trying again later may succeed: no answer, 429 or a server-side failure. */
  get isTemporary() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** Reads an answer: the JSON body, or an ApiError built from the server's error body. */
async function readAnswer(response) {
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  if (response.ok) return body;
  const error = body.error ?? {};
  throw new ApiError(
    error.code ?? 'http_' + response.status,
    error.message ?? `The server answered ${response.status}.`,
    response.status,
    error.until,
  );
}

/**
 * Sends one request, `body` as JSON, or as it is when it is binary (an ArrayBuffer or a
 * Blob); a failure to reach the server is ApiError `network`.
 */
async function send(method, path, body, token, extraHeaders = {}) {
  const binary = body instanceof ArrayBuffer || body instanceof Blob;
  const headers = { ...extraHeaders };
  if (body !== undefined) headers['Content-Type'] = binary ? 'application/octet-stream' : 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined || binary ? body : JSON.stringify(body),
      cache: 'no-store',
      // A small request made as the page goes away (a draft) still reaches the server.
      keepalive: !binary,
    });
  } catch {
    throw new ApiError('network', 'Cannot reach the server. Check your connection.');
  }
  return readAnswer(response);
}

/** Registering and logging in: the requests that need no session. */
export const publicApi = {
  register: (fields) => send('POST', '/v1/accounts', fields),
  login: (login, password, device) => send('POST', '/v1/sessions', { login, password, device }),
  secondFactor: (challenge, code) => send('POST', '/v1/sessions/second-factor', { challenge, code }),
};

/**
 * Requests as the logged-in user. `session` holds the token pair; `onTokens` stores a
 * refreshed pair; `onSessionEnded` is told when the session is dead (log in again).
 */
export class Api {
  constructor(session, { onTokens, onSessionEnded }) {
    this.session = session;
    this.onTokens = onTokens;
    this.onSessionEnded = onSessionEnded;
    this.refreshing = null;
  }

  get accessToken() {
    return this.session.accessToken;
  }

  async request(method, path, body, headers = {}) {
    const token = this.session.accessToken;
    try {
      return await send(method, path, body, token, headers);
    } catch (error) {
      if (error.status !== 401 || error.code !== 'invalid_token') throw error;
      await this.refresh(token);
      return send(method, path, body, this.session.accessToken, headers);
    }
  }

  get(path) {
    return this.request('GET', path);
  }

  post(path, body = {}) {
    return this.request('POST', path, body);
  }

  /**
   * Trades the refresh token for a new pair, once for everyone who found `staleToken`
   * refused: a refresh token works only once, and using one twice ends the session.
   */
  async refresh(staleToken) {
    if (this.session.accessToken !== staleToken) return;
    this.refreshing ??= (async () => {
      try {
        const tokens = await send('POST', '/v1/sessions/refresh', { refreshToken: this.session.refreshToken });
        this.session = { ...this.session, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
        this.onTokens(this.session);
      } catch (error) {
        if (error.status === 401) this.onSessionEnded();
        throw error;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}
