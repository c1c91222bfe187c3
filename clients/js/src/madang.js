// Madang (마당) client: what every client of the HTTP API would otherwise write by hand.
//
// Plain modern JavaScript (an ES module with no imports), so a browser can load it as it is —
// the server serves this very file at `GET /client/madang.js` — and TypeScript apps get the
// types of `madang.d.ts` beside it (generated API types in `openapi.d.ts`).
//
// It knows rooms only generically (version, room, events): nothing here reads a game's view,
// so the views can change without touching the library.

/** Statuses that mean "nothing happened, try again later" (RFC 9110 §15.6.4, RFC 6585 §4). */
const RETRYABLE = new Set([429, 502, 503, 504]);

/** The longest a long-poll may hold on the server (seconds); API Gateway stops at 30. */
export const MAX_WAIT_SECONDS = 25;

/**
 * A failed request: the server's RFC 9457 problem (`type`, `title`, `status`, `code`, `detail`),
 * or a network failure (`status` 0, `code` `NETWORK_ERROR`). A `VERSION_CONFLICT` carries the
 * current `room`; an `INVALID_OPTIONS` names its `field`.
 */
export class MadangError extends Error {
  /**
   * @param {{type?: string, title?: string, status: number, code: string, detail?: string,
   *   field?: string, room?: object}} problem
   * @param {{cause?: unknown}} [extra]
   */
  constructor(problem, extra = {}) {
    super(problem.detail || problem.title || problem.code, { cause: extra.cause });
    this.name = 'MadangError';
    this.type = problem.type ?? 'about:blank';
    this.title = problem.title ?? '';
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail ?? '';
    this.field = problem.field;
    this.room = problem.room;
    this.problem = problem;
  }

  /** Whether trying the same request again later may succeed. */
  get retryable() {
    return this.status === 0 || RETRYABLE.has(this.status);
  }
}

