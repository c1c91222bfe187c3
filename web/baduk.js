// 바둑 (baduk.md §9): 9/13/19 boards, one tap on 9 and tap → preview → confirm on 13 and 19,
// the last-move mark, captures, both clocks with byo-yomi periods, pass with a confirmation,
// undo / draw / resign with their consent flows, illegal points explained on tap, the scoring
// phase (dead stones translucent with ×, territory marks, the live count, agree and resume),
// the SGF download, and spectators without buttons.
import { ask, clock, h, rematchBox, revealBox, s, serverNow, toast } from './ui.js';
import { animateBaduk } from './motion.js';
import { markTurn, pushControl } from './push.js';
import { countdown } from './sound.js';

const COLS = 'ABCDEFGHJKLMNOPQRST';
export const STARS = {
  9: [[2, 2], [6, 2], [2, 6], [6, 6], [4, 4]],
  13: [[3, 3], [9, 3], [3, 9], [9, 9], [6, 6]],
  19: [[3, 3], [9, 3], [15, 3], [3, 9], [9, 9], [15, 9], [3, 15], [9, 15], [15, 15]],
};
const COLOR_KO = { black: '흑', white: '백' };
const other = (c) => (c === 'black' ? 'white' : 'black');

/** What to say about a point the server lists as illegal, by the reason it gives. */
const ILLEGAL = {
  KO: '패는 바로 되따낼 수 없어요. 다른 곳에 한 수 두고 오세요.',
  SUICIDE: '둘 곳의 활로가 없어 둘 수 없어요(자충수).',
  SUPERKO: '같은 모양이 반복되어 둘 수 없어요(동형반복).',
};

function remaining(st, color, now) {
  const c = st.clock;
  let main = c.mainMs[color];
  let periods = c.periodsLeft[color];
  let inByo = c.inByoyomi[color];
  let periodLeft = c.periodMs;
  if (st.phase === 'playing' && st.turn === color && st.result == null) {
    let elapsed = Math.max(0, now - c.turnStartedAt);
    const used = Math.min(main, elapsed);
    main -= used;
    elapsed -= used;
    if (elapsed > 0 && c.kind === 'byoyomi') {
      inByo = true;
      const lost = Math.floor(elapsed / c.periodMs);
      periods = Math.max(0, periods - lost);
      periodLeft = c.periodMs - (elapsed % c.periodMs);
    }
  }
  return { main, periods, inByo, periodLeft };
}

/**
 * Time left on a correspondence clock (a game played over days), as players say it: "2일 3시간",
 * "5시간 12분", "12분"; under a minute, the seconds.
 */
export function daysHours(ms) {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  const d = Math.floor(minutes / 1440);
  const hrs = Math.floor((minutes % 1440) / 60);
  const min = minutes % 60;
  if (d > 0) return hrs > 0 ? `${d}일 ${hrs}시간` : `${d}일`;
  if (hrs > 0) return min > 0 ? `${hrs}시간 ${min}분` : `${hrs}시간`;
  if (min > 0) return `${min}분`;
  return `${Math.ceil(Math.max(0, ms) / 1000)}초`;
}

