// The Madang web app: the lobby at `/`, a room at `/r/{roomId}` (the share link). It talks to
// the API only through the client library the server serves at `/client/madang.js`.
import { MadangClient, MadangError } from '/client/madang.js';
import { commitmentLine, h, learnClock, seats, showError, syncClock, toast } from './ui.js';
import { createForm, roomLobby, joinForm } from './lobby.js';
import { yutScreen } from './yut.js';
import { badukScreen } from './baduk.js';
import { rulesButton, rulesView } from './rules.js';
import { soundToggle } from './sound.js';
import { chatDrawer } from './chat.js';
import { replayScreen } from './replay.js';

const client = new MadangClient();
const main = document.getElementById('main');

/** The room on screen: its session, its long-poll and the game screen drawing it. */
let current = null;

/**
 * A phone in a pocket pays for every message its open socket receives (docs/cost.md). A page
 * hidden this long stops watching — the socket closes, nothing is polled — and when it is shown
 * again it watches anew: one read and `hello` with the version it holds, current at once. Its
 * player's turn comes by the "your turn" alert, not by an open socket.
 */
const HIDDEN_CLOSE_MS = 30 * 1000;
let hiddenTimer = null;

document.addEventListener('visibilitychange', () => {
  clearTimeout(hiddenTimer);
  if (document.visibilityState === 'hidden') {
    hiddenTimer = setTimeout(park, HIDDEN_CLOSE_MS);
  } else if (current?.parked) {
    current.parked = false;
    current.chat?.resume();
    watchRoom(current);
  }
});

/** The page has been hidden long enough: stop watching the room on screen. */
function park() {
  if (!current?.watch || document.visibilityState !== 'hidden') return;
  current.parked = true;
  // Chat first: the socket closing would otherwise send the drawer back to polling.
  current.chat?.pause();
  current.watch.stop();
  current.watch = null;
}

/** Watches the room on screen: over its live socket when it has one, else by polling. */
function watchRoom(state) {
  state.watch?.stop();
  state.watch = state.session.watch(undefined, {
    ...chatOverLive(state.chat),
    onError: (e) => {
      if (e instanceof MadangError && e.status === 0) toast('연결이 끊겼어요. 다시 연결하는 중…', 'error');
    },
  });
}

function leaveRoomScreen() {
  current?.watch?.stop();
  current?.screen?.destroy?.();
  current?.chat?.destroy();
  current = null;
}

async function route() {
  leaveRoomScreen();
  const m = location.pathname.match(/^\/r\/([^/]+)$/);
  const rules = location.pathname.match(/^\/rules\/([^/]+)$/);
  const at = new URLSearchParams(location.search).get('at');
  if (m && at != null) await openReplay(decodeURIComponent(m[1]), at);
  else if (m) await openRoom(decodeURIComponent(m[1]));
  else if (rules) await openRulesPage(rules[1]);
  else await openLobby();
}

export function go(path) {
  history.pushState(null, '', path);
  route();
}
window.addEventListener('popstate', route);

// A tap on a "your turn" notification while this window is open: the service worker (web/sw.js)
// tells it which room to show, at the player's seat.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (event) => {
    const { type, url } = event.data ?? {};
    if (type !== 'open' || typeof url !== 'string' || !url.startsWith('/r/')) return;
    if (`${location.pathname}${location.search}` !== url) go(url);
  });
  navigator.serviceWorker.startMessages?.();
}

async function openLobby() {
  main.replaceChildren(
    await createForm(client, async (seated) => {
      seats.save(seated.roomId, { token: seated.token, playerId: seated.playerId });
      go(`/r/${encodeURIComponent(seated.roomId)}`);
    }),
  );
}

/** `/rules/{kind}` (`?room=ID`: under that room's options). */
async function openRulesPage(kind) {
  if (!GAME_KO[kind]) {
    main.replaceChildren(h('section', { class: 'card' }, h('h2', { text: '그런 게임은 없어요' }),
      h('a', { href: '/', class: 'button primary', text: '처음으로' })));
    return;
  }
  const roomId = new URLSearchParams(location.search).get('room');
  let options = null;
  try {
    if (roomId) options = (await client.getRoom(roomId))?.options ?? null;
  } catch {
    options = null;
  }
  const schema = await client.games(kind);
  main.replaceChildren(rulesView(kind, schema, options),
    h('p', {}, h('a', { href: roomId ? `/r/${encodeURIComponent(roomId)}` : '/', class: 'button primary', text: roomId ? '방으로 돌아가기' : '처음으로' })));
}

/** `/r/{id}?at=N`: the game's replay at step N (`end`: the latest step). */
async function openReplay(roomId, at) {
  const replay = await replayScreen(client, roomId, at);
  current = { screen: replay };
  main.replaceChildren(replay.el);
}