/** A fresh `Idempotency-Key`: 128 random bits in hex (works outside secure contexts too). */
export function newIdempotencyKey() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Milliseconds to wait as a `Retry-After` header says (seconds or an HTTP date), or null. */
export function retryAfterMs(value, now = Date.now()) {
  if (value == null || value === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function abortError(signal) {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The operation was aborted.', 'AbortError');
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */

/** The lowercase hex SHA-256 of `text` (UTF-8), or null where Web Crypto is not available. */
export async function sha256Hex(text) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(abortError(signal));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal that aborts when `outer` does or after `ms` (a hung connection must not hang us). */
function withTimeout(outer, ms) {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The request timed out.', 'TimeoutError')),
    ms,
  );
  const onAbort = () => controller.abort(abortError(outer));
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

async function problemOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's error page): the status alone still says what happened.
  }
  if (body && typeof body === 'object' && typeof body.code === 'string') {
    return new MadangError({ ...body, status: body.status ?? response.status });
  }
  return new MadangError({
    status: response.status,
    code: `HTTP_${response.status}`,
    title: response.statusText,
    detail: `서버가 ${response.status} 상태로 답했어요.`,
  });
}

/** The HTTP API of one Madang server. */
export class MadangClient {
  /**
   * @param {object} [options]
   * @param {string} [options.baseUrl] the server's origin, e.g. `http://127.0.0.1:8080` (default:
   *   the page's own origin in a browser)
   * @param {typeof fetch} [options.fetch] the fetch to use (default: the global one)
   * @param {number} [options.retries] retries of a retryable failure (default 4)
   * @param {number} [options.backoffMs] first backoff delay (default 200 ms; doubles each time)
   * @param {number} [options.maxBackoffMs] longest backoff delay (default 8 s)
   * @param {number} [options.timeoutMs] time allowed to a request beyond its long-poll wait
   *   (default 15 s)
   */
  constructor(options = {}) {
    const base = options.baseUrl ?? globalThis.location?.origin ?? '';
    this.baseUrl = base.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 200;
    /** When this client last made a request to each room with a token (its presence there). */
    this.lastSeenAt = new Map();
    this.maxBackoffMs = options.maxBackoffMs ?? 8000;
    this.timeoutMs = options.timeoutMs ?? 15000;
  }

  /** The delay before retry number `attempt` (0-based): exponential with full jitter. */
  backoff(attempt) {
    const ceiling = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /**
   * One request with the retries every client needs: a 429 (refused, nothing done) is retried
   * after `Retry-After` (or the backoff); 502/503/504 and network failures only when
   * `replayable` (a GET, or a request carrying an Idempotency-Key, which the server answers
   * once) — a create or an unkeyed join that landed before its answer was lost must not be
   * sent twice.
   */
  async request(method, path, { body, token, headers = {}, signal, replayable, waitSec = 0 } = {}) {
    const allHeaders = { accept: 'application/json, application/problem+json', ...headers };
    if (body !== undefined) allHeaders['content-type'] = 'application/json';
    if (token) {
      allHeaders.authorization = `Bearer ${token}`;
      const room = /^\/rooms\/([^/?]+)/.exec(path);
      if (room) this.lastSeenAt.set(room[1], Date.now());
    }
    const text = body === undefined ? undefined : JSON.stringify(body);
    // Behind CloudFront, origin access control signs the request to the Function URL, and Lambda
    // refuses an unsigned payload: the body's SHA-256 must come from the client (docs/deploy.md,
    // "Behind CloudFront"). Sent wherever the platform can hash (browsers: secure contexts only,
    // which a CloudFront deployment always is); every other server ignores it.
    if (text !== undefined) {
      const digest = await sha256Hex(text);
      if (digest) allHeaders['x-amz-content-sha256'] = digest;
    }
    const init = { method, headers: allHeaders, body: text };
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortError(signal);
      const limit = withTimeout(signal, this.timeoutMs + waitSec * 1000);
      let response;
      try {
        response = await this.fetch(this.baseUrl + path, { ...init, signal: limit.signal });
      } catch (cause) {
        limit.done();
        if (signal?.aborted) throw abortError(signal);
        if (replayable && attempt < this.retries) {
          await sleep(this.backoff(attempt), signal);
          continue;
        }
        throw new MadangError(
          {
            status: 0,
            code: 'NETWORK_ERROR',
            title: 'Network error',
            detail: '서버에 연결할 수 없어요. 네트워크를 확인해 주세요.',
          },
          { cause },
        );
      }
      limit.done();
      const retry = response.status === 429 || (replayable && RETRYABLE.has(response.status));
      if (retry && attempt < this.retries) {
        const after = retryAfterMs(response.headers.get('retry-after'));
        await response.body?.cancel().catch(() => {});
        await sleep(Math.min(this.maxBackoffMs, after ?? this.backoff(attempt)), signal);
        continue;
      }
      return response;
    }
  }

  async #json(method, path, options) {
    const response = await this.request(method, path, options);
    if (!response.ok) throw await problemOf(response);
    return response.json();
  }

  /** `GET /games/{kind}`: the option schema of a game (options, constraints, presets). */
  games(kind, { signal } = {}) {
    return this.#json('GET', `/games/${encodeURIComponent(kind)}`, { signal, replayable: true });
  }

  /** `POST /rooms`: creates a room; the creator is its host. Keep the `token`: it is shown once. */
  createRoom(body, { signal } = {}) {
    return this.#json('POST', '/rooms', { body, signal });
  }

  /**
   * `POST /rooms/{id}/players`: takes a lobby seat. The join carries an `Idempotency-Key` (a
   * fresh one unless given), reused on each retry: a join whose answer was lost gets the seat it
   * took, never a second one. `token`: the seat this client held in the room before, if any (a
   * kicked seat cannot take another).
   */
  joinRoom(roomId, name, { signal, token, idempotencyKey } = {}) {
    return this.#json('POST', `/rooms/${encodeURIComponent(roomId)}/players`, {
      body: { name },
      token,
      headers: { 'idempotency-key': idempotencyKey ?? newIdempotencyKey() },
      signal,
      replayable: true,
    });
  }

  /**
   * `GET /rooms/{id}`. With `since`, a long-poll: the answer comes when the version passes
   * `since` (or after `wait` seconds), and `null` means nothing changed (304, also the answer to
   * the ETag sent as `If-None-Match`).
   */
  async getRoom(roomId, { token, since, wait, signal } = {}) {
    const query = new URLSearchParams();
    const headers = {};
    if (since != null) {
      query.set('since', String(since));
      headers['if-none-match'] = `"${since}"`;
      if (wait) query.set('wait', String(Math.min(wait, MAX_WAIT_SECONDS)));
    }
    const qs = query.size ? `?${query}` : '';
    const response = await this.request('GET', `/rooms/${encodeURIComponent(roomId)}${qs}`, {
      token,
      headers,
      signal,
      replayable: true,
      waitSec: since != null ? (wait ?? 0) : 0,
    });
    if (response.status === 304) return null;
    if (!response.ok) throw await problemOf(response);
    return response.json();
  }

  /**
   * `POST /rooms/{id}/actions`. Every action carries an `Idempotency-Key` (a fresh one unless
   * given), reused on each retry, so an answer lost on the way back is replayed by the server
   * instead of acting twice (`replayed: true` then). With `expectedVersion` a stale version is
   * refused: the `MadangError` has code `VERSION_CONFLICT` and the current `room`.
   */
  async act(roomId, token, action, { expectedVersion, idempotencyKey, signal } = {}) {
    const key = idempotencyKey ?? newIdempotencyKey();
    const body = expectedVersion == null ? { action } : { expectedVersion, action };
    const response = await this.request('POST', `/rooms/${encodeURIComponent(roomId)}/actions`, {
      body,
      token,
      headers: { 'idempotency-key': key },
      signal,
      replayable: true,
    });
    if (!response.ok) throw await problemOf(response);
    const acted = await response.json();
    acted.replayed = response.headers.get('idempotent-replayed') === 'true';
    acted.idempotencyKey = key;
    return acted;
  }

  /** `GET /rooms/{id}/sgf`: a 바둑 game record. */
  async sgf(roomId, { signal } = {}) {
    const response = await this.request('GET', `/rooms/${encodeURIComponent(roomId)}/sgf`, {
      signal,
      replayable: true,
    });
    if (!response.ok) throw await problemOf(response);
    return response.text();
  }

  /**
   * `GET /rooms/{id}/at/{n}`: the room as a spectator saw it after the game's n-th step (0: the
   * start), with `replay: {at, of}`. A step past the last is a `MadangError` with code
   * `STEP_NOT_FOUND`; a game started before rooms kept a replay log, `REPLAY_NOT_KEPT`.
   */
  replayStep(roomId, n, { signal } = {}) {
    return this.#json('GET', `/rooms/${encodeURIComponent(roomId)}/at/${encodeURIComponent(String(n))}`, {
      signal,
      replayable: true,
    });
  }

  /**
   * `GET /rooms/{id}/review`: the 바둑 review of a finished game (참고용): black's score lead after
   * every move and the three largest swings. `{status: 'computing', retryAfterSecs}` while the
   * server computes it (202; ask again after that many seconds). A 윷놀이 room is a `MadangError`
   * with code `NOT_AVAILABLE`, a game not over `NOT_FINISHED`, one without a replay log
   * `REPLAY_NOT_KEPT`.
   */
  async review(roomId, { signal } = {}) {
    const response = await this.request('GET', `/rooms/${encodeURIComponent(roomId)}/review`, {
      signal,
      replayable: true,
    });
    if (!response.ok) throw await problemOf(response);
    return response.json();
  }

  /**
   * `GET /rooms/{id}/chat?after=N`: the chat messages the caller may see (a player with their
   * token: the room's and their team's; a spectator: the room's and the gallery's), numbered above
   * `after`, oldest first. `null` when nothing is newer (304).
   */
  async chat(roomId, { token, after = 0, signal } = {}) {
    const response = await this.request('GET', `/rooms/${encodeURIComponent(roomId)}/chat?after=${after}`, {
      token,
      headers: { 'if-none-match': `"${after}"` },
      signal,
      replayable: true,
    });
    if (response.status === 304) return null;
    if (!response.ok) throw await problemOf(response);
    return (await response.json()).messages;
  }

  /**
   * `POST /rooms/{id}/chat`: says `{text}` or `{emote}` (`to: 'team'` for the team only). A
   * spectator sends no token and a `name`; their message reaches spectators only. Resolves to
   * `{seq}`.
   */
  say(roomId, body, { token, signal } = {}) {
    return this.#json('POST', `/rooms/${encodeURIComponent(roomId)}/chat`, { body, token, signal });
  }

  /** `POST /rooms/{id}/chat/mute` (host): mutes or unmutes a member; resolves to `{muted}`. */
  muteChat(roomId, token, playerId, muted, { signal } = {}) {
    return this.#json('POST', `/rooms/${encodeURIComponent(roomId)}/chat/mute`, {
      body: { playerId, muted },
      token,
      signal,
    });
  }

  /**
   * Long-polls a room until stopped: `onRoom(room)` gets every new version. Failures back off
   * (exponentially, up to `maxBackoffMs`) and go to `onError`; a room that is gone (404) or a
   * refused token (401/403) stops the loop. Returns `{stop, done}`.
   */
  watch(roomId, { token, since, wait = MAX_WAIT_SECONDS, onRoom, onError, signal } = {}) {
    const controller = new AbortController();
    if (signal) {
      if (signal.aborted) controller.abort();
      else signal.addEventListener('abort', () => controller.abort(), { once: true });
    }
    // `since` may be a function: the caller may have learnt newer versions from its own actions.
    const held = typeof since === 'function' ? since : () => undefined;
    let version = typeof since === 'function' ? undefined : since;
    const done = (async () => {
      let failures = 0;
      while (!controller.signal.aborted) {
        const known = held();
        if (known != null && (version == null || known > version)) version = known;
        try {
          const room = await this.getRoom(roomId, {
            token,
            since: version,
            wait,
            signal: controller.signal,
          });
          failures = 0;
          // Stopped while the answer was on its way: it is not for this caller any more.
          if (controller.signal.aborted) break;
          if (room) {
            const advanced = version == null || room.version > version;
            version = room.version;
            onRoom?.(room);
            // A 200 without a newer version (a timeout came due but had not fired yet) must not
            // turn into a busy loop.
            if (!advanced) await sleep(this.backoffMs, controller.signal);
          }
        } catch (error) {
          if (controller.signal.aborted) break;
          onError?.(error);
          if (error instanceof MadangError && [401, 403, 404].includes(error.status)) break;
          await sleep(this.backoff(failures++), controller.signal).catch(() => {});
        }
      }
    })();
    return { stop: () => controller.abort(), done };
  }

  /**
   * Watches a room through its live channel (`liveUrl`, a WebSocket announcing new versions):
   * sends `hello` with the last version known, reads the room once per announced version, and
   * `onRoom(room)` gets each newer room. The socket counts as up only once the server has
   * answered its hello (a `version` or a `pong` frame): an open socket whose hello goes
   * unanswered (a proxy that drops frames, a server that refused it) is no channel, so the room
   * is polled meanwhile, and a socket still unanswered after `helloTimeoutMs` (10 s) is closed
   * and opened again. While the socket is up the room is read only when a version is announced
   * and at the room's next deadline (`deadlineAt`, so a timeout is seen the moment it fires);
   * while it is not — never connected or answered, dropped, refused, cut after API Gateway's
   * 2 hours, asleep with the phone — the room is polled on its `pollAfterMs` schedule, and the
   * socket is reopened with backoff (at once when the page becomes visible or the network comes
   * back). A `ping` every `heartbeatMs` (9 min) keeps API Gateway's 10-minute idle cut away.
   * A refused token or a gone room (`UNAUTHORIZED`, `ROOM_NOT_FOUND`) stops it, like a 401/404.
   * `status(up)` hears the channel go up (its hello answered) and down. Chat: `onChat(message)` gets each chat message
   * `M` the server sends (`{"type":"chat","message":M}`: only what this caller may see, and only
   * what is posted after the hello). The hello is followed by a `ping`; its `pong` says the hello
   * was taken, and `onHello()` is called then — the moment to catch up on chat with
   * `chat(roomId, {after})`, since from then on nothing this caller may see is missed by the
   * socket. A `version` frame that carries the caller's own `room` view is taken as it is, with
   * no read. While the socket is up the loop sleeps until the newest room's `deadlineAt` (plus
   * `deadlineSlackMs`), re-arming whenever a newer room arrives (over the socket, by a read, or
   * from `latest()`, the caller's newest room, after `rearm()`), and reads once per deadline.
   * `now()` is the clock deadlines are compared with (default `Date.now`). Returns
   * `{stop, done, rearm}`: `rearm()` says the caller holds a newer room (its own action's answer).
   */
  watchLive(roomId, {
    token,
    since,
    liveUrl,
    room: first,
    latest,
    onRoom,
    onChat,
    onHello,
    onError,
    status,
    signal,
    WebSocket: Socket = globalThis.WebSocket,
    heartbeatMs = 9 * 60 * 1000,
    helloTimeoutMs = 10 * 1000,
    deadlineSlackMs = 100,
    now = () => Date.now(),
    keepPresentMs = 30 * 1000,
  } = {}) {
    const controller = new AbortController();
    if (signal) {
      if (signal.aborted) controller.abort();
      else signal.addEventListener('abort', () => controller.abort(), { once: true });
    }
    const held = typeof since === 'function' ? since : () => undefined;
    let version = typeof since === 'function' ? undefined : since;
    let room = first ?? null;
    let socket = null;
    let up = false;
    let failures = 0;
    let wake = () => {};
    const known = () => {
      const h = held();
      if (h != null && (version == null || h > version)) version = h;
      return version;
    };
    const stopWith = (error) => {
      onError?.(error);
      controller.abort();
    };
    // The newest room at hand: ours, or the caller's (its own action's answer).
    const newest = () => {
      const theirs = latest?.();
      return theirs && (!room || theirs.version > room.version) ? theirs : room;
    };
    // Takes a newer room (read, or carried by a `version` frame) and re-arms the deadline.
    const take = (fresh) => {
      if (room == null || fresh.version >= room.version) room = fresh;
      if (version == null || fresh.version > version) {
        version = fresh.version;
        onRoom?.(fresh);
      }
      wake();
    };
    // Reads the room once; hands on a newer one.
    const read = async () => {
      const fresh = await this.getRoom(roomId, { token, since: known(), signal: controller.signal });
      if (controller.signal.aborted || !fresh) return;
      take(fresh);
    };
    const readSafely = () =>
      read().catch((error) => {
        if (controller.signal.aborted) return;
        if (error instanceof MadangError && [401, 403, 404].includes(error.status)) stopWith(error);
        else onError?.(error);
      });
    let heartbeat = null;
    let awaitingHello = null;
    const connect = () => {
      if (controller.signal.aborted || !Socket || !liveUrl) return;
      let ws;
      try {
        ws = new Socket(liveUrl);
      } catch (error) {
        onError?.(error);
        return;
      }
      socket = ws;
      let unanswered = null;
      let beat = null;
      // Gives this socket up: the loop opens another (with backoff). Its own close may come much
      // later (a peer that never answers the closing handshake) and is ignored then.
      const abandon = () => {
        clearTimeout(unanswered);
        clearInterval(beat);
        if (socket !== ws) return false;
        socket = null;
        const wasUp = up;
        up = false;
        if (wasUp) status?.(false);
        wake();
        return true;
      };
      ws.onopen = () => {
        const hello = { type: 'hello', roomId, since: known() ?? 0 };
        if (token) hello.token = token;
        ws.send(JSON.stringify(hello));
        // The server answers frames in order: this ping's pong says the hello was taken. Until
        // an answer comes the channel is not up (the loop keeps polling); none in time, and the
        // socket is given up and opened again.
        awaitingHello = ws;
        ws.send('{"type":"ping"}');
        unanswered = setTimeout(() => !up && abandon() && ws.close(), helloTimeoutMs);
        beat = setInterval(() => ws.readyState === 1 && ws.send('{"type":"ping"}'), heartbeatMs);
        heartbeat = beat;
      };
      ws.onmessage = (event) => {
        let frame;
        try {
          frame = JSON.parse(typeof event.data === 'string' ? event.data : '');
        } catch {
          return;
        }
        if (socket !== ws) return;
        if ((frame.type === 'version' || frame.type === 'pong') && !up) {
          // The hello is answered: the channel is up, and the loop stops polling.
          clearTimeout(unanswered);
          up = true;
          failures = 0;
          status?.(true);
          wake();
        }
        if (frame.type === 'version' && (known() == null || frame.version > known())) {
          // The frame may carry our own view of the room: then there is nothing to read.
          if (frame.room && typeof frame.room === 'object' && frame.room.version === frame.version) take(frame.room);
          else readSafely();
        }
        if (frame.type === 'chat' && frame.message) onChat?.(frame.message);
        if (frame.type === 'pong' && awaitingHello === ws) {
          awaitingHello = null;
          onHello?.();
        }
        if (frame.type === 'error' && ['UNAUTHORIZED', 'ROOM_NOT_FOUND'].includes(frame.code)) {
          stopWith(new MadangError({ status: frame.code === 'UNAUTHORIZED' ? 401 : 404, code: frame.code }));
        }
      };
      ws.onclose = () => abandon();
      ws.onerror = () => {};
    };
    // Phones: a page made visible again or a network back reopens the socket at once.
    const retryNow = () => {
      if (!socket) {
        failures = 0;
        wake();
      }
    };
    const doc = globalThis.document;
    doc?.addEventListener?.('visibilitychange', retryNow);
    globalThis.addEventListener?.('online', retryNow);
    const nap = (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(done, Math.max(0, ms));
        function done() {
          clearTimeout(timer);
          wake = () => {};
          controller.signal.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        controller.signal.addEventListener('abort', done, { once: true });
      });
    // The deadline already read for (once per deadline: a read that finds nothing fired yet,
    // say with a skewed clock, does not spin; the sweeper's change is announced anyway).
    let deadlineRead = null;
    const done = (async () => {
      let nextTry = 0;
      while (!controller.signal.aborted) {
        if (!socket && Date.now() >= nextTry) {
          connect();
          nextTry = Date.now() + this.backoff(failures++) + 1000;
        }
        if (up) {
          // Up: the socket announces changes; only a deadline needs a read of our own. A newer
          // room (over the socket, or the caller's via `rearm`) wakes the nap to re-arm.
          const deadline = newest()?.deadlineAt ?? null;
          const pending = deadline != null && deadline !== deadlineRead;
          // A player is present while it makes requests (the server's presence window is 45 s);
          // rooms that arrive over the socket need none, so a player that neither acts nor reads
          // for `keepPresentMs` reads once to stay present (spectators have no presence).
          const presenceDue = () =>
            token && newest()?.status !== 'finished'
              ? (this.lastSeenAt.get(encodeURIComponent(roomId)) ?? 0) + keepPresentMs
              : Infinity;
          await nap(
            Math.min(pending ? deadline - now() + deadlineSlackMs : 60 * 60 * 1000, presenceDue() - Date.now()),
          );
          if (
            up &&
            !controller.signal.aborted &&
            pending &&
            now() >= deadline &&
            (newest()?.deadlineAt ?? null) === deadline
          ) {
            deadlineRead = deadline;
            await readSafely();
          } else if (up && !controller.signal.aborted && Date.now() >= presenceDue()) {
            await readSafely();
          }
        } else {
          // Down: poll on the room's own schedule, and try the socket again in between.
          await readSafely();
          const pollIn = room?.pollAfterMs ?? 1000;
          await nap(socket ? pollIn : Math.min(pollIn, Math.max(0, nextTry - Date.now())));
        }
      }
      clearInterval(heartbeat);
      doc?.removeEventListener?.('visibilitychange', retryNow);
      globalThis.removeEventListener?.('online', retryNow);
      socket?.close();
    })();
    return { stop: () => controller.abort(), done, rearm: () => up && wake() };
  }

  /** A handle on one room for one seat (or a spectator, without a token). */
  session({ roomId, token = null, playerId = null, room = null }) {
    const id = roomId ?? room?.roomId;
    if (!id) throw new TypeError('session needs a roomId or a room');
    return new RoomSession(this, id, token, playerId, room);
  }
}

