// 윷놀이 (yut.md §9 and the rules page): the 29-spot board, pieces with their side's colour and
// shape and stack counts, the pending results, the throw button and the four sticks, legal
// destinations with result names, badges and path, the choice between moves to one spot,
// timers, auto play / bot / away states, team recommendations and the result.
import { ask, clock, h, rematchBox, revealBox, s, serverNow } from './ui.js';
import { animateYut } from './motion.js';
import { sfx } from './sound.js';

const RESULT = {
  do: ['도', 1], gae: ['개', 2], geol: ['걸', 3], yut: ['윷', 4], mo: ['모', 5], backdo: ['빽도', -1],
};
const COLORS = {
  red: '#d63c3c', blue: '#2f6fd6', green: '#2f9a4c', yellow: '#e0a800', purple: '#8a4fd0', orange: '#e8762c',
};

/** Where each spot is drawn (viewBox 0–100): 0 bottom right, 5 top right, 10 top left, 15 bottom left. */
export const XY = (() => {
  const p = {};
  const at = [95, 77, 59, 41, 23, 5];
  for (let i = 0; i <= 5; i++) p[i] = [95, at[i]];
  for (let i = 6; i <= 10; i++) p[i] = [at[i - 5], 5];
  for (let i = 11; i <= 15; i++) p[i] = [5, 100 - at[i - 10]];
  for (let i = 16; i <= 19; i++) p[i] = [100 - at[i - 15], 95];
  p[20] = [80, 20]; p[21] = [65, 35]; p[22] = [50, 50]; p[23] = [35, 65]; p[24] = [20, 80];
  p[25] = [20, 20]; p[26] = [35, 35]; p[27] = [65, 65]; p[28] = [80, 80];
  return p;
})();
export const BIG = new Set([0, 5, 10, 15, 22]);
export const NAMES = ['참먹이', '도', '개', '걸', '윷', '모', '뒷도', '뒷개', '뒷걸', '뒷윷', '뒷모', '찌도', '찌개', '찌걸', '찌윷',
  '찌모', '날도', '날개', '날걸', '날윷', '앞모도', '앞모개', '방', '속윷', '속모', '뒷모도', '뒷모개', '사려', '안찌'];
export const EDGES = [
  ...Array.from({ length: 20 }, (_, i) => [i, (i + 1) % 20]),
  [5, 20], [20, 21], [21, 22], [22, 23], [23, 24], [24, 15], [10, 25], [25, 26], [26, 22], [22, 27], [27, 28], [28, 0],
];