/** The 바둑 screen; `update(room)` redraws it. */
export function badukScreen(act, client, { rematch, session }) {
  const el = h('div', { class: 'game baduk' });
  let room = null;
  let st = null;
  let preview = null; // {x, y} awaiting confirmation
  let cursor = null;
  let tick = null;
  let bubble = null;
  let prev = null; // the state before the last update, for sounds, motion and the toggled group
  let toggled = []; // scoring: the stones whose mark the opponent just changed
  let myToggle = false;

  const myColor = () => (room.you === st.players.black ? 'black' : room.you === st.players.white ? 'white' : null);

  function tap(x, y) {
    const color = myColor();
    if (!color || room.status !== 'playing') return;
    bubble = null;
    if (st.phase === 'scoring') {
      const cell = st.board[y * st.size + x];
      myToggle = true;
      act(cell ? { type: 'toggleDead', x, y } : { type: 'toggleSeki', x, y });
      return;
    }
    if (st.turn !== color) return toast('상대 차례예요.');
    if (st.board[y * st.size + x]) return toast('이미 돌이 있는 자리예요.');
    const illegal = (st.illegalPoints ?? []).find((p) => p.x === x && p.y === y);
    if (illegal) {
      bubble = { x, y, text: ILLEGAL[illegal.reason] ?? '여기에는 둘 수 없어요.' };
      preview = null;
      draw();
      return;
    }
    if (st.size === 9) {
      preview = null;
      act({ type: 'place', x, y });
      return;
    }
    preview = preview && preview.x === x && preview.y === y ? null : { x, y };
    draw();
    if (preview) el.querySelector('[data-testid="confirm-move"]')?.focus({ preventScroll: true });
  }

  function boardSvg() {
    const n = st.size;
    const marks = st.scoringMarks;
    const dead = new Set(marks?.dead ?? []);
    const ownership = st.phase === 'scoring' || (room.result?.score && st.phase === 'finished')
      ? (marks?.preview?.ownership ?? room.result?.score?.ownership ?? null) : null;
    const last = [...st.moves].reverse().find((m) => m.kind === 'place');
    const lastMove = st.moves.at(-1);
    const svg = s('svg', { viewBox: `-1 -1 ${n + 1} ${n + 1}`, class: `baduk-board size-${n}`, role: 'group', 'aria-label': `${n}줄 바둑판` });
    svg.append(s('rect', { x: -1, y: -1, width: n + 1, height: n + 1, class: 'wood' }));
    for (let i = 0; i < n; i++) {
      svg.append(s('line', { x1: 0, y1: i, x2: n - 1, y2: i, class: 'grid' }));
      svg.append(s('line', { x1: i, y1: 0, x2: i, y2: n - 1, class: 'grid' }));
      svg.append(s('text', { x: i, y: -0.62, class: 'coord', text: COLS[i] }));
      svg.append(s('text', { x: -0.7, y: i + 0.1, class: 'coord', text: String(n - i) }));
    }
    for (const [x, y] of STARS[n] ?? []) svg.append(s('circle', { cx: x, cy: y, r: 0.09, class: 'star' }));
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const i = y * n + x;
        const cell = st.board[i];
        if (cell) {
          svg.append(s('circle', { cx: x, cy: y, r: 0.46, class: `stone ${cell === 1 ? 'black' : 'white'}${dead.has(i) ? ' dead' : ''}` }));
          if (dead.has(i)) svg.append(s('path', { d: `M${x - 0.22},${y - 0.22}L${x + 0.22},${y + 0.22}M${x + 0.22},${y - 0.22}L${x - 0.22},${y + 0.22}`, class: 'dead-x' }));
        }
        const own = ownership?.[i];
        if (own && (!cell || dead.has(i))) {
          svg.append(s('rect', { x: x - 0.15, y: y - 0.15, width: 0.3, height: 0.3, class: `territory ${own === 1 ? 'black' : 'white'}` }));
        }
      }
    }
    if (last && lastMove?.kind === 'place') {
      const { x, y } = last.pt;
      svg.append(s('circle', { cx: x, cy: y, r: 0.2, class: `last-mark on-${last.color}`, testid: 'last-move' }));
    }
    if (preview) svg.append(s('circle', { cx: preview.x, cy: preview.y, r: 0.46, class: `stone ${myColor()} preview`, testid: 'preview-stone' }));
    for (const p of st.atariWarnings ?? []) svg.append(s('circle', { cx: p.x, cy: p.y, r: 0.5, class: 'atari' }));
    for (const i of toggled) svg.append(s('circle', { cx: i % n, cy: Math.floor(i / n), r: 0.56, class: 'toggled', testid: 'toggled-stone' }));
    const playable = myColor() && room.status === 'playing';
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const here = cursor ? cursor.x === x && cursor.y === y : x === 0 && y === 0;
        svg.append(s('rect', {
          x: x - 0.5, y: y - 0.5, width: 1, height: 1, class: 'hit', testid: 'baduk-point', 'data-x': x, 'data-y': y,
          role: 'button', 'aria-label': `${COLS[x]}${n - y}`, tabindex: playable && here ? 0 : -1,
          'data-focus': `pt-${x}-${y}`,
          onclick: () => { cursor = { x, y }; tap(x, y); },
          onkeydown: (e) => key(e, x, y),
        }));
      }
    }
    return svg;
  }

  /** 19줄 (and 13줄) two-step placement: the preview's neighbourhood, large (baduk.md §9). */
  function magnifier() {
    if (!preview || st.size === 9) return null;
    const n = st.size;
    const r = 3;
    const view = s('svg', { viewBox: `${preview.x - r - 0.5} ${preview.y - r - 0.5} ${2 * r + 1} ${2 * r + 1}`, class: 'magnifier baduk-board',
      role: 'img', 'aria-label': `${COLS[preview.x]}${n - preview.y} 둘레 확대`, testid: 'magnifier' });
    view.append(s('rect', { x: -1, y: -1, width: n + 1, height: n + 1, class: 'wood' }));
    for (let i = 0; i < n; i++) {
      view.append(s('line', { x1: 0, y1: i, x2: n - 1, y2: i, class: 'grid' }));
      view.append(s('line', { x1: i, y1: 0, x2: i, y2: n - 1, class: 'grid' }));
    }
    for (const [x, y] of STARS[n] ?? []) view.append(s('circle', { cx: x, cy: y, r: 0.09, class: 'star' }));
    for (let y = Math.max(0, preview.y - r); y <= Math.min(n - 1, preview.y + r); y++) {
      for (let x = Math.max(0, preview.x - r); x <= Math.min(n - 1, preview.x + r); x++) {
        const cell = st.board[y * n + x];
        if (cell) view.append(s('circle', { cx: x, cy: y, r: 0.46, class: `stone ${cell === 1 ? 'black' : 'white'}` }));
      }
    }
    view.append(s('circle', { cx: preview.x, cy: preview.y, r: 0.46, class: `stone ${myColor()} preview` }));
    for (let i = -r; i <= r; i++) {
      if (preview.x + i >= 0 && preview.x + i < n) view.append(s('text', { x: preview.x + i, y: preview.y - r - 0.1, class: 'coord', text: COLS[preview.x + i] }));
    }
    return view;
  }

  /**
   * 초읽기 (baduk.md §9): within the last ten seconds of a period, a big number, a red border
   * and the count said in Korean to the player on turn.
   */
  function byoyomiAlert(now) {
    let badge = document.querySelector('.byoyomi-count');
    const onTurn = room && st && room.status === 'playing' && st.phase === 'playing' && st.clock.kind === 'byoyomi' ? st.turn : null;
    const r = onTurn ? remaining(st, onTurn, now) : null;
    const secs = r && r.main <= 0 ? Math.ceil(r.periodLeft / 1000) : null;
    if (secs == null || secs > 10 || secs < 1) {
      badge?.remove();
      document.body.classList.remove('byoyomi-alert', 'byoyomi-last');
      return;
    }
    if (!badge) {
      badge = h('div', { class: 'byoyomi-count', testid: 'byoyomi-count', role: 'timer', 'aria-live': 'off' }, h('b'), h('span'));
      document.body.append(badge);
    }
    badge.dataset.seconds = secs;
    badge.querySelector('b').textContent = String(secs);
    badge.querySelector('span').textContent = `${COLOR_KO[onTurn]} 초읽기${r.periods <= 1 ? ' · 마지막' : ` · ${r.periods}번 남음`}`;
    document.body.classList.add('byoyomi-alert');
    document.body.classList.toggle('byoyomi-last', r.periods <= 1);
    if (onTurn === myColor()) countdown(secs, `${room.roomId}:${st.moves.length}:${r.periods}`);
  }

  function key(e, x, y) {
    const n = st.size;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const [dx, dy] = moves[e.key];
      cursor = { x: Math.min(n - 1, Math.max(0, x + dx)), y: Math.min(n - 1, Math.max(0, y + dy)) };
      el.querySelectorAll('[data-testid="baduk-point"][tabindex="0"]').forEach((p) => p.setAttribute('tabindex', '-1'));
      const target = el.querySelector(`[data-testid="baduk-point"][data-x="${cursor.x}"][data-y="${cursor.y}"]`);
      target?.setAttribute('tabindex', '0');
      target?.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      cursor = { x, y };
      tap(x, y);
    }
  }

  function playerBox(color, now) {
    const id = st.players[color];
    const p = room.players.find((q) => q.id === id);
    const r = remaining(st, color, now);
    const c = st.clock;
    const onTurn = st.phase === 'playing' && st.turn === color && room.status === 'playing';
    const periodsTotal = st.options?.timeControl?.periods ?? Math.max(r.periods, 3);
    return h('div', { class: `player-box ${color}${onTurn ? ' on-turn' : ''}${r.inByo && onTurn ? ' byoyomi' : ''}`, testid: `clock-${color}` },
      h('span', { class: `stone-icon ${color}`, 'aria-hidden': 'true' }),
      h('span', { class: 'pname' }, `${COLOR_KO[color]} ${p?.name ?? ''}`, id === room.you ? h('span', { class: 'badge me', text: '나' }) : null,
        p?.bot ? h('span', { class: 'badge bot', testid: 'bot-badge', text: '컴퓨터' }) : null,
        p && !p.connected && !p.bot ? h('span', { class: 'badge off', text: '연결 끊김' }) : null),
      h('span', { class: 'caps', text: `따낸 돌 ${st.captures[color]}` }),
      c.kind === 'none' ? h('span', { class: 'time', text: '시계 없음' })
        : c.kind === 'correspondence' ? h('span', { class: 'time slow', testid: `slow-clock-${color}`, text: `남은 시간 ${daysHours(r.main)}` })
        : h('span', { class: 'time' },
          h('b', { text: r.main > 0 || c.kind !== 'byoyomi' ? clock(r.main) : `초읽기 ${Math.ceil(r.periodLeft / 1000)}` }),
          c.kind === 'byoyomi' ? h('span', { class: 'periods', role: 'img', 'aria-label': `초읽기 ${r.periods}회 남음` },
            Array.from({ length: periodsTotal }, (_, i) => h('i', { class: i < r.periods ? 'on' : 'off' }))) : null));
  }

  function draw() {
    const now = serverNow();
    const color = myColor();
    const playing = room.status === 'playing';
    const scoring = st.phase === 'scoring';
    const myTurn = playing && !scoring && color && st.turn === color;
    const undo = st.undo.pending;
    const drawBy = st.draw.pendingBy;
    const notices = [];
    const lastMove = st.moves.at(-1);
    if (playing && !scoring && lastMove?.kind === 'pass' && color && lastMove.color !== color) {
      notices.push(h('p', { class: 'notice', testid: 'opponent-passed', text: '상대가 패스했어요. 끝내려면 패스하세요.' }));
    }
    if (undo && color) {
      notices.push(undo.by === color
        ? h('p', { class: 'notice' }, '무르기를 요청했어요. ', h('button', { type: 'button', class: 'secondary small', text: '요청 취소', onclick: () => act({ type: 'cancelOffer' }) }))
        : h('p', { class: 'notice' }, `${COLOR_KO[undo.by]}이 ${undo.plies}수 무르기를 요청했어요. `,
          h('button', { type: 'button', class: 'primary small', testid: 'accept-undo', text: '수락', onclick: () => act({ type: 'respondUndo', accept: true }) }),
          h('button', { type: 'button', class: 'secondary small', text: '거절', onclick: () => act({ type: 'respondUndo', accept: false }) })));
    }
    if (drawBy && color) {
      notices.push(drawBy === color
        ? h('p', { class: 'notice' }, '무승부를 제안했어요. ', h('button', { type: 'button', class: 'secondary small', text: '제안 취소', onclick: () => act({ type: 'cancelOffer' }) }))
        : h('p', { class: 'notice' }, `${COLOR_KO[drawBy]}이 무승부를 제안했어요. `,
          h('button', { type: 'button', class: 'primary small', testid: 'accept-draw', text: '수락', onclick: () => act({ type: 'respondDraw', accept: true }) }),
          h('button', { type: 'button', class: 'secondary small', text: '거절', onclick: () => act({ type: 'respondDraw', accept: false }) })));
    }
    if (bubble) notices.push(h('p', { class: 'bubble', role: 'alert', testid: 'illegal-reason', text: bubble.text }));

    const count = st.scoringMarks?.preview;
    const score = scoring && count ? h('div', { class: 'score-preview' },
      h('p', { class: 'score', testid: 'score-preview', text: `흑 ${count.black.total} : 백 ${count.white.total}` }),
      h('p', { class: 'hint', text: '사석을 눌러 표시를 바꿀 수 있어요. 결과는 두 사람이 동의해야 확정돼요.' }),
      h('p', { class: 'hint', text: `동의: 흑 ${st.scoringMarks.agreed.black ? '✔' : '…'} · 백 ${st.scoringMarks.agreed.white ? '✔' : '…'}` })) : null;

    let buttons = null;
    if (color && playing) {
      buttons = scoring
        ? h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary big', testid: 'agree-score', disabled: st.scoringMarks?.agreed?.[color],
            text: st.scoringMarks?.agreed?.[color] ? '동의함 — 상대를 기다려요' : '동의', onclick: () => act({ type: 'agreeScore' }) }),
          // B7: the server says whether this side may still resume (resumes left, move limit).
          st.scoringMarks?.resumable?.[color] === false ? null
            : h('button', { type: 'button', class: 'secondary', testid: 'resume-play', text: '이의(대국 재개)', onclick: () => act({ type: 'resumePlay' }) }))
        : h('div', { class: 'actions' },
          st.size !== 9 ? h('button', { type: 'button', class: 'primary', testid: 'confirm-move', 'data-focus': 'confirm', disabled: !preview,
            text: preview ? `${COLS[preview.x]}${st.size - preview.y}에 두기` : '자리를 누르고 확인', onclick: () => {
              const p = preview;
              if (p) { preview = null; act({ type: 'place', x: p.x, y: p.y }); }
            } }) : null,
          h('button', { type: 'button', class: 'secondary', testid: 'pass', disabled: !myTurn, text: '패스',
            onclick: async () => { if (await ask('패스할까요? 두 사람이 연달아 패스하면 대국이 끝나고 계가해요.', '패스', 'confirm-pass')) act({ type: 'pass' }); } }),
          h('button', { type: 'button', class: 'secondary', testid: 'request-undo', disabled: st.options.undo === 'off' || !!undo,
            text: '무르기', onclick: () => act({ type: 'requestUndo' }) }),
          h('button', { type: 'button', class: 'secondary', testid: 'offer-draw', disabled: st.options.drawOffer === false || !!drawBy,
            text: '무승부 제안', onclick: () => act({ type: 'offerDraw' }) }),
          h('button', { type: 'button', class: 'danger', testid: 'resign', text: '기권',
            onclick: async () => { if (await ask('정말 기권할까요?', '기권', 'confirm-resign')) act({ type: 'resign' }); } }));
    }
    const result = room.status === 'finished' && room.result ? h('section', { class: 'card result', testid: 'result' },
      h('h2', { text: room.result.summaryKo ?? '대국 끝' }),
      room.result.score ? h('p', { text: `흑 ${room.result.score.black.total} : 백 ${room.result.score.white.total}` }) : null,
      rematchBox(room, rematch),
      revealBox(room),
      h('a', { href: '/', class: 'button secondary', text: '새 방 만들기' })) : null;
    const sgf = h('a', { class: 'button secondary small', testid: 'sgf', href: `/rooms/${encodeURIComponent(room.roomId)}/sgf`, download: `madang-${room.roomId}.sgf`, text: '기보 받기(SGF)' });
    const top = color === 'black' ? 'white' : 'black';
    el.replaceChildren(
      ...(result ? [result] : []),
      h('div', { class: 'board-wrap' }, playerBox(top, now), boardSvg(), playerBox(other(top), now)),
      h('div', { class: 'panel' },
        h('p', { class: `turn${myTurn ? ' mine' : ''}`, testid: 'turn', text: room.status === 'finished' ? '대국이 끝났어요'
          : scoring ? '계가: 사석을 확인하고 동의하세요' : myTurn ? '내 차례예요' : `${COLOR_KO[st.turn]} 차례` }),
        h('div', { class: 'notices' }, notices),
        score, magnifier(), buttons,
        pushControl(room, session?.token),
        h('p', { class: 'meta', text: `덤 ${st.komi} · ${st.moves.length}수` }), sgf));
    markTurn(!!myTurn);
  }

  return {
    el,
    update(next) {
      const moved = !room || next.version !== room.version;
      room = next;
      st = next.state;
      if (moved) { preview = null; bubble = null; }
      // Scoring: the stones whose dead/alive mark changed since the last view, unless by me.
      if (moved) toggled = [];
      if (moved && prev?.scoringMarks && st.scoringMarks && st.phase === 'scoring') {
        const was = new Set(prev.scoringMarks.dead ?? []);
        const now = new Set(st.scoringMarks.dead ?? []);
        if (!myToggle) toggled = [...now].filter((i) => !was.has(i)).concat([...was].filter((i) => !now.has(i)));
      }
      if (moved) myToggle = false;
      draw();
      if (moved) animateBaduk(el.querySelector('svg.baduk-board:not(.magnifier)'), prev, st);
      prev = st;
      byoyomiAlert(serverNow());
      clearInterval(tick);
      if (room.status === 'playing' && st.clock.kind !== 'none') {
        tick = setInterval(() => {
          const now = serverNow();
          for (const c of ['black', 'white']) el.querySelector(`[data-testid="clock-${c}"]`)?.replaceWith(playerBox(c, now));
          byoyomiAlert(now);
        }, 250);
      }
    },
    destroy() {
      clearInterval(tick);
      markTurn(false);
      room = null;
      byoyomiAlert(0);
    },
  };
}
