// 규칙 보기 (yut.md §9, baduk.md §9): each game's rules with SVG diagrams drawn on the real
// boards (the 윷판's spots and lines of yut.js, the 바둑판 of baduk.js). The text follows the
// room's options — a room without 빽도 does not teach 빽도 — and the odds of the throws are the
// server's (`throwOdds` of `GET /games/yut`), not worked out here. Served as a page at
// `/rules/yut` and `/rules/baduk` (with `?room=ID` it follows that room) and opened over the
// lobby and the game.
import { h, s } from './ui.js';
import { BIG, EDGES, XY } from './yut.js';
import { STARS } from './baduk.js';

const RESULTS = [['do', '도', 1], ['gae', '개', 2], ['geol', '걸', 3], ['yut', '윷', 4], ['mo', '모', 5], ['backdo', '빽도', -1]];
const MINE = '#2f6fd6';
const THEIRS = '#d63c3c';

function percent(p) {
  return `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`;
}

/** The 윷판 with `marks` ({node: {label, color, count}}), `paths` (lists of nodes) and `rings`. */
function yutBoard(label, { marks = {}, paths = [], rings = [], flights = [] } = {}) {
  const svg = s('svg', { viewBox: '-4 -4 108 108', class: 'yut-board rules-board', role: 'img', 'aria-label': label, testid: 'rules-diagram' });
  for (const [a, b] of EDGES) svg.append(s('line', { x1: XY[a][0], y1: XY[a][1], x2: XY[b][0], y2: XY[b][1], class: 'edge' }));
  for (const path of paths) {
    const d = path.map((n, i) => `${i ? 'L' : 'M'}${XY[n][0]},${XY[n][1]}`).join(' ');
    svg.append(s('path', { d, class: 'path chosen rules-path', 'marker-end': 'url(#arrow)' }));
  }
  for (let n = 0; n < 29; n += 1) {
    svg.append(s('circle', { cx: XY[n][0], cy: XY[n][1], r: BIG.has(n) ? 5.2 : 3.6, class: `spot${BIG.has(n) ? ' big' : ''}` }));
  }
  for (const n of rings) svg.append(s('circle', { cx: XY[n][0], cy: XY[n][1], r: 6.5, class: 'rules-ring' }));
  for (const [from, to] of flights) {
    svg.append(s('path', { d: `M${XY[from][0]},${XY[from][1]} Q${XY[from][0] + 8},${XY[from][1] + 20} ${to[0]},${to[1]}`, class: 'rules-flight' }));
  }
  for (const [node, m] of Object.entries(marks)) {
    const [x, y] = node === 'home' ? [104, 104] : XY[node];
    if (m.color) {
      svg.append(s('circle', { cx: x, cy: y, r: 3, fill: m.color, stroke: '#fff', 'stroke-width': 0.8 }));
      if (m.count > 1) svg.append(s('text', { x: x + 2.6, y: y - 1.8, class: 'stack', text: `×${m.count}` }));
    }
    if (m.label) svg.append(s('text', { x, y: y + (m.color ? 8 : 1.3), class: 'rules-label', text: m.label }));
  }
  svg.prepend(s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 6 6', refX: 5, refY: 3, markerWidth: 4, markerHeight: 4, orient: 'auto' },
    s('path', { d: 'M0,0 L6,3 L0,6Z', fill: 'var(--primary)' }))));
  return svg;
}

function sticks(up, marked) {
  // Four sticks: flat side up (배) light, round side (등) dark; the first carries the ✕ mark.
  const g = s('svg', { viewBox: '0 0 40 22', class: 'rules-sticks', 'aria-hidden': 'true' });
  for (let i = 0; i < 4; i += 1) {
    // 빽도: the marked stick alone; 윷: all four; otherwise `up` sticks other than the marked one.
    const flat = marked ? i === 0 : up === 4 || (i > 0 && i <= up);
    g.append(s('rect', { x: 2 + i * 9.5, y: 1, width: 7, height: 20, rx: 3, class: flat ? 'stick-flat' : 'stick-round' }));
    if (i === 0) g.append(s('text', { x: 5.5, y: 14, class: 'stick-mark', text: '✕' }));
  }
  return g;
}

function section(title, diagram, ...body) {
  return h('section', { class: 'rules-section', testid: 'rules-section' }, h('h2', { text: title }), diagram,
    h('div', { class: 'rules-text' }, body));
}