function shapePath(shape, x, y, r) {
  switch (shape) {
    case 'triangle': return `M${x},${y - r} L${x + r},${y + r * 0.8} L${x - r},${y + r * 0.8}Z`;
    case 'square': return `M${x - r * 0.85},${y - r * 0.85} h${r * 1.7} v${r * 1.7} h${-r * 1.7}Z`;
    case 'diamond': return `M${x},${y - r} L${x + r},${y} L${x},${y + r} L${x - r},${y}Z`;
    case 'star': {
      let d = '';
      for (let i = 0; i < 10; i++) {
        const a = -Math.PI / 2 + (i * Math.PI) / 5;
        const rr = i % 2 ? r * 0.45 : r;
        d += `${i ? 'L' : 'M'}${(x + rr * Math.cos(a)).toFixed(2)},${(y + rr * Math.sin(a)).toFixed(2)}`;
      }
      return `${d}Z`;
    }
    case 'heart':
      return `M${x},${y + r} C${x - r * 1.6},${y - r * 0.2} ${x - r * 0.6},${y - r * 1.3} ${x},${y - r * 0.4} C${x + r * 0.6},${y - r * 1.3} ${x + r * 1.6},${y - r * 0.2} ${x},${y + r}Z`;
    default: return `M${x - r},${y} a${r},${r} 0 1,0 ${2 * r},0 a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

function token(side, x, y, r, count, node) {
  return s('g', { class: 'piece', 'data-node': node },
    s('path', { d: shapePath(side.shape, x, y, r), fill: COLORS[side.color] ?? '#555', stroke: '#fff', 'stroke-width': 0.8 }),
    count > 1 ? s('text', { x: x + r * 0.9, y: y - r * 0.6, class: 'stack', text: `×${count}` }) : null);
}

function sticksView(lastThrow, animate) {
  if (!lastThrow) return h('div', { class: 'sticks', 'aria-hidden': 'true' });
  const label = lastThrow.result === 'nak' ? '낙!' : `${RESULT[lastThrow.result][0]} ${RESULT[lastThrow.result][1]}`;
  return h('div', { class: `sticks${animate ? ' toss' : ''}`, role: 'img', 'aria-label': `윷가락: ${label}` },
    (lastThrow.sticks ?? [false, false, false, false]).map((flat, i) =>
      h('span', { class: `stick ${flat ? 'flat' : 'round'}${i === 0 ? ' marked' : ''}`, text: i === 0 ? '✕' : '' })),
    h('strong', { class: 'stick-result', testid: 'last-throw', text: label }));
}

const spotName = (node) => (node === 'goal' ? '날' : node === 'home' ? '대기' : NAMES[node] ?? String(node));

/**
 * The 윷놀이 screen; `update(room)` redraws it from a room view. `rematch` is the app's 한 판 더
 * (ask, then move over).
 */
export function yutScreen(act, { rematch }) {
  const el = h('div', { class: 'game yut' });
  let room = null;
  let chosenThrow = null;
  let choosing = null; // the destination whose moves the player picks between
  let lastAnimated = null;
  let tick = null;

  function mine() {
    return room.you && room.state.turnOrder[room.state.turnIndex] === room.you;
  }
  /**
   * Whether the viewer may recommend (yut.md §8.2, rules page 팀전): the server gives
   * `legalMoves` to the player on turn and, while that player picks a move, to their teammates
   * only, so a viewer who holds them and is not on turn is a teammate.
   */
  function teammate() {
    return room.status === 'playing' && !!room.you && !mine() && (room.state.legalMoves?.length ?? 0) > 0;
  }
  const sideOfPlayer = (p) => room.state.sides[room.state.sideOf[p]];

  /**
   * Plays the chosen move — or, for a teammate, recommends it: the player on turn sees it, and
   * nothing moves.
   */
  function move(m) {
    choosing = null;
    chosenThrow = null;
    act({ type: teammate() ? 'RECOMMEND' : 'MOVE', throwIndex: m.throwIndex, from: m.from });
  }

  function draw() {
    const st = room.state;
    const over = room.status === 'finished';
    const myTurn = !over && mine();
    const advising = !over && teammate();
    // A teammate gets the same legalMoves as the player on turn, to recommend one of them.
    const dest = advising ? 'yut-recommend' : 'yut-dest';
    const moves = ((myTurn || advising) && st.phase === 'move' ? st.legalMoves ?? [] : [])
      .filter((m) => chosenThrow == null || m.throwIndex === chosenThrow);
    const byDest = new Map();
    for (const m of moves) {
      const k = String(m.to);
      if (!byDest.has(k)) byDest.set(k, []);
      byDest.get(k).push(m);
    }
    const occupant = new Map();
    for (const side of st.sides) {
      for (const p of side.pieces) {
        if (p.status !== 'board') continue;
        const o = occupant.get(p.node) ?? { side, count: 0, piece: p };
        o.count++;
        occupant.set(p.node, o);
      }
    }
    const mover = st.turnOrder[st.turnIndex];
    const moverSide = mover ? sideOfPlayer(mover) : null;
    const recs = st.recommendations ?? [];
    const nameOf = (id) => room.players.find((p) => p.id === id)?.name ?? id;
    // Recommended moves by destination, to mark the player's own choices with them.
    const recsTo = new Map();
    for (const r of recs) {
      const k = String(r.to);
      if (!recsTo.has(k)) recsTo.set(k, []);
      recsTo.get(k).push(r);
    }

    const board = s('svg', { viewBox: '-8 -8 116 116', class: 'yut-board', role: 'group', 'aria-label': '윷판' });
    for (const [a, b] of EDGES) {
      board.append(s('line', { x1: XY[a][0], y1: XY[a][1], x2: XY[b][0], y2: XY[b][1], class: 'edge' }));
    }
    for (let n = 0; n <= 28; n++) {
      const [x, y] = XY[n];
      board.append(s('circle', { cx: x, cy: y, r: BIG.has(n) ? 6.5 : 4.6, class: `spot${BIG.has(n) ? ' big' : ''}` },
        s('title', { text: `${n} ${NAMES[n]}` })));
    }
    board.append(s('text', { x: 95, y: 104.5, class: 'start-label', text: '출발' }));
    // The path of the move being chosen, dashed.
    for (const [k, ms] of byDest) {
      for (const m of choosing ? ms : ms.slice(0, 1)) {
        if (choosing && k !== choosing) continue;
        // The server lists the spots the move steps on (`path`, after `from`).
        const pts = [m.from, ...(m.path ?? [m.to])].filter((n) => n !== 'home' && n !== 'goal');
        if (pts.length > 1) {
          board.append(s('polyline', { points: pts.map((n) => XY[n].join(',')).join(' '), class: `path${choosing ? ' chosen' : ''}` }));
        }
      }
    }
    // `state.hint` (options.hints): the move a timeout would play, faint under the pieces.
    if (myTurn && st.hint) {
      if (XY[st.hint.from]) {
        const [x, y] = XY[st.hint.from];
        board.append(s('circle', { cx: x, cy: y, r: 7.4, class: 'hint-from' }));
      }
      if (XY[st.hint.to]) {
        const [x, y] = XY[st.hint.to];
        board.append(s('circle', { cx: x, cy: y, r: 7.4, class: 'hint-spot', testid: 'yut-hint', 'data-node': st.hint.to }));
      }
    }
    for (const [node, o] of occupant) {
      const [x, y] = XY[node];
      board.append(token(o.side, x, y, BIG.has(node) ? 4.6 : 3.8, o.count, node));
    }
    for (const [k, ms] of byDest) {
      if (k === 'goal' || k === 'home') continue;
      const node = Number(k);
      const [x, y] = XY[node];
      const first = ms[0];
      const target = occupant.get(node);
      const badge = first.captures > 0 ? '잡기!' : target && target.side === moverSide ? '업기' : '';
      const names = [...new Set(ms.map((m) => RESULT[st.pending[m.throwIndex]][0]))].join('·');
      const advised = recsTo.get(k)?.map((r) => `추천: ${nameOf(r.by)}`).join(', ') ?? '';
      board.append(s('g', {
        class: `dest${badge === '잡기!' ? ' capture' : ''}${choosing === k ? ' chosen' : ''}${advised ? ' recommended' : ''}${advising ? ' advise' : ''}`,
        testid: dest, 'data-node': node, tabindex: 0, role: 'button', 'data-focus': `dest-${node}`,
        'aria-label': `${advising ? '추천하기: ' : ''}${NAMES[node]}(으)로 ${names} ${badge} ${advised}`,
        onclick: () => pick(k), onkeydown: (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), pick(k)),
      },
      s('circle', { cx: x, cy: y, r: 6.8, class: 'dest-ring' }),
      s('text', { x, y: y + 1.6, class: 'dest-label', text: names }),
      badge ? s('text', { x, y: y - 8, class: 'dest-badge', text: badge }) : null));
    }
    // The team's recommendations where they would stop: a badge with the recommender's name.
    for (const [k, rs] of recsTo) {
      if (XY[k] == null) continue;
      const [x, y] = XY[k];
      board.append(s('g', { class: 'rec-mark', testid: 'yut-recommendation-mark', 'data-node': k, 'aria-hidden': 'true' },
        s('circle', { cx: x, cy: y, r: 7.6, class: 'rec-ring' }),
        s('text', { x, y: y + 10.6, class: 'rec-label', text: `추천: ${rs.map((r) => nameOf(r.by)).join(', ')}` })));
    }

    const goalMoves = byDest.get('goal');
    const homeMoves = byDest.get('home');
    const pending = h('div', { class: 'chips', role: 'group', 'aria-label': '모아 둔 결과' },
      st.pending.length ? st.pending.map((t, i) => h('button', {
        type: 'button', class: `chip${chosenThrow === i ? ' chosen' : ''}`, 'data-focus': `chip-${i}`, testid: 'yut-chip',
        'aria-pressed': chosenThrow === i ? 'true' : 'false', disabled: !((myTurn && st.phase === 'move') || advising),
        onclick: () => { chosenThrow = chosenThrow === i ? null : i; choosing = null; draw(); },
      }, h('b', { text: RESULT[t][0] }), h('small', { text: RESULT[t][1] > 0 ? `${RESULT[t][1]}` : '−1' })))
        : h('span', { class: 'hint', text: '모아 둔 결과 없음' }));

    const choice = choosing && byDest.get(choosing)?.length > 1
      ? h('div', { class: 'choice', role: 'group', 'aria-label': '어떤 말을 움직일까요?' },
        h('p', { text: `${choosing === 'goal' ? '날' : choosing === 'home' ? '대기' : NAMES[choosing]}(으)로 가는 방법이 여러 개예요. 골라 주세요.` }),
        byDest.get(choosing).map((m) => h('button', {
          type: 'button', class: 'secondary', testid: advising ? 'yut-recommend-choice' : 'yut-choice',
          'data-focus': `choice-${m.throwIndex}-${m.from}`,
          text: `${m.from === 'home' ? '새 말' : `${NAMES[m.from]}의 말`}을 ${RESULT[st.pending[m.throwIndex]][0]}(으)로${advising ? ' 추천' : ''}`,
          onclick: () => move(m),
        })),
        h('button', { type: 'button', class: 'secondary small', text: '취소', onclick: () => { choosing = null; draw(); } }))
      : h('div', { class: 'choice empty' });

    // The sticks tumble once per new throw, only after the server's answer has drawn them.
    const throwKey = `${JSON.stringify(st.lastThrow)}|${st.pending.length}|${st.turnIndex}`;
    const animate = st.lastThrow != null && lastAnimated != null && lastAnimated !== throwKey;
    if (lastAnimated !== throwKey) lastAnimated = throwKey;
    if (animate) sfx.toss();
    const me = room.you;
    const control = me ? st.control?.[me] : null;
    const controls = over || !me ? null : h('div', { class: 'yut-controls' },
      h('button', {
        type: 'button', class: 'primary throw', testid: 'throw', 'data-focus': 'throw',
        disabled: !(myTurn && st.phase === 'throw'), onclick: () => act({ type: 'THROW' }),
      }, '윷 던지기'),
      goalMoves ? h('button', {
        type: 'button', class: 'primary goal', testid: dest, 'data-node': 'goal', 'data-focus': 'dest-goal',
        onclick: () => pick('goal'),
      }, `${advising ? '추천: ' : ''}날! (${[...new Set(goalMoves.map((m) => RESULT[st.pending[m.throwIndex]][0]))].join('·')})`) : null,
      homeMoves ? h('button', {
        type: 'button', class: 'secondary goal', testid: dest, 'data-node': 'home', 'data-focus': 'dest-home',
        onclick: () => pick('home'),
      }, `${advising ? '추천: ' : ''}빽도: 대기로 돌아가기`) : null,
      control === 'auto' ? h('button', { type: 'button', class: 'secondary', testid: 'take-control', text: '직접 하기',
        onclick: () => act({ type: 'TAKE_CONTROL' }) }) : null);

    const deadline = room.deadlineAt;
    const timer = h('div', { class: 'timer', testid: 'timer' });
    const updateTimer = () => {
      timer.textContent = deadline ? `남은 시간 ${clock(deadline - serverNow())}` : '시간 제한 없음';
    };
    updateTimer();
    clearInterval(tick);
    if (deadline && !over) tick = setInterval(updateTimer, 250);

    const turnText = over ? '게임이 끝났어요'
      : myTurn ? (st.phase === 'throw' ? '내 차례: 윷을 던지세요' : '내 차례: 갈 칸을 고르세요')
        : advising ? `${nameOf(mover)}의 차례: 추천할 수 있어요`
          : `${nameOf(mover) ?? ''}의 차례`;

    const sidesPanel = h('ul', { class: 'sides' }, st.sides.map((side) => {
      const home = side.pieces.filter((p) => p.status === 'home').length;
      const done = side.pieces.filter((p) => p.status === 'done').length;
      const members = side.members.map((id) => {
        const p = room.players.find((x) => x.id === id);
        return h('span', { class: `member${id === mover ? ' on-turn' : ''}` }, p?.name ?? id,
          id === me ? h('span', { class: 'badge me', text: '나' }) : null,
          p?.bot || st.control?.[id] === 'bot' ? h('span', { class: 'badge', text: '봇' }) : null,
          st.control?.[id] === 'auto' ? h('span', { class: 'badge', testid: 'auto-badge', text: '자동 진행' }) : null,
          st.away?.[id] ? h('span', { class: 'badge off', testid: 'away-badge', text: '자리 비움' }) : null,
          p && !p.connected ? h('span', { class: 'badge off', text: '연결 끊김' }) : null);
      });
      const tray = s('svg', { viewBox: `0 0 ${side.pieces.length * 10} 10`, class: 'tray', 'aria-hidden': 'true' },
        side.pieces.map((p, i) => (p.status === 'home' ? token(side, 5 + i * 10, 5, 4, 1)
          : s('circle', { cx: 5 + i * 10, cy: 5, r: 3.5, class: p.status === 'done' ? 'tray-done' : 'tray-out' }))));
      return h('li', { class: `side${side === moverSide && !over ? ' active' : ''}` },
        h('div', { class: 'side-name' }, side.name ?? '', ' ', members),
        h('div', { class: 'side-pieces' }, tray, h('span', { text: `대기 ${home} · 남 ${done}` })));
    }));

    // Team games only (the list is empty for everyone outside the team on turn). The box stays
    // while the game runs, so recommendations coming and going do not move the panel.
    const recList = room.options?.mode === 'team' && !over ? h('div', { class: 'recs', testid: 'recommendations', 'aria-live': 'polite' },
      advising ? h('p', { class: 'hint', text: '갈 칸을 누르면 추천해요. 우리 팀만 보고, 말은 그대로예요.' }) : null,
      recs.map((r) => h('p', { class: 'rec', testid: 'yut-recommendation', 'data-by': r.by, 'data-node': String(r.to) },
        h('span', { class: 'badge rec-badge', text: `추천: ${nameOf(r.by)}` }),
        ` ${RESULT[st.pending[r.throwIndex]]?.[0] ?? ''} · ${r.from === 'home' ? '새 말' : `${spotName(r.from)}의 말`} → ${spotName(r.to)}`,
        myTurn ? h('button', {
          type: 'button', class: 'secondary small', testid: 'yut-follow', 'data-focus': `follow-${r.by}`, text: '이대로 이동',
          onclick: () => move({ throwIndex: r.throwIndex, from: r.from }),
        }) : null)))
      : null;

    const result = over && room.result ? h('section', { class: 'card result', testid: 'result' },
      h('h2', { text: room.result.summary ?? '게임 끝' }),
      h('ol', { class: 'ranking' }, (room.result.ranking ?? []).map((r) => h('li', {},
        h('b', { text: r.rank != null ? `${r.rank}등` : '—' }), ' ',
        st.sides[r.side]?.name ?? r.players.map((id) => room.players.find((p) => p.id === id)?.name).join(', '),
        ` · 남 ${r.finishedPieces}개`))),
      rematchBox(room, rematch),
      revealBox(room),
      h('a', { href: '/', class: 'button secondary', text: '새 방 만들기' })) : null;

    const concede = !over && me && !room.players.find((p) => p.id === me)?.left
      ? h('button', { type: 'button', class: 'danger small', text: '기권', testid: 'concede',
        onclick: async () => { if (await ask('정말 기권할까요?', '기권', 'confirm-concede')) act({ type: 'CONCEDE' }); } })
      : null;

    el.replaceChildren(
      ...(result ? [result] : []),
      h('div', { class: 'board-wrap' }, board),
      h('div', { class: 'panel' },
        h('p', { class: `turn${myTurn ? ' mine' : ''}`, testid: 'turn', text: turnText }),
        over ? null : timer,
        sticksView(st.lastThrow, animate),
        pending,
        controls,
        choice,
        recList,
        sidesPanel,
        concede));
  }

  function pick(k) {
    const st = room.state;
    const ms = (st.legalMoves ?? []).filter((m) => String(m.to) === k && (chosenThrow == null || m.throwIndex === chosenThrow));
    if (ms.length === 1) move(ms[0]);
    else if (ms.length > 1) {
      choosing = k;
      draw();
      el.querySelector('[data-testid="yut-choice"], [data-testid="yut-recommend-choice"]')?.focus();
    }
  }

  return {
    el,
    update(next) {
      if (!room || next.version !== room.version) {
        choosing = null;
        chosenThrow = null;
      }
      const before = room?.state;
      room = next;
      draw();
      // Counted on the screen, so a test can see that a move hopped without timing it.
      const hops = animateYut(el.querySelector('svg.yut-board'), before, next.state, XY);
      if (hops) el.dataset.hops = String(Number(el.dataset.hops ?? 0) + hops);
    },
    destroy() {
      clearInterval(tick);
    },
  };
}
