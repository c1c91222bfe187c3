// The lobby: the room-creation form drawn from `GET /games/{kind}` (every option, its values,
// the presets and the constraints as the server states them), the join form, and a room's
// seats with the host's controls.
import { h, seats, showError } from './ui.js';

const GAMES = [
  ['yut', '윷놀이'],
  ['baduk', '바둑'],
];

/** How a value is shown in a select. */
function valueLabel(v) {
  if (v === null) return '없음';
  if (v === true) return '예';
  if (v === false) return '아니오';
  return String(v);
}

function getPath(obj, key) {
  return key.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

function setPath(obj, key, value) {
  const parts = key.split('.');
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] ??= {};
  o[parts.at(-1)] = value;
}

function allowed(values, v) {
  if (values.oneOf) return values.oneOf.some((x) => x === v);
  const r = values.range;
  if (v === null) return r.orNull;
  return typeof v === 'number' && v >= r.min && v <= r.max;
}

function describe(values) {
  if (values.oneOf) return values.oneOf.map(valueLabel).join(', ');
  const r = values.range;
  return `${r.min}~${r.max}${r.orNull ? ' 또는 비움' : ''}`;
}

/**
 * The options form of a game's schema; `initial` holds the values to show (a room's options or
 * the defaults). Returns `{el, values()}`.
 */
export function optionsForm(schema, initial) {
  const controls = new Map();
  const hints = new Map();
  const playersHint = h('p', { class: 'hint players-hint', testid: 'players-hint' });
  const fields = schema.options.map((opt) => {
    const id = `opt-${opt.key.replace('.', '-')}`;
    let control;
    if (opt.values.oneOf) {
      control = h('select', { id, testid: `option-${opt.key}`, name: opt.key },
        opt.values.oneOf.map((v) => h('option', { value: String(v), text: valueLabel(v) })));
    } else {
      const r = opt.values.range;
      control = h('input', {
        id, type: 'number', inputmode: 'decimal', min: r.min, max: r.max, step: r.step,
        testid: `option-${opt.key}`, name: opt.key, placeholder: r.orNull ? '기본값' : null,
      });
    }
    controls.set(opt.key, { opt, control });
    const hint = h('span', { class: 'hint' });
    hints.set(opt.key, hint);
    control.addEventListener('change', () => {
      if (opt.key === 'ruleset') applyPreset(control.value);
      refresh();
    });
    return h('label', { class: 'field', for: id },
      h('span', { class: 'field-key', text: opt.key }),
      h('span', { class: 'field-label', text: opt.label }),
      control, hint);
  });

  function read(key) {
    const { opt, control } = controls.get(key);
    if (opt.values.oneOf) return opt.values.oneOf.find((v) => String(v) === control.value) ?? null;
    return control.value === '' ? null : Number(control.value);
  }
  function write(key, v) {
    const c = controls.get(key);
    if (!c) return;
    if (c.opt.values.oneOf) c.control.value = String(v);
    else c.control.value = v == null ? '' : String(v);
  }
  function values() {
    const out = {};
    for (const key of controls.keys()) setPath(out, key, read(key));
    return out;
  }
  function applyPreset(name) {
    const preset = schema.presets.find((p) => p.name === name);
    if (!preset) return;
    for (const key of controls.keys()) {
      const v = getPath(preset.options, key);
      if (v !== undefined) write(key, v);
    }
  }
  /** Marks what the constraints allow under the current values, with the server's reasons. */
  function refresh() {
    const now = values();
    for (const hint of hints.values()) hint.textContent = '';
    for (const { control } of controls.values()) {
      for (const o of control.querySelectorAll?.('option') ?? []) o.disabled = false;
    }
    playersHint.textContent = '';
    for (const c of schema.constraints) {
      const applies = Object.entries(c.when).every(([k, vs]) => vs.some((v) => v === getPath(now, k)));
      if (!applies) continue;
      for (const [key, vals] of Object.entries(c.then)) {
        if (key === 'players') {
          playersHint.textContent = `인원: ${describe(vals)}명 — ${c.reason}`;
          continue;
        }
        const entry = controls.get(key);
        if (!entry) continue;
        if (entry.opt.values.oneOf) {
          for (const o of entry.control.querySelectorAll('option')) {
            const v = entry.opt.values.oneOf.find((x) => String(x) === o.value);
            o.disabled = !allowed(vals, v);
          }
        }
        const ok = allowed(vals, read(key));
        hints.get(key).textContent = `${ok ? '' : '⚠ '}${describe(vals)} — ${c.reason}`;
        hints.get(key).classList.toggle('bad', !ok);
      }
    }
  }
  for (const opt of schema.options) {
    const v = getPath(initial, opt.key);
    write(opt.key, v === undefined ? opt.default : v);
  }
  refresh();
  const presets = schema.presets.length
    ? h('div', { class: 'presets' }, h('span', { class: 'presets-label', text: '묶음 설정:' }),
      schema.presets.map((p) =>
        h('button', {
          type: 'button', class: 'secondary small', testid: `preset-${p.name}`, text: p.label,
          onclick: () => {
            applyPreset(p.name);
            refresh();
          },
        })))
    : null;
  const el = h('fieldset', { class: 'options' }, h('legend', { text: '규칙' }), presets, playersHint,
    h('div', { class: 'fields' }, fields));
  return { el, values };
}