/**
 * One room seen by one caller: keeps the newest room it has seen (from answers, long-polls and
 * 409s), so `act(…, {pin: true})` can pin the version the player acted on.
 */
export class RoomSession {
  constructor(client, roomId, token, playerId, room) {
    this.client = client;
    this.roomId = roomId;
    this.token = token;
    this.playerId = playerId;
    this.room = room;
    /** @type {Set<(room: object) => void>} */
    this.listeners = new Set();
  }

  /**
   * Keeps `room` if it is newer than the one held (or as new, with `replace`: a fresh read may
   * see the same version through other eyes, e.g. just after joining), and tells the listeners.
   */
  accept(room, { replace = false } = {}) {
    if (!room) return false;
    if (this.room && (replace ? room.version < this.room.version : room.version <= this.room.version)) {
      return false;
    }
    this.room = room;
    for (const listener of this.listeners) listener(room);
    return true;
  }

  /** Reads the room now. */
  async refresh({ signal } = {}) {
    const room = await this.client.getRoom(this.roomId, { token: this.token, signal });
    this.accept(room, { replace: true });
    return room;
  }

  /**
   * Sends an action. `pin: true` sends the held version as `expectedVersion`; on a conflict the
   * current room from the 409 is kept (and told) before the error is thrown.
   */
  async act(action, { pin = false, expectedVersion, idempotencyKey, signal } = {}) {
    const expected = expectedVersion ?? (pin ? this.room?.version : undefined);
    try {
      const acted = await this.client.act(this.roomId, this.token, action, {
        expectedVersion: expected,
        idempotencyKey,
        signal,
      });
      this.accept(acted.room);
      return acted;
    } catch (error) {
      if (error instanceof MadangError && error.room) this.accept(error.room);
      throw error;
    }
  }

