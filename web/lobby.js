// The lobby: the room-creation form drawn from `GET /games/{kind}` (every option, its values,
// the presets and the constraints as the server states them), the join form, and a room's
// seats with the host's controls.
import { h, seats, showError } from './ui.js';
import { inviteCard } from './invite.js';
import { rulesButton } from './rules.js';

const GAMES = [
  ['yut', '윷놀이'],
  ['baduk', '바둑'],
];

/** The key of a value in an option's `valueLabels` (the schema's `value_key`). */
function valueKey(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The Korean label of a value; numbers of a range show as themselves. */
export function valueLabel(opt, v) {
  const label = opt.valueLabels?.[valueKey(v)];
  if (label != null) return label;
  if (typeof v === 'number') return String(v);
  return '—';
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

/** "말 수: 3개 · 한 번에 쓰는 시간: 20초": what a set of values sets, in the schema's words. */
function describeSettings(schema, options, base) {
  const parts = [];
  for (const opt of schema.options) {
    const v = getPath(options, opt.key);
    if (v === undefined) continue;
    if (base && JSON.stringify(getPath(base, opt.key)) === JSON.stringify(v)) continue;
    parts.push(`${opt.label}: ${valueLabel(opt, v)}`);
  }
  return parts;
}

/**
 * The options form of a game's schema; `initial` holds the values to show (a room's options or
 * the defaults). Only the schema's Korean words reach the page: labels, help lines, value labels
 * and whole-sentence reasons — never an option key or a raw value. Presets come first; each
 * group's advanced options are folded. Returns `{el, values()}`.
 */
export function optionsForm(schema, initial) {
  const controls = new Map();
  const hints = new Map();
  const playersHint = h('p', { class: 'hint players-hint', testid: 'players-hint' });
  const presetSummary = h('p', { class: 'hint preset-summary', testid: 'preset-summary', 'aria-live': 'polite' });
  const groups = new Map();
  for (const opt of schema.options) {
    const id = `opt-${opt.key.replace('.', '-')}`;
    let control;
    if (opt.values.oneOf) {
      control = h('select', { id, testid: `option-${opt.key}`, name: opt.key },
        opt.values.oneOf.map((v) => h('option', { value: String(v), text: valueLabel(opt, v) })));
    } else {
      const r = opt.values.range;
      control = h('input', {
        id, type: 'number', inputmode: 'decimal', min: r.min, max: r.max, step: r.step,
        testid: `option-${opt.key}`, name: opt.key,
        placeholder: r.orNull ? valueLabel(opt, null) : null,
      });
    }
    controls.set(opt.key, { opt, control });
    const hint = h('span', { class: 'hint', id: `${id}-hint` });
    hints.set(opt.key, hint);
    control.setAttribute('aria-describedby', `${id}-hint`);
    control.addEventListener('change', () => {
      if (opt.key === 'ruleset') applyPreset(control.value);
      else presetSummary.textContent = '';
      refresh();
    });
    const field = h('label', { class: 'field', for: id },
      h('span', { class: 'field-label', text: opt.label }),
      control,
      opt.help ? h('span', { class: 'hint help', text: opt.help }) : null,
      hint);
    const group = groups.get(opt.group) ?? { basic: [], advanced: [] };
    (opt.advanced ? group.advanced : group.basic).push(field);
    groups.set(opt.group, group);
  }

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
  const defaults = {};
  for (const opt of schema.options) setPath(defaults, opt.key, opt.default);
  function applyPreset(name) {
    const preset = schema.presets.find((p) => p.name === name);
    if (!preset) return;
    for (const key of controls.keys()) {
      const v = getPath(preset.options, key);
      if (v !== undefined) write(key, v);
    }
    for (const b of presetButtons) b.setAttribute('aria-pressed', String(b.dataset.preset === name));
    const changes = describeSettings(schema, preset.options, defaults);
    presetSummary.textContent = `${preset.label}: ${changes.length ? changes.join(' · ') : '모두 기본값이에요.'}`;
  }
  /** Marks what the constraints allow under the current values, in the server's sentences. */
  function refresh() {
    const now = values();
    for (const hint of hints.values()) {
      hint.textContent = '';
      hint.classList.remove('bad');
    }
    for (const { control } of controls.values()) {
      for (const o of control.querySelectorAll?.('option') ?? []) o.disabled = false;
    }
    playersHint.textContent = '';
    for (const c of schema.constraints) {
      const applies = Object.entries(c.when).every(([k, vs]) => vs.some((v) => v === getPath(now, k)));
      if (!applies) continue;
      for (const [key, vals] of Object.entries(c.then)) {
        if (key === 'players') {
          playersHint.textContent = c.reason;
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
        const hint = hints.get(key);
        hint.textContent = `${ok ? '' : '⚠ '}${c.reason}`;
        if (!ok) hint.classList.add('bad');
      }
    }
  }
  for (const opt of schema.options) {
    const v = getPath(initial, opt.key);
    write(opt.key, v === undefined ? opt.default : v);
  }
  const presetButtons = schema.presets.map((p) =>
    h('button', {
      type: 'button', class: 'preset', testid: `preset-${p.name}`, 'data-preset': p.name, 'aria-pressed': 'false',
      onclick: () => {
        applyPreset(p.name);
        refresh();
      },
    }, h('strong', { text: p.label }), h('span', { class: 'preset-help', text: p.help })));
  refresh();
  const presets = presetButtons.length
    ? h('div', { class: 'presets', role: 'group', 'aria-label': '빠르게 고르기' }, presetButtons)
    : null;
  const sections = [...groups].map(([title, { basic, advanced }]) =>
    h('section', { class: 'group' },
      h('h3', { class: 'group-title', text: title }),
      basic.length ? h('div', { class: 'fields' }, basic) : null,
      advanced.length ? h('details', { class: 'advanced', testid: 'advanced' },
        h('summary', { text: `${title}: 더 자세히 (${advanced.length}가지)` }),
        h('div', { class: 'fields' }, advanced)) : null));
  const el = h('fieldset', { class: 'options' }, h('legend', { text: '규칙' }), presets, presetSummary, playersHint,
    sections);
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
    // 초보 모드 (baduk.md §9): a beginner is pointed at the 9줄 preset before anything else.
    const beginner = schemas[kind].presets.find((p) => p.name === 'beginner');
    slot.replaceChildren(...[
      beginner ? h('p', { class: 'beginner', testid: 'beginner-tip' },
        '처음 두시나요? 9줄 판이 좋아요. ',
        h('button', {
          type: 'button', class: 'secondary small', testid: 'beginner-mode', text: `${beginner.label}로 시작`,
          onclick: () => form.el.querySelector('[data-preset="beginner"]')?.click(),
        })) : null,
      form.el,
      h('p', { class: 'rules-link' }, rulesButton(client, kind, () => form.values())),
    ].filter(Boolean));
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
        // `?seed=N` reaches servers built with the `dev` feature and started with MADANG_DEV=1 only (tests replay a game with it).
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
/**
 * A name two people in `room` do not already go by, for a guest's join form: the name this
 * phone used before, else 손님; "철수 2", "손님 3" when it is taken. Compared folded as the
 * server does, near enough (NFKC, no spaces, no case); the server's `NAME_TAKEN` stays the rule.
 */
export function freeName(room, wanted) {
  const fold = (n) => n.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
  const taken = new Set(room.players.map((p) => fold(p.name)));
  const base = wanted || '손님';
  if (!taken.has(fold(base))) return base;
  for (let n = 2; ; n++) {
    const name = `${base.slice(0, 17)} ${n}`;
    if (!taken.has(fold(name))) return name;
  }
}

/**
 * "참가하기" for whoever opened a shared link: the name comes prefilled (editable), so a guest
 * is seated with one tap after the link's.
 */
export function joinForm(client, room, onJoined) {
  const prefilled = freeName(room, seats.name());
  const name = h('input', {
    id: 'join-name', testid: 'player-name', maxlength: 20, required: true, autocomplete: 'nickname',
    placeholder: '내 이름', value: prefilled,
  });
  const button = h('button', { type: 'submit', class: 'primary big', testid: 'join-room', text: '참가하기' });
  return h('form', {
    class: 'card join',
    onsubmit: async (ev) => {
      ev.preventDefault();
      const player = name.value.trim();
      if (!player) return name.focus();
      // A name the guest typed is kept for the next room; the prefilled one (손님, 철수 2) is
      // not, so the name this phone goes by stays the one its owner chose.
      if (player !== prefilled) seats.saveName(player);
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
/** Schemas already received, by game (so a redraw shows the labels at once). */
const schemaReady = {};
/** The level the host last picked for a computer player, per game (kept across redraws). */
const botChoice = {};

/** The Korean label of a bot level (`GET /games/{kind}` `bots.levels`), else "N단계". */
function botLabel(schema, level) {
  return schema?.bots?.levels?.find((l) => l.level === level)?.label ?? `${level}단계`;
}

/**
 * The most seats a room under `options` can have, from the schema's own constraints (윷놀이:
 * "개인전은 2~4명이 해요"); 바둑 states none: two players. `null` when nothing says.
 */
function maxSeats(schema, game, options) {
  let max = null;
  for (const c of schema?.constraints ?? []) {
    const players = c.then?.players?.oneOf;
    if (!players) continue;
    const applies = Object.entries(c.when).every(([k, vs]) => vs.some((v) => v === getPath(options, k)));
    if (applies) max = Math.max(max ?? 0, ...players);
  }
  return max ?? (game === 'baduk' ? 2 : null);
}

/**
 * The host's control to seat a computer player (DESIGN.md "Computer players": `addBot` with a
 * level from `bots.levels`), labelled in Korean and reachable by keyboard; `null` when the game
 * offers none. Drawn once the schema is known (the lobby redraws on every change).
 */
function botControl(schema, room, act) {
  const levels = schema?.bots?.levels ?? [];
  if (!levels.length) return null;
  const full = (maxSeats(schema, room.game, room.options) ?? Infinity) <= room.players.length;
  const chosen = botChoice[room.game] ?? levels[0].level;
  const select = h('select', {
    id: 'bot-level', testid: 'bot-level', 'data-focus': 'bot-level', 'aria-describedby': 'bot-help',
    onchange: (ev) => { botChoice[room.game] = Number(ev.target.value); },
  }, levels.map((l) => h('option', { value: String(l.level), text: l.label, selected: l.level === chosen })));
  return h('section', { class: 'bots', role: 'group', 'aria-labelledby': 'bots-title', testid: 'bots' },
    h('h3', { id: 'bots-title', class: 'group-title', text: '컴퓨터와 하기' }),
    h('div', { class: 'row wrap' },
      h('label', { class: 'field', for: 'bot-level' }, h('span', { class: 'field-label', text: '컴퓨터 실력' }), select),
      h('button', {
        type: 'button', class: 'secondary', testid: 'add-bot', 'data-focus': 'add-bot', disabled: full,
        text: '컴퓨터 넣기', onclick: () => act({ type: 'addBot', level: Number(select.value) }),
      })),
    h('p', { class: 'hint', id: 'bot-help', text: full
      ? '자리가 다 찼어요. 컴퓨터를 빼려면 자리에서 [내보내기]를 누르세요.'
      : '빈 자리에 컴퓨터가 앉아요. 컴퓨터는 생각할 시간을 잠깐 가진 뒤에 둬요.' }));
}

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
    p.bot ? h('span', { class: 'badge bot', testid: 'bot-badge', 'data-level': p.botLevel,
      text: `컴퓨터 · ${botLabel(schemaReady[room.game], p.botLevel)}` }) : null,
    p.connected || p.bot ? null : h('span', { class: 'badge off', text: '연결 끊김' }),
    isHost ? h('span', { class: 'seat-tools' },
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `${p.name} 위로`, disabled: p.seat === 0,
        'data-focus': `up-${p.id}`, text: '▲', onclick: () => act({ type: 'moveSeat', playerId: p.id, seat: p.seat - 1 }) }),
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `${p.name} 아래로`, disabled: p.seat === sorted.length - 1,
        'data-focus': `down-${p.id}`, text: '▼', onclick: () => act({ type: 'moveSeat', playerId: p.id, seat: p.seat + 1 }) }),
      p.id === room.you ? null : h('button', { type: 'button', class: 'danger small', text: '내보내기',
        'aria-label': `${p.name} 내보내기`, testid: 'kick', 'data-focus': `kick-${p.id}`,
        onclick: () => act({ type: 'kick', playerId: p.id }) }))
      : null));
  // The level labels of the seat list and the host's bot control come from the schema: drawn
  // in the same turn when it is known (so the focus a redraw restores finds its control), else
  // filled in as it arrives.
  const rowsEl = h('ol', { class: 'seats' }, rows);
  const bots = h('div', { class: 'bots-slot' });
  const drawBots = (sc) => bots.replaceChildren((isHost && botControl(sc, room, act)) || '');
  const schema = (schemaCache[room.game] ??= client.games(room.game));
  if (schemaReady[room.game]) {
    drawBots(schemaReady[room.game]);
  } else {
    schema.then((sc) => {
      schemaReady[room.game] = sc;
      for (const badge of rowsEl.querySelectorAll('[data-testid="bot-badge"]')) {
        badge.textContent = `컴퓨터 · ${botLabel(sc, Number(badge.dataset.level))}`;
      }
      drawBots(sc);
    }, () => {});
  }
  let settings = null;
  if (isHost) {
    const slot = h('div', { class: 'options-slot' }, h('p', { class: 'hint', text: '규칙을 불러오는 중…' }));
    schema.then((sc) => {
      const form = optionsForm(sc, room.options);
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
      rowsEl,
      bots,
      h('div', { class: 'row' },
        isHost ? h('button', { type: 'button', class: 'primary big', testid: 'start-game', 'data-focus': 'start', text: '게임 시작',
          onclick: () => act({ type: 'start' }) }) : null,
        room.you ? h('button', { type: 'button', class: 'secondary', testid: 'leave', text: '나가기',
          onclick: async () => {
            if (await act({ type: 'leave' })) onLeft();
          } }) : null,
        room.you && !isHost ? h('p', { class: 'hint', text: '방장이 시작하기를 기다리는 중…' }) : null)),
    inviteCard(`${location.origin}/r/${encodeURIComponent(room.roomId)}`),
    settings);
}