/** The first screen: pick a game, a name and the rules, and create the room. */
export async function createForm(client, onCreated) {
  const schemas = {};
  const gameSelect = h('select', { id: 'game', testid: 'game' },
    GAMES.map(([k, label]) => h('option', { value: k, text: label })));
  const name = h('input', {
    id: 'player-name', testid: 'player-name', maxlength: 20, required: true, autocomplete: 'nickname',
    placeholder: '예: 철수', value: seats.name(),
  });
  const slot = h('div', { class: 'options-slot' });
  const button = h('button', { type: 'submit', class: 'primary big', testid: 'create-room', text: '방 만들기' });
  let form = null;
  async function show() {
    const kind = gameSelect.value;
    try {
      schemas[kind] ??= await client.games(kind);
    } catch (e) {
      showError(e);
      return;
    }
    form = optionsForm(schemas[kind], {});
    slot.replaceChildren(form.el, h('p', { class: 'hint', text: kind === 'baduk' ? '처음이라면 9줄 판을 추천해요.' : '' }));
  }
  gameSelect.addEventListener('change', show);
  await show();
  const el = h('form', {
    class: 'card create',
    onsubmit: async (ev) => {
      ev.preventDefault();
      const player = name.value.trim();
      if (!player) return name.focus();
      seats.saveName(player);
      button.disabled = true;
      try {
        // `?seed=N` reaches servers started with MADANG_DEV=1 only (tests replay a game with it).
        const seed = new URLSearchParams(location.search).get('seed');
        onCreated(await client.createRoom({
          game: gameSelect.value, name: player, options: form.values(), ...(seed ? { seed: Number(seed) } : {}),
        }));
      } catch (e) {
        showError(e);
        if (e.field) document.querySelector(`[data-testid="option-${e.field}"]`)?.focus();
      } finally {
        button.disabled = false;
      }
    },
  },
  h('h2', { text: '새 방 만들기' }),
  h('div', { class: 'row wrap' },
    h('label', { class: 'field', for: 'game' }, h('span', { class: 'field-label', text: '게임' }), gameSelect),
    h('label', { class: 'field', for: 'player-name' }, h('span', { class: 'field-label', text: '내 이름' }), name)),
  slot,
  h('div', { class: 'sticky-submit' }, button));
  return el;
}

