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

/** The server's clock minus ours (ms), learnt from the `Date` of an answer. */
let offset = 0;
export async function syncClock(client) {
  try {
    const before = Date.now();
    const r = await client.request('GET', '/healthz', { replayable: true });
    const date = Date.parse(r.headers.get('date') ?? '');
    await r.body?.cancel();
    if (!Number.isNaN(date)) offset = date + 500 - (before + Date.now()) / 2;
  } catch {
    offset = 0;
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