async function openRoom(roomId) {
  const seat = seats.get(roomId);
  const session = client.session({ roomId, token: seat?.token ?? null, playerId: seat?.playerId ?? null });
  try {
    await session.refresh();
  } catch (e) {
    if (e instanceof MadangError && e.status === 401 && seat) {
      // The stored token no longer opens this room (kicked, or another server): watch instead.
      seats.forget(roomId);
      return openRoom(roomId);
    }
    main.replaceChildren(
      h('section', { class: 'card' }, h('h2', { text: '방을 열 수 없어요' }), h('p', { text: e.detail || e.message }),
        h('a', { href: '/', class: 'button primary', text: '처음으로' })),
    );
    return;
  }
  current = { session, screen: null, kind: null, chat: chatDrawer(client, session), parked: false };
  const render = () => renderRoom(current);
  session.listeners.add(render);
  render();
  watchRoom(current);
}

/** The live socket's chat frames and state, handed to the chat drawer. */
function chatOverLive(chat) {
  return {
    onChat: (m) => chat?.receive(m),
    onHello: () => chat?.hello(),
    status: (up) => chat?.live(up),
  };
}

/**
 * 한 판 더: asks for the rematch unless another player already did, then moves into the new
 * lobby. The seat goes along — the old room's token works in the new room (same players, same
 * seats) — so the page opens there as the same player, at its own address.
 */
async function rematch() {
  const room = current?.session.room;
  if (!room) return;
  const next = room.rematchRoomId ?? (await act({ type: 'rematch' }))?.room?.rematchRoomId;
  if (!next) return;
  const seat = seats.get(room.roomId);
  if (seat) seats.save(next, seat);
  go(`/r/${encodeURIComponent(next)}`);
}

/** Sends an action for the room on screen; failures show their Korean detail. */
async function act(action, options = {}) {
  if (!current) return null;
  try {
    return await current.session.act(action, options);
  } catch (e) {
    showError(e);
    return null;
  }
}

function shareUrl(roomId) {
  return `${location.origin}/r/${encodeURIComponent(roomId)}`;
}

const STATUS_KO = { lobby: '모이는 중', playing: '게임 중', finished: '끝남' };
const GAME_KO = { yut: '윷놀이', baduk: '바둑' };

function roomHeader(room) {
  const url = shareUrl(room.roomId);
  const me = room.players.find((p) => p.id === room.you);
  return h('div', { class: 'room-head' },
    h('div', { class: 'room-title' },
      h('h1', { text: GAME_KO[room.game] ?? room.game }),
      h('span', { class: `status status-${room.status}`, testid: 'room-status', 'data-status': room.status, 'data-version': room.version, text: STATUS_KO[room.status] }),
      h('span', { class: 'me', text: me ? `나: ${me.name}` : '관전 중' }),
    ),
    h('div', { class: 'share' },
      h('a', { href: url, testid: 'share-link', class: 'share-link', text: url }),
      h('button', {
        class: 'secondary small', type: 'button', text: '링크 복사',
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(url);
            toast('링크를 복사했어요. 친구에게 보내 주세요.');
          } catch {
            toast(url);
          }
        },
      }),
    ),
    h('p', { class: 'rules-line', text: room.ruleSummary }),
    // A spectator who came in late steps back through the game so far (DESIGN "Replay").
    room.status === 'playing' ? h('a', {
      href: `/r/${encodeURIComponent(room.roomId)}?at=end`, class: 'button secondary small', testid: 'replay-open', text: '지난 수 보기',
    }) : null,
    rulesButton(client, room.game, () => room.options),
    commitmentLine(room),
  );
}

function renderRoom(state) {
  const { session } = state;
  const room = session.room;
  if (!room) return;
  learnClock(room);
  state.chat?.update(room);
  // Keep the focused control focused across the redraw (keyboard players).
  const focused = document.activeElement?.closest?.('[data-focus]')?.dataset.focus;
  const head = roomHeader(room);
  let body;
  if (room.status === 'lobby') {
    state.screen?.destroy?.();
    state.screen = null;
    body = h('div', { class: 'room-lobby' },
      room.you ? null : joinForm(client, room, async (seated) => {
        seats.save(room.roomId, { token: seated.token, playerId: seated.playerId });
        session.token = seated.token;
        session.playerId = seated.playerId;
        state.watch?.stop();
        await session.refresh();
        watchRoom(state);
        renderRoom(state);
      }),
      roomLobby(client, room, act, () => {
        seats.forget(room.roomId);
        go('/');
      }),
    );
  } else {
    if (!state.screen || state.kind !== room.game) {
      state.screen?.destroy?.();
      state.kind = room.game;
      state.screen = room.game === 'yut' ? yutScreen(act, { rematch }) : badukScreen(act, client, { rematch, session });
    }
    state.screen.update(room);
    body = state.screen.el;
  }
  const view = main.querySelector('.room');
  if (view) {
    view.replaceChildren(head, body);
  } else {
    main.replaceChildren(h('section', { class: 'room' }, head, body));
  }
  if (focused) main.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

document.querySelector('.top')?.append(soundToggle());

// The clock estimate only feeds the countdowns: the first screen does not wait for it.
syncClock(client);
route();