/** The join form shown to a visitor of a lobby (who watches until joining). */
export function joinForm(client, room, onJoined) {
  const name = h('input', {
    id: 'join-name', testid: 'player-name', maxlength: 20, required: true, autocomplete: 'nickname',
    placeholder: '내 이름', value: seats.name(),
  });
  const button = h('button', { type: 'submit', class: 'primary big', testid: 'join-room', text: '참가하기' });
  return h('form', {
    class: 'card join',
    onsubmit: async (ev) => {
      ev.preventDefault();
      const player = name.value.trim();
      if (!player) return name.focus();
      seats.saveName(player);
      button.disabled = true;
      try {
        onJoined(await client.joinRoom(room.roomId, player));
      } catch (e) {
        showError(e);
        button.disabled = false;
      }
    },
  },
  h('h2', { text: '이 방에 참가할까요?' }),
  h('p', { class: 'hint', text: '참가하지 않으면 관전만 해요.' }),
  h('div', { class: 'row' }, name, button));
}

const TEAM_KO = ['청팀', '홍팀'];
const schemaCache = {};

/** A lobby's seats, teams and the host's controls (options, seats, kick, start), and leave. */
export function roomLobby(client, room, act, onLeft) {
  const isHost = room.you != null && room.you === room.hostId;
  const sorted = [...room.players].sort((a, b) => a.seat - b.seat);
  const team = room.options?.mode === 'team';
  const rows = sorted.map((p) => h('li', { class: 'seat', testid: 'seat', 'data-player': p.id },
    h('span', { class: 'seat-no', text: `${p.seat + 1}` }),
    team && p.team != null ? h('span', { class: `team team-${p.team}`, text: TEAM_KO[p.team] }) : null,
    h('span', { class: 'seat-name', text: p.name }),
    p.id === room.hostId ? h('span', { class: 'badge', text: '방장' }) : null,
    p.id === room.you ? h('span', { class: 'badge me', text: '나' }) : null,
    p.connected ? null : h('span', { class: 'badge off', text: '연결 끊김' }),
    isHost ? h('span', { class: 'seat-tools' },
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `${p.name} 위로`, disabled: p.seat === 0,
        'data-focus': `up-${p.id}`, text: '▲', onclick: () => act({ type: 'moveSeat', playerId: p.id, seat: p.seat - 1 }) }),
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `${p.name} 아래로`, disabled: p.seat === sorted.length - 1,
        'data-focus': `down-${p.id}`, text: '▼', onclick: () => act({ type: 'moveSeat', playerId: p.id, seat: p.seat + 1 }) }),
      p.id === room.you ? null : h('button', { type: 'button', class: 'danger small', text: '내보내기',
        onclick: () => act({ type: 'kick', playerId: p.id }) }))
      : null));
  let settings = null;
  if (isHost) {
    const slot = h('div', { class: 'options-slot' }, h('p', { class: 'hint', text: '규칙을 불러오는 중…' }));
    (schemaCache[room.game] ??= client.games(room.game)).then((schema) => {
      const form = optionsForm(schema, room.options);
      slot.replaceChildren(form.el, h('button', {
        type: 'button', class: 'secondary', testid: 'set-options', text: '규칙 바꾸기',
        onclick: () => act({ type: 'setOptions', options: form.values() }),
      }));
    }, showError);
    settings = h('details', { class: 'card settings' }, h('summary', { text: '규칙 바꾸기(방장)' }), slot);
  }
  return h('div', { class: 'lobby-room' },
    h('section', { class: 'card' },
      h('h2', { text: `자리 (${room.players.length}명)` }),
      team ? h('p', { class: 'hint', text: '팀전: 1·3·5번 자리가 청팀, 2·4·6번 자리가 홍팀이에요. 방장이 자리를 바꿔 팀을 정해요.' }) : null,
      h('ol', { class: 'seats' }, rows),
      h('div', { class: 'row' },
        isHost ? h('button', { type: 'button', class: 'primary big', testid: 'start-game', 'data-focus': 'start', text: '게임 시작',
          onclick: () => act({ type: 'start' }) }) : null,
        room.you ? h('button', { type: 'button', class: 'secondary', testid: 'leave', text: '나가기',
          onclick: async () => {
            if (await act({ type: 'leave' })) onLeft();
          } }) : null,
        room.you && !isHost ? h('p', { class: 'hint', text: '방장이 시작하기를 기다리는 중…' }) : null)),
    settings);
}
