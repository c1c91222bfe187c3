// Table talk: the chat drawer of a room (lobby and both game screens). Messages arrive over the
// room's live socket (`{"type":"chat","message":M}`, handed in by `receive`); once a socket's
// hello is taken (`hello()`) the drawer catches up once with `GET /rooms/{id}/chat?after=N`, and
// while the socket is down (`live(false)`: never up, dropped, blocked) it polls that every few
// seconds instead. Every message is drawn with textContent, never as HTML.
//
// Tabs: 전체 (the room), 팀 (a 윷놀이 team game, players only), 관전석 (spectators only: the
// gallery's talk, which players never receive). An emote bar sends the game's fixed phrases
// (`GET /games/{kind}` → chat.emotes); unread counts show on the toggle and on each tab.
//
// Layout: the toggle sits in the page header; the drawer is part of the page below the game on a
// phone (it never floats over the board), and a column to the right of it on a wide screen.
import { h, seats, showError } from './ui.js';

/** How often the drawer asks for new messages while the live socket is down. */
const POLL_MS = 2500;

const TAB_LABEL = { room: '전체', team: '팀', spectators: '관전석' };

/** The drawer for `session`'s room; call `update(room)` on every render, `destroy()` on leave. */
export function chatDrawer(client, session) {
  const state = {
    room: null,
    messages: [],
    last: 0,
    token: session.token,
    open: false,
    tab: 'room',
    unread: { room: 0, team: 0, spectators: 0 },
    emotes: null,
    emotesFor: null,
    timer: null,
    stopped: false,
    // The page was hidden long enough to stop watching (web/app.js): no polling until shown.
    paused: false,
    muted: [],
    // The live socket is up and its hello taken: messages come by it, no polling.
    live: false,
    ticking: false,
    seen: new Set(),
  };

  const badge = h('span', { class: 'chat-badge', testid: 'chat-unread', hidden: true });
  const toggle = h('button', {
    class: 'chat-toggle secondary small', type: 'button', testid: 'chat-toggle', 'aria-expanded': 'false',
    onclick: () => setOpen(!state.open),
  }, '채팅 ', badge);
  const tabs = h('div', { class: 'chat-tabs', role: 'tablist' });
  const list = h('ol', { class: 'chat-list', testid: 'chat-list', 'aria-live': 'polite' });
  const emoteBar = h('div', { class: 'chat-emotes', testid: 'chat-emotes' });
  const input = h('input', {
    class: 'chat-input', testid: 'chat-input', maxlength: '200', autocomplete: 'off', placeholder: '메시지',
    'aria-label': '채팅 메시지',
  });
  const nameInput = h('input', {
    class: 'chat-name', testid: 'chat-name', maxlength: '20', placeholder: '관전자 이름', 'aria-label': '관전자 이름',
  });
  const note = h('p', { class: 'chat-note', testid: 'chat-note' });
  const form = h('form', {
    class: 'chat-form',
    onsubmit: (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (text) send({ text }).then((ok) => ok && (input.value = ''));
    },
  }, nameInput, input, h('button', { class: 'primary small', type: 'submit', testid: 'chat-send', text: '보내기' }));
  const panel = h('aside', { class: 'chat-panel', testid: 'chat-panel', hidden: true, 'aria-label': '채팅' },
    tabs, list, note, emoteBar, form);

  function me() {
    return state.room?.players.find((p) => p.id === state.room.you) ?? null;
  }

  /** The tabs this viewer has: 전체, then 팀 (team players) or 관전석 (spectators). */
  function tabsOf() {
    const mine = me();
    if (!mine) return ['room', 'spectators'];
    return mine.team != null ? ['room', 'team'] : ['room'];
  }

  function setOpen(open) {
    state.open = open;
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('chat-open', open);
    if (open) {
      state.unread[state.tab] = 0;
      draw();
      list.scrollTop = list.scrollHeight;
    }
    drawBadges();
  }

  function drawBadges() {
    const total = Object.values(state.unread).reduce((a, b) => a + b, 0);
    badge.hidden = total === 0;
    badge.textContent = String(total);
    for (const button of tabs.querySelectorAll('button')) {
      const n = state.unread[button.dataset.tab];
      button.querySelector('.chat-badge').hidden = n === 0;
      button.querySelector('.chat-badge').textContent = String(n);
    }
  }

  /** What the current tab can send, and the note when it cannot. */
  function composer() {
    const spectator = !me();
    const setting = state.room?.options?.chat ?? 'on';
    let blocked = null;
    if (setting === 'off') blocked = '이 방은 채팅을 쓰지 않아요.';
    else if (spectator && state.tab === 'room') blocked = '관전자는 관전석 탭에서 관전자끼리만 말할 수 있어요.';
    note.textContent = blocked ?? '';
    note.hidden = !blocked;
    form.hidden = Boolean(blocked);
    emoteBar.hidden = Boolean(blocked);
    input.hidden = setting === 'emotes';
    form.querySelector('button').hidden = setting === 'emotes';
    nameInput.hidden = !spectator;
    if (spectator && !nameInput.value) nameInput.value = seats.name();
  }

  function draw() {
    const available = tabsOf();
    if (!available.includes(state.tab)) state.tab = 'room';
    tabs.replaceChildren(...available.map((tab) => h('button', {
      type: 'button', role: 'tab', class: `chat-tab${tab === state.tab ? ' active' : ''}`, 'data-tab': tab,
      testid: `chat-tab-${tab}`, 'aria-selected': String(tab === state.tab),
      onclick: () => {
        state.tab = tab;
        state.unread[tab] = 0;
        draw();
        drawBadges();
      },
    }, TAB_LABEL[tab], ' ', h('span', { class: 'chat-badge', hidden: true }))));
    const shown = state.messages.filter((m) => m.to === state.tab);
    list.replaceChildren(...shown.map((m) => {
      const li = h('li', { class: `chat-message to-${m.to}${m.from && m.from === state.room?.you ? ' mine' : ''}`, testid: 'chat-message', 'data-seq': m.seq });
      // Text only: names and messages are set as textContent, never parsed as HTML.
      li.append(h('span', { class: 'chat-from', text: m.name }), h('span', { class: `chat-text${m.emote ? ' emote' : ''}`, text: m.text ?? m.emote }));
      const host = state.room && state.room.hostId === state.room.you;
      if (host && m.from && m.from !== state.room.you && state.room.players.some((p) => p.id === m.from)) {
        const muted = state.muted.includes(m.from);
        li.append(h('button', {
          type: 'button', class: 'chat-mute secondary small', testid: 'chat-mute', text: muted ? '풀기' : '막기',
          title: muted ? '채팅 막기를 풀어요' : '이 사람의 채팅을 막아요',
          onclick: () => mute(m.from, !muted),
        }));
      }
      return li;
    }));
    list.scrollTop = list.scrollHeight;
    composer();
    drawEmotes();
    drawBadges();
  }

  function drawEmotes() {
    const emotes = state.emotes ?? [];
    if (emoteBar.childElementCount === emotes.length) return;
    emoteBar.replaceChildren(...emotes.map((emote) => h('button', {
      type: 'button', class: 'chat-emote', testid: 'chat-emote', text: emote, onclick: () => send({ emote }),
    })));
  }

  async function send(said) {
    const body = { ...said };
    if (state.tab === 'team') body.to = 'team';
    const spectator = !me();
    if (spectator) {
      body.name = nameInput.value.trim();
      if (!body.name) {
        nameInput.focus();
        return false;
      }
      seats.saveName(body.name);
    }
    try {
      await client.say(session.roomId, body, { token: spectator ? null : session.token });
      // Live, the message comes back over the socket like everyone else's.
      if (!state.live) await poll();
      return true;
    } catch (e) {
      showError(e);
      return false;
    }
  }

  /** The host mutes (or unmutes) a member's chat. */
  async function mute(playerId, muted) {
    try {
      state.muted = (await client.muteChat(session.roomId, session.token, playerId, muted)).muted;
      draw();
    } catch (e) {
      showError(e);
    }
  }

  async function poll() {
    if (state.stopped) return;
    // Joining (or leaving) changes what this viewer may read: start over with the new rights.
    if (session.token !== state.token) {
      state.token = session.token;
      state.messages = [];
      state.last = 0;
      state.seen = new Set();
      state.unread = { room: 0, team: 0, spectators: 0 };
    }
    try {
      const fresh = await client.chat(session.roomId, { token: state.token, after: state.last });
      if (!fresh || state.stopped) return;
      for (const m of fresh) {
        state.last = Math.max(state.last, m.seq);
        add(m);
      }
      draw();
    } catch {
      // A failed poll is retried on the next tick; the room screen reports connection trouble.
    }
  }

  /**
   * Keeps one message (from a poll or the socket), once, in `seq` order. Only polls move the poll
   * cursor `last`: a message from the socket may overtake older ones a catch-up has yet to bring.
   */
  function add(m) {
    if (state.seen.has(m.seq)) return false;
    state.seen.add(m.seq);
    state.messages.push(m);
    state.messages.sort((a, b) => a.seq - b.seq);
    if (state.messages.length > 100) state.messages = state.messages.slice(-100);
    const mine = m.from != null && m.from === state.room?.you;
    if (!mine && !(state.open && state.tab === m.to)) state.unread[m.to] += 1;
    return true;
  }

  function tick() {
    // One chain of polls at a time: a poll in flight schedules the next itself.
    if (state.stopped || state.paused || state.ticking) return;
    clearTimeout(state.timer);
    if (state.live) return;
    state.ticking = true;
    poll().finally(() => {
      state.ticking = false;
      if (!state.stopped && !state.paused && !state.live) state.timer = setTimeout(tick, POLL_MS);
    });
  }

  const header = document.querySelector('header.top');
  header?.append(toggle);
  document.body.append(panel);
  tick();

  return {
    /** A message the live socket brought (only what this viewer may see). */
    receive(m) {
      if (state.stopped || session.token !== state.token) return;
      if (add(m)) draw();
    },
    /** The live socket's hello was taken: catch up once; the socket brings the rest. */
    hello() {
      if (state.stopped) return;
      state.live = true;
      clearTimeout(state.timer);
      poll();
    },
    /** The live socket went up or down; down: poll again until the next hello. */
    live(up) {
      if (up || state.stopped) return;
      state.live = false;
      tick();
    },
    /** The page stopped watching (hidden): no polling until `resume()`. */
    pause() {
      state.paused = true;
      clearTimeout(state.timer);
    },
    /**
     * The page watches again. The new socket's hello catches up (`hello()`); only if none has
     * come a poll interval later (a network that refuses sockets) does polling start again.
     */
    resume() {
      state.paused = false;
      clearTimeout(state.timer);
      if (!state.stopped && !state.live) state.timer = setTimeout(tick, POLL_MS);
    },
    /** Takes the room as the page now shows it (tabs, rights, the option, the game's emotes). */
    update(room) {
      state.room = room;
      if (state.emotesFor !== room.game) {
        state.emotesFor = room.game;
        client.games(room.game).then((schema) => {
          state.emotes = schema.chat?.emotes ?? [];
          drawEmotes();
        }).catch(() => {});
      }
      draw();
    },
    destroy() {
      state.stopped = true;
      clearTimeout(state.timer);
      toggle.remove();
      panel.remove();
      document.body.classList.remove('chat-open');
    },
  };
}