  /**
   * Watches from the held version; `listener` gets every newer room. Through the live channel
   * when the room has a `liveUrl` and a WebSocket is at hand ([`MadangClient.watchLive`],
   * `status(up)` hears the socket; `onChat`, `onHello` as there), else by long-polling (no chat
   * frames: poll `chat()`). Returns `{stop, done}`.
   */
  watch(listener, { onError, onChat, onHello, signal, status, WebSocket = globalThis.WebSocket } = {}) {
    if (listener) this.listeners.add(listener);
    const options = {
      token: this.token,
      since: () => this.room?.version,
      onRoom: (room) => this.accept(room),
      onError,
      signal,
    };
    const handle =
      this.room?.liveUrl && WebSocket
        ? this.client.watchLive(this.roomId, {
            ...options,
            liveUrl: this.room.liveUrl,
            room: this.room,
            latest: () => this.room,
            status,
            onChat,
            onHello,
            WebSocket,
          })
        : this.client.watch(this.roomId, options);
    // A room this session takes from elsewhere (its own action's answer, which the live
    // channel does not echo back) may bring a new deadline: the live loop re-arms on it.
    const rearm = handle.rearm ? () => handle.rearm() : null;
    if (rearm) this.listeners.add(rearm);
    return {
      stop: () => {
        if (listener) this.listeners.delete(listener);
        if (rearm) this.listeners.delete(rearm);
        handle.stop();
      },
      done: handle.done,
    };
  }
}