function yutRules(schema, o) {
  const backdo = o.backdo !== false;
  const odds = schema.throwOdds?.find((t) => t.stickModel === o.stickModel && t.backdo === backdo)?.odds ?? {};
  const stickOpt = schema.options.find((x) => x.key === 'stickModel');
  const shown = RESULTS.filter(([key]) => backdo || key !== 'backdo');
  const marks = {};
  for (const [, name, steps] of shown) if (steps > 0) marks[steps] = { label: name };
  if (backdo) marks[19] = { label: '빽도' };
  const throwing = section('윷 던지기',
    yutBoard('출발에서 도·개·걸·윷·모로 가는 자리', { marks, paths: [[0, 1, 2, 3, 4, 5]] }),
    h('p', { text: '윷가락 네 개를 던져 평평한 면이 위로 나온 가락 수로 결과가 정해져요. 윷·모가 나오면 한 번 더 던져요.' }),
    h('p', { class: 'hint', text: `윷가락: ${stickOpt?.valueLabels?.[o.stickModel] ?? ''}` }),
    h('ul', { class: 'rules-results', testid: 'rules-odds' },
      shown.map(([key, name, steps]) => h('li', { 'data-result': key },
        sticks(key === 'mo' ? 0 : key === 'yut' ? 4 : steps, key === 'backdo'),
        h('strong', { text: name }),
        h('span', { text: steps > 0 ? `${steps}칸${steps >= 4 ? ' + 한 번 더' : ''}` : '한 칸 뒤로' }),
        h('span', { class: 'odds', text: `나올 확률 약 ${percent(odds[key] ?? 0)}` })))));
  const corners = section('지름길: 모서리와 방',
    yutBoard('모와 뒷모, 방에 멈추면 안쪽 길로 가요', { rings: [5, 10, 22], paths: [[5, 20, 21, 22, 27, 28, 0], [10, 25, 26, 22]],
      marks: { 5: { label: '모' }, 10: { label: '뒷모' }, 22: { label: '방' } } }),
    h('p', { text: '모서리(모·뒷모)에 딱 멈춘 말은 다음에 대각선 지름길로 들어가요. 지나가기만 하면 바깥 길로 계속 가요.' }),
    h('p', { text: '가운데 방에 멈춘 말은 출발점(참먹이) 쪽으로 꺾어 가장 빠르게 돌아와요.' }),
    h('p', { text: o.finishRule === 'reach' ? '참먹이에 닿으면 완주예요.' : '한 바퀴 돌아 참먹이를 지나야 완주예요. 참먹이에 멈추면 아직 판 위에 있어요.' }));
  const stacking = section('업기',
    yutBoard('우리 말 두 개가 한 자리에서 업혀요', { marks: { 3: { color: MINE, count: 2, label: '×2 업힘' }, 1: { color: MINE } }, paths: [[1, 2, 3]] }),
    h('p', { text: '우리 말이 있는 자리에 멈추면 함께 업혀요. 업힌 말은 같이 움직이고, 같이 잡히고, 같이 나요.' }),
    o.mode === 'team' ? h('p', { text: '팀전에서는 같은 팀 말끼리 업어요.' }) : null);
  const captureBonus = o.captureBonusOnYutMo === false ? '도·개·걸로 잡으면 한 번 더 던져요. 윷·모로 잡으면 더 던지지 않아요.' : '잡으면 한 번 더 던져요.';
  const capturing = section('잡기',
    yutBoard('상대 말이 있는 자리에 멈추면 잡아요', {
      marks: { 2: { color: MINE, label: '개' }, 4: { color: THEIRS, label: '잡기!' } },
      paths: [[2, 3, 4]], flights: [[4, [104, 104]]],
    }),
    h('p', { text: '상대 말이 있는 자리에 멈추면 그 말(업힌 말까지 모두)을 대기로 돌려보내요. 지나가기만 하면 잡지 않아요.' }),
    h('p', { text: captureBonus }));
  const parts = [throwing, corners, stacking, capturing];
  if (backdo) {
    const fromDo = { chammeogi: '도 자리에서 빽도가 나오면 참먹이로 가요.', finish: '도 자리에서 빽도가 나오면 바로 나요.', home: '도 자리에서 빽도가 나오면 대기로 돌아가요.' }[o.backdoFromDo] ?? '';
    parts.push(section('빽도',
      yutBoard('빽도는 지나온 길로 한 칸 뒤로 가요', { marks: { 7: { color: MINE, label: '빽도' } }, paths: [[7, 6]] }),
      h('p', { text: '✕ 표시가 있는 윷가락 하나만 젖혀지면 빽도예요. 말이 지나온 길을 따라 한 칸 뒤로 가요.' }),
      h('p', { text: fromDo })));
  }
  return parts;
}

