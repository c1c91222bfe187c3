// Small DOM helpers shared by the screens: element builders, the seat store, toasts, dialogs,
// and the server clock estimate.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'testid') el.setAttribute('data-testid', v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: `h('button', {class: 'x', onclick}, '누르기')`. */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Seats kept per room in localStorage, so a reload or a lost connection rejoins at once. */
export const seats = {
  key: (roomId) => `madang.seat.${roomId}`,
  get(roomId) {
    try {
      return JSON.parse(localStorage.getItem(this.key(roomId)) ?? 'null');
    } catch {
      return null;
    }
  },
  save(roomId, seat) {
    localStorage.setItem(this.key(roomId), JSON.stringify(seat));
  },
  forget(roomId) {
    localStorage.removeItem(this.key(roomId));
  },
  name() {
    return localStorage.getItem('madang.name') ?? '';
  },
  saveName(name) {
    localStorage.setItem('madang.name', name);
  },
};

let toastTimer;
/** A short message at the bottom of the screen (errors say the server's Korean detail). */
export function toast(text, kind = 'info') {
  const el = document.getElementById('toast');
  el.textContent = text;
  el.dataset.kind = kind;
  el.classList.add('shown');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('shown'), 3500);
}

/** A modal question; resolves true when confirmed. The confirm button gets `testid`. */
export function ask(text, okLabel, testid) {
  const dialog = document.getElementById('dialog');
  document.getElementById('dialog-text').textContent = text;
  const ok = document.getElementById('dialog-ok');
  ok.textContent = okLabel;
  ok.dataset.testid = testid ?? 'dialog-ok';
  dialog.returnValue = '';
  dialog.showModal();
  ok.focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
  });
}

/**
 * The server's clock minus ours (ms), for countdowns: from `GET /healthz`'s `now`, taken as the
 * server's time halfway through the round trip; then raised whenever a view shows a turn that
 * started later than our estimate of the server's time (ours was behind, or a test moved the
 * server's dev clock on).
 */
let offset = 0;
export async function syncClock(client) {
  try {
    const before = Date.now();
    const r = await client.request('GET', '/healthz', { replayable: true });
    const { now } = await r.json();
    if (Number.isFinite(now)) offset = now - (before + Date.now()) / 2;
  } catch {
    offset = 0;
  }
}
/**
 * Learns from a room view what the server's now is at least: a turn cannot have started after
 * it, and a 윷놀이 deadline is at most `turnSeconds` after the action that set it.
 */
export function learnClock(room) {
  const perAction = room?.options?.turnSeconds;
  const bounds = [
    room?.state?.turnStartedAt,
    Number.isFinite(perAction) && room.deadlineAt != null ? room.deadlineAt - perAction * 1000 : null,
  ];
  for (const t of bounds) {
    if (Number.isFinite(t) && t > serverNow()) offset = t - Date.now();
  }
}
export function serverNow() {
  return Date.now() + offset;
}

/** `m:ss` of a duration. */
export function clock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, '0')}`;
}

/** Shows a failed action's Korean detail. */
export function showError(error) {
  toast(error?.detail || error?.message || '문제가 생겼어요.', 'error');
}

/** Lowercase hex of the SHA-256 of `hex`'s bytes, or null where Web Crypto is missing. */
async function sha256Hex(hex) {
  if (!globalThis.crypto?.subtle) return null;
  const bytes = new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The room's `rngCommitment`, small: shown from the start so players can later check that the
 * seed the result reveals is the one fixed before the first throw (docs/audit.md).
 */
export function commitmentLine(room) {
  if (!room.rngCommitment) return null;
  return h('p', { class: 'rng-line', testid: 'rng-commitment', title: room.rngCommitment },
    '공정성 확인값 ', h('code', { text: `${room.rngCommitment.slice(0, 16)}…` }));
}

/**
 * The result's `rngReveal`: seed and salt, and whether SHA-256(seed ‖ salt) is the commitment
 * the room showed — checked here in the browser, not taken on the server's word.
 */
export function revealBox(room) {
  const rv = room.result?.rngReveal;
  if (!rv) return null;
  const verdict = h('span', { class: 'rng-verdict', testid: 'rng-verdict', text: '확인 중…' });
  sha256Hex(rv.seed + rv.salt).then((d) => {
    if (d == null) verdict.textContent = '이 브라우저에서는 확인할 수 없어요';
    else if (d === room.rngCommitment) { verdict.textContent = '✔ 처음 공개한 확인값과 일치해요'; verdict.dataset.ok = 'true'; }
    else { verdict.textContent = '✘ 확인값과 다릅니다'; verdict.dataset.ok = 'false'; }
  }).catch(() => { verdict.textContent = '확인하지 못했어요'; });
  return h('details', { class: 'rng-reveal', testid: 'rng-reveal' },
    h('summary', {}, '공정성 확인 ', verdict),
    h('p', { class: 'hint', text: 'SHA-256(시드 ‖ 솔트)가 대국 전부터 보인 확인값과 같으면, 결과는 미리 정해진 난수대로 나온 것이에요.' }),
    h('dl', {},
      h('dt', { text: '확인값' }), h('dd', {}, h('code', { text: room.rngCommitment ?? '' })),
      h('dt', { text: '시드' }), h('dd', {}, h('code', { text: rv.seed })),
      h('dt', { text: '솔트' }), h('dd', {}, h('code', { text: rv.salt })),
      h('dt', { text: '사용한 난수' }), h('dd', { text: `${rv.words}개(32비트)` })));
}

/**
 * 한 판 더 on a result screen. A player of the finished game gets one button: it asks for the
 * rematch, or — once anyone has (`rematchRoomId`) — takes them to it. A spectator gets a link
 * to watch the new game once it exists. `onRematch` is the app's: it asks, then moves over.
 */
export function rematchBox(room, onRematch) {
  // A replay's last step shows the result too: no 한 판 더 there, and no 다시 보기 of itself.
  if (room.replay) return null;
  const again = h('a', {
    href: `/r/${encodeURIComponent(room.roomId)}?at=0`, class: 'button secondary', testid: 'replay-open', text: '다시 보기',
  });
  return h('div', { class: 'after-game' }, again, rematchOffer(room, onRematch));
}

/** 한 판 더 for a player of the finished game, or the way to watch the rematch. */
function rematchOffer(room, onRematch) {
  const me = room.players.find((p) => p.id === room.you);
  const next = room.rematchRoomId ?? null;
  if (me && !me.left) {
    return h('div', { class: 'rematch' },
      h('button', {
        type: 'button', class: 'primary big', testid: 'rematch', 'data-focus': 'rematch',
        'data-ready': next ? 'true' : 'false', onclick: onRematch,
        text: next ? '한 판 더: 새 판으로 가기' : '한 판 더',
      }),
      // Always there (empty until the new room exists), so the card does not jump.
      h('span', { class: 'hint', testid: 'rematch-hint', text: next ? '새 판이 열렸어요. 같은 자리로 가요.' : '' }));
  }
  return next ? h('a', {
    href: `/r/${encodeURIComponent(next)}`, class: 'button secondary', testid: 'rematch-watch', text: '새 판 구경하기',
  }) : null;
}
