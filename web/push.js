// "알림 받기": Web Push for a slow 바둑 game (docs/api.md, "Web Push"). The browser's permission
// prompt appears only when the player taps the button, never on load. One more tap stops it.
// While the page is open, the tab title says "(내 차례)" and the app icon carries a badge (where
// the Badging API exists) on the player's turn.

import { h, toast } from './ui.js';

const SUPPORTED = typeof navigator !== 'undefined' && 'serviceWorker' in navigator
  && typeof window !== 'undefined' && 'PushManager' in window && 'Notification' in window;

function stored(roomId) {
  try { return localStorage.getItem(`madang:push:${roomId}`); } catch { return null; }
}

function store(roomId, endpoint) {
  try {
    if (endpoint) localStorage.setItem(`madang:push:${roomId}`, endpoint);
    else localStorage.removeItem(`madang:push:${roomId}`);
  } catch { /* private mode: the button just forgets */ }
}

function keyBytes(base64url) {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - base64url.length % 4) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

async function call(method, path, token, body) {
  const r = await fetch(path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!r.ok) {
    const problem = await r.json().catch(() => ({}));
    throw new Error(problem.detail || '알림을 설정하지 못했어요.');
  }
}

/** Subscribes this browser for `roomId`'s seat of `token`; the endpoint, or null. */
export async function subscribe(roomId, token) {
  const keyAnswer = await fetch('/push');
  if (!keyAnswer.ok) throw new Error('이 서버는 알림을 보내지 않아요.');
  const { publicKey } = await keyAnswer.json();
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('알림이 허용되지 않았어요. 브라우저 설정에서 허용해 주세요.');
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription()
    ?? await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
  await call('PUT', `/rooms/${encodeURIComponent(roomId)}/push`, token, subscription.toJSON());
  store(roomId, subscription.endpoint);
  return subscription.endpoint;
}

/** Stops the pushes of `roomId` to this browser. */
export async function unsubscribe(roomId, token) {
  const endpoint = stored(roomId);
  if (endpoint) await call('DELETE', `/rooms/${encodeURIComponent(roomId)}/push`, token, { endpoint });
  store(roomId, null);
}

/**
 * The "알림 받기" control of a room, for a seated player of a game that pushes (바둑 under the
 * correspondence clock) while it runs; null otherwise.
 */
export function pushControl(room, token) {
  const slow = room.game === 'baduk' && room.options?.timeControl?.kind === 'correspondence';
  if (!slow || !token || room.status === 'finished') return null;
  if (!SUPPORTED) return h('p', { class: 'hint', testid: 'push-unsupported', text: '이 브라우저는 알림을 받을 수 없어요. 홈 화면에 추가하면 받을 수 있어요.' });
  const on = !!stored(room.roomId);
  const button = h('button', {
    type: 'button', class: 'secondary small', testid: 'push-toggle', 'aria-pressed': String(on),
    text: on ? '🔔 알림 끄기' : '🔔 알림 받기',
    onclick: async () => {
      button.disabled = true;
      try {
        if (stored(room.roomId)) {
          await unsubscribe(room.roomId, token);
          toast('이 방의 알림을 껐어요.');
        } else {
          await subscribe(room.roomId, token);
          toast('내 차례가 되면 알려 드릴게요.');
        }
      } catch (e) {
        toast(e.message, 'error');
      }
      const now = !!stored(room.roomId);
      button.textContent = now ? '🔔 알림 끄기' : '🔔 알림 받기';
      button.setAttribute('aria-pressed', String(now));
      button.disabled = false;
    },
  });
  return h('div', { class: 'push', testid: 'push' }, button,
    h('p', { class: 'hint', text: '내 차례가 되거나 시간이 얼마 남지 않았을 때 휴대폰으로 알려 드려요.' }));
}

const BASE_TITLE = typeof document !== 'undefined' ? document.title : '';

/** "(내 차례)" in the tab title and the app badge while it is the player's turn. */
export function markTurn(mine) {
  if (typeof document === 'undefined') return;
  const base = document.title.replace(/^\(내 차례\) /, '') || BASE_TITLE;
  document.title = mine ? `(내 차례) ${base}` : base;
  if (mine) navigator.setAppBadge?.(1)?.catch?.(() => {});
  else navigator.clearAppBadge?.()?.catch?.(() => {});
}