/** A 바둑 diagram: `stones` as {x,y,c: 'b'|'w'} on an `n`-line board, with marks. */
function badukBoard(n, label, { stones = [], marks = [], territory = [] } = {}) {
  const svg = s('svg', { viewBox: `-1 -1 ${n + 1} ${n + 1}`, class: `baduk-board rules-board size-${n}`, role: 'img', 'aria-label': label, testid: 'rules-diagram' });
  svg.append(s('rect', { x: -1, y: -1, width: n + 1, height: n + 1, class: 'wood' }));
  for (let i = 0; i < n; i += 1) {
    svg.append(s('line', { x1: 0, y1: i, x2: n - 1, y2: i, class: 'grid' }));
    svg.append(s('line', { x1: i, y1: 0, x2: i, y2: n - 1, class: 'grid' }));
  }
  for (const [x, y] of STARS[n] ?? []) svg.append(s('circle', { cx: x, cy: y, r: 0.09, class: 'star' }));
  for (const t of territory) svg.append(s('rect', { x: t.x - 0.15, y: t.y - 0.15, width: 0.3, height: 0.3, class: `territory ${t.c === 'b' ? 'black' : 'white'}` }));
  for (const st of stones) svg.append(s('circle', { cx: st.x, cy: st.y, r: 0.46, class: `stone ${st.c === 'b' ? 'black' : 'white'}${st.dead ? ' dead' : ''}` }));
  for (const m of marks) {
    if (m.kind === 'x') svg.append(s('path', { d: `M${m.x - 0.25},${m.y - 0.25}L${m.x + 0.25},${m.y + 0.25}M${m.x + 0.25},${m.y - 0.25}L${m.x - 0.25},${m.y + 0.25}`, class: 'dead-x' }));
    else svg.append(s('circle', { cx: m.x, cy: m.y, r: 0.3, class: `rules-mark ${m.kind}` }));
  }
  return svg;
}

/** Stones from rows of text: `b` black, `w` white, `.` empty. */
function parse(rows) {
  const out = [];
  rows.forEach((row, y) => [...row].forEach((ch, x) => { if (ch === 'b' || ch === 'w') out.push({ x, y, c: ch }); }));
  return out;
}

/**
 * A finished 9줄 game as a picture: `b`/`w` stones, `B`/`W` the empty points each side's stones
 * alone surround (marked by hand for this one position: the page draws an example, it does not
 * count a game — the server does that in the scoring phase).
 */
const COUNTED = [
  'BBbBbwWWW',
  'BbbBbwWwW',
  'bbBbbwWWW',
  'BBbbwwWww',
  'bbbwWwWWW',
  'BBbwwwwWW',
  'bBbbbwWwW',
  'BbbBbwwWW',
  'BBBbbwWWW',
];
/** The territory marks of `COUNTED`. */
function marked(rows) {
  const out = [];
  rows.forEach((row, y) => [...row].forEach((ch, x) => { if (ch === 'B' || ch === 'W') out.push({ x, y, c: ch.toLowerCase() }); }));
  return out;
}

function badukRules(o) {
  const scoring = o.scoring === 'area' ? 'area' : 'territory';
  // The example is an even game: the spec's komi for it (baduk.md §4), unless the room sets one.
  const komi = o.komi ?? (scoring === 'area' ? 7.5 : 6.5);
  const territory = marked(COUNTED);
  const stones = parse(COUNTED);
  const own = (c) => territory.filter((t) => t.c === c).length;
  const onBoard = (c) => stones.filter((t) => t.c === c).length;
  const black = scoring === 'area' ? own('b') + onBoard('b') : own('b');
  const white = scoring === 'area' ? own('w') + onBoard('w') : own('w');
  const whiteTotal = white + komi;
  const unit = scoring === 'area' ? '' : '집';
  return [
    section('따내기',
      badukBoard(5, '흑 넷이 백 한 점을 둘러싸 따내요', {
        stones: parse(['.....', '..b..', '.bw..', '..b..', '.....']), marks: [{ x: 3, y: 2, kind: 'play' }],
      }),
      h('p', { text: '돌은 가로세로로 이어진 빈 자리(활로)로 숨을 쉬어요. 상대가 마지막 활로를 막으면 그 돌은 판에서 들어내요(따내기).' }),
      h('p', { text: '표시한 자리에 흑이 두면 백 한 점을 따내요. 따낸 돌은 상대의 포로가 돼요.' })),
    section('자충수(스스로 숨 막기)',
      badukBoard(5, '백이 표시한 자리에 두면 숨이 없어 둘 수 없어요', {
        stones: parse(['.b...', 'b.b..', '.b...', '.....', '.....']), marks: [{ x: 1, y: 1, kind: 'x' }],
      }),
      h('p', { text: '두자마자 숨이 하나도 없는 자리에는 둘 수 없어요. 다만 그 수로 상대 돌을 따낸다면 둘 수 있어요.' })),
    section('패',
      badukBoard(5, '패: 따낸 바로 그 자리를 곧바로 되따낼 수 없어요', {
        stones: parse(['.bw..', 'b.bw.', '.bw..', '.....', '.....']), marks: [{ x: 1, y: 1, kind: 'play' }],
      }),
      h('p', { text: '흑이 표시한 자리에 두어 백 한 점을 따내면, 백은 곧바로 그 흑 한 점을 되따낼 수 없어요. 다른 곳에 한 수 두고 와야 해요.' }),
      h('p', { text: o.koRule === 'korean' ? '같은 모양이 세 번 되풀이되면(삼패 등) 무승부예요.' : '판 전체가 전에 있던 모양으로 돌아가는 수는 둘 수 없어요.' })),
    section('집 세는 법',
      badukBoard(9, `9줄 끝난 판: 흑 ${black}, 백 ${whiteTotal}`, { stones, territory }),
      h('p', { text: scoring === 'area'
        ? '영역 세기: 내 돌과 내 돌로만 둘러싼 빈 자리를 모두 세요.'
        : '집 세기: 내 돌로만 둘러싼 빈 자리를 세고, 따낸 돌만큼 더해요.' }),
      h('p', { testid: 'rules-count', text: `이 판은 흑 ${black}${unit}, 백 ${white}${unit}에 덤 ${komi}${unit || '점'}을 더해 ${whiteTotal}. ${black > whiteTotal ? `흑이 ${black - whiteTotal}` : `백이 ${whiteTotal - black}`}${unit || '점'} 차이로 이겨요.` }),
      h('p', { class: 'hint', text: '두 사람이 더 둘 곳이 없어 차례로 패스하면, 죽은 돌을 함께 표시하고 동의해서 끝내요.' })),
  ];
}

/** The rules of `kind` under `options` (a room's, or the schema's defaults when absent). */
export function rulesView(kind, schema, options) {
  const defaults = {};
  for (const opt of schema.options) {
    const parts = opt.key.split('.');
    let o = defaults;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
    o[parts.at(-1)] = opt.default;
  }
  const o = { ...defaults, ...(options ?? {}) };
  const title = kind === 'yut' ? '윷놀이 규칙' : '바둑 규칙';
  return h('article', { class: `rules rules-${kind}`, testid: 'rules', 'data-game': kind },
    h('h1', { text: title }),
    options ? h('p', { class: 'hint', text: '이 방의 규칙대로 설명해요.' }) : null,
    kind === 'yut' ? yutRules(schema, o) : badukRules(o));
}

/** Opens the rules over the current screen (a lobby form or a game). */
export async function openRules(client, kind, options) {
  const schema = await client.games(kind);
  const dialog = h('dialog', { class: 'rules-dialog', testid: 'rules-dialog', 'aria-label': kind === 'yut' ? '윷놀이 규칙' : '바둑 규칙' },
    h('form', { method: 'dialog', class: 'rules-close' }, h('button', { class: 'secondary', testid: 'rules-close', text: '닫기' })),
    rulesView(kind, schema, options));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

/** The 규칙 보기 button of a screen: opens the rules of `kind` under `options()`. */
export function rulesButton(client, kind, options = () => null) {
  return h('a', {
    href: `/rules/${kind}`, class: 'button secondary small', testid: 'open-rules', text: '규칙 보기',
    onclick: (e) => {
      e.preventDefault();
      openRules(client, kind, options());
    },
  });
}

