// Replay (DESIGN "Replay"): `/r/{id}?at=N` shows the game as a spectator saw it after its N-th
// step, from `GET /rooms/{id}/at/{n}` — the server replays its log; nothing is worked out here.
// ⏮ ◀ ▶ ⏭, the arrow keys (Home and End too), a slider, what the step did in Korean, and [공유],
// which copies the URL of the step shown. The address follows the step, so a reload or a shared
// link opens that very step.
import { h, s as svg, toast } from './ui.js';
import { yutScreen } from './yut.js';
import { badukScreen } from './baduk.js';

const RESULT_KO = { do: '도', gae: '개', geol: '걸', yut: '윷', mo: '모', backdo: '빽도', nak: '낙' };
const COLOR_KO = { black: '흑', white: '백' };
const COLS = 'ABCDEFGHJKLMNOPQRST';

/** The URL of step `n` of room `roomId`. */
export function stepUrl(roomId, n) {
  return `${location.origin}/r/${encodeURIComponent(roomId)}?at=${n}`;
}

function where(pos) {
  if (pos === 'home') return '대기';
  if (pos === 'goal') return '남';
  return `${pos}번 자리`;
}

/** The events of `room`'s log that `prev`'s did not have yet (the log is a sliding window). */
function newEvents(prev, room) {
  const before = (prev?.state?.log ?? []).map((e) => JSON.stringify(e));
  const now = room.state?.log ?? [];
  const after = now.map((e) => JSON.stringify(e));
  for (let k = Math.min(before.length, after.length); k > 0; k--) {
    if (after.slice(0, k).every((e, i) => e === before[before.length - k + i])) return now.slice(k);
  }
  return prev ? now : [];
}

/** What a 윷놀이 step did: who threw what, where the piece went, 잡기 and 업기. */
function describeYut(prev, room) {
  const st = room.state;
  const name = (id) => room.players.find((p) => p.id === id)?.name ?? id;
  // A side of one player is that player; a team keeps its name (청, 홍).
  const side = (i) => {
    const members = st.sides?.[i]?.members ?? [];
    return members.length === 1 ? name(members[0]) : (st.sides?.[i]?.name ?? `${i + 1}편`);
  };
  const parts = [];
  for (const e of newEvents(prev, room)) {
    switch (e.type) {
      case 'thrown': parts.push(`${name(e.player)}: ${RESULT_KO[e.result] ?? e.result}!`); break;
      case 'moved': parts.push(`${side(e.side)} 말${e.count > 1 ? ` ${e.count}개` : ''} ${where(e.from)} → ${where(e.to)} (${RESULT_KO[e.result] ?? e.result})`); break;
      case 'captured': parts.push(`잡기! ${side(e.victimSide)} 말 ${e.count}개를 잡았어요`); break;
      case 'stacked': parts.push(`업기: ${where(e.at)}에 ${e.count}개`); break;
      case 'bonusThrow': parts.push('한 번 더 던져요'); break;
      case 'discarded': parts.push('쓸 수 없는 결과는 버려요'); break;
      case 'conceded': parts.push(`${name(e.player)} 기권`); break;
      default: break;
    }
  }
  return parts.join(' · ');
}

/** What a 바둑 step did: the point and the captures, a pass, an undo, scoring, the end. */
function describeBaduk(prev, room) {
  const st = room.state;
  const before = prev?.state?.moves?.length ?? 0;
  const moves = st.moves ?? [];
  if (moves.length > before) {
    const m = moves.at(-1);
    const who = COLOR_KO[m.color] ?? m.color;
    if (m.kind === 'pass') return `${who} 패스`;
    const size = st.size ?? st.options?.boardSize ?? 19;
    const point = `${COLS[m.pt.x]}${size - m.pt.y}`;
    return m.captured?.length ? `${who} ${point} · ${m.captured.length}점 따냄` : `${who} ${point}`;
  }
  if (moves.length < before) return `무르기: ${before - moves.length}수를 물렀어요`;
  if (prev?.state?.phase !== 'scoring' && st.phase === 'scoring') return '계가를 시작해요';
  return '';
}

/** The step's description in Korean. */
export function describe(prev, room, n) {
  if (n === 0) return '시작';
  let text = room.game === 'yut' ? describeYut(prev, room) : describeBaduk(prev, room);
  if (room.status === 'finished' && prev?.status !== 'finished') {
    const summary = room.result?.summaryKo ?? room.result?.summary ?? '게임 끝';
    text = text ? `${text} · ${summary}` : summary;
  }
  return text || `${n}번째 수`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The review of a finished 바둑 game, asked again while the server computes it (202). */
async function fetchReview(client, roomId, isGone) {
  for (let tries = 0; tries < 60 && !isGone(); tries++) {
    const review = await client.review(roomId);
    if (review.moves) return review;
    await sleep(Math.max(1, review.retryAfterSecs ?? 2) * 1000);
  }
  return null;
}

/**
 * A small curve of black's score lead after every move (참고용), with a button for each of
 * the review's swings; `jump(n)` shows the position after move n.
 */
export function reviewPanel(review, jump) {
  const W = 300;
  const H = 80;
  const leads = review.moves.map((m) => m.scoreLead);
  const span = Math.max(5, ...leads.map((x) => Math.abs(x)));
  const x = (n) => (leads.length > 1 ? ((n - 1) / (leads.length - 1)) * W : W / 2);
  const y = (lead) => H / 2 - (lead / span) * (H / 2 - 4);
  const points = review.moves.map((m) => `${x(m.n).toFixed(1)},${y(m.scoreLead).toFixed(1)}`).join(' ');
  const curve = svg('svg', {
    viewBox: `0 0 ${W} ${H}`, class: 'review-curve', testid: 'review-curve', role: 'img',
    'aria-label': `흑 기준 집 차이 그래프 (${review.label}), ${leads.length}수`,
  },
  svg('line', { x1: '0', y1: String(H / 2), x2: String(W), y2: String(H / 2), class: 'review-zero' }),
  svg('polyline', { points, class: 'review-line', fill: 'none' }),
  ...review.swings.map((sw) => {
    const lead = review.moves[sw.n - 1]?.scoreLead ?? 0;
    return svg('circle', { cx: x(sw.n).toFixed(1), cy: y(lead).toFixed(1), r: '3', class: 'review-dot' });
  }));
  const fmt = (d) => `${d > 0 ? '흑' : '백'} 쪽으로 ${Math.abs(d).toFixed(1)}집`;
  const swings = h('div', { class: 'review-swings', role: 'group', 'aria-label': '크게 바뀐 수' },
    ...review.swings.map((sw) => h('button', {
      type: 'button', class: 'secondary small', testid: 'review-swing', 'data-n': String(sw.n),
      text: `${sw.n}수 (${fmt(sw.delta)})`, onclick: () => jump(sw.n),
    })));
  return h('section', { class: 'review', testid: 'review' },
    h('p', { class: 'review-head' }, h('strong', { text: '형세 그래프' }), ' ',
      h('span', { class: 'review-label', testid: 'review-label', text: review.label }),
      h('span', { class: 'review-note', text: ' 흑 기준 예상 집 차이 (위: 흑 우세). 컴퓨터(급 수준)의 대략적인 판단이에요.' })),
    curve, swings);
}

/**
 * The replay of room `roomId` opened at `at` (a step, or `end` for the latest). Returns
 * `{el, destroy}`; `el` shows an error card when the game has no replay.
 */
export async function replayScreen(client, roomId, at) {
  const steps = new Map();
  const load = (n) => {
    if (!steps.has(n)) steps.set(n, client.replayStep(roomId, n));
    return steps.get(n);
  };
  let first;
  try {
    first = await load(0);
  } catch (e) {
    return {
      el: h('section', { class: 'card', testid: 'replay-error' },
        h('h2', { text: '다시 보기를 열 수 없어요' }), h('p', { text: e.detail || e.message }),
        h('a', { href: `/r/${encodeURIComponent(roomId)}`, class: 'button primary', text: '방으로 가기' })),
      destroy() {},
    };
  }
  const of = first.replay.of;
  let shown = at === 'end' ? of : Math.min(Math.max(Number.parseInt(at, 10) || 0, 0), of);
  const noop = () => null;
  const screen = first.game === 'yut' ? yutScreen(noop, { rematch: noop }) : badukScreen(noop, client, { rematch: noop });
  const slider = h('input', {
    type: 'range', min: '0', max: String(of), value: String(shown), step: '1', testid: 'replay-slider',
    'aria-label': '몇 번째 수인지 고르기', class: 'replay-slider',
  });
  const counter = h('span', { class: 'replay-step', testid: 'replay-step' });
  const said = h('p', { class: 'replay-desc', testid: 'replay-desc', 'aria-live': 'polite' });
  const share = h('button', {
    type: 'button', class: 'secondary small', testid: 'replay-share', text: '공유',
    onclick: async () => {
      const url = stepUrl(roomId, shown);
      share.dataset.copied = url;
      try {
        await navigator.clipboard.writeText(url);
        toast('이 장면의 링크를 복사했어요.');
      } catch {
        toast(url);
      }
    },
  });
  const button = (text, label, testid, to) => h('button', {
    type: 'button', class: 'secondary', text, testid, 'aria-label': label, onclick: () => show(to()),
  });
  const controls = h('div', { class: 'replay-controls', role: 'group', 'aria-label': '다시 보기' },
    // ⏮ and ⏭ are drawn from ◀ ▶ and a bar: the app's fonts have no glyph for them.
    button('|◀', '처음으로 (⏮)', 'replay-first', () => 0),
    button('◀', '한 수 뒤로', 'replay-prev', () => shown - 1),
    counter,
    button('▶', '한 수 앞으로', 'replay-next', () => shown + 1),
    button('▶|', '마지막으로 (⏭)', 'replay-last', () => of),
    share);
  const back = h('a', { href: `/r/${encodeURIComponent(roomId)}`, class: 'button secondary small', testid: 'replay-live', text: '지금 판으로' });
  const el = h('section', { class: 'room replay', testid: 'replay' },
    h('div', { class: 'room-head' },
      h('div', { class: 'room-title' }, h('h1', { text: `${first.game === 'yut' ? '윷놀이' : '바둑'} 다시 보기` }), back)),
    h('div', { class: 'replay-bar' }, controls, slider, said),
    screen.el);
  let wanted = shown;
  async function show(n) {
    n = Math.min(Math.max(n, 0), of);
    wanted = n;
    try {
      const [room, prev] = await Promise.all([load(n), n > 0 ? load(n - 1) : null]);
      if (wanted !== n) return;
      shown = n;
      screen.update(room);
      counter.textContent = `${n} / ${of}`;
      counter.dataset.at = String(n);
      counter.dataset.version = String(room.version);
      said.textContent = describe(prev, room, n);
      slider.value = String(n);
      history.replaceState(null, '', `/r/${encodeURIComponent(roomId)}?at=${n}`);
    } catch (e) {
      steps.delete(n);
      toast(e.detail || e.message, 'error');
    }
  }
  slider.addEventListener('input', () => show(Number(slider.value)));
  const keys = (e) => {
    if (e.target instanceof HTMLInputElement && e.target !== slider) return;
    const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 0, End: of }[e.key];
    if (to == null) return;
    e.preventDefault();
    show(to);
  };
  document.addEventListener('keydown', keys);
  await show(shown);
  let gone = false;
  if (first.game === 'baduk') {
    // A finished game's review, under the board: its swings jump to the step after that move.
    (async () => {
      const last = await load(of);
      if (last.status !== 'finished' || gone) return;
      const review = await fetchReview(client, roomId, () => gone);
      if (!review || gone || review.moves.length === 0) return;
      const jump = async (n) => {
        // A move is at least one step (an undo or a scoring step adds more): the first step
        // whose game holds n moves.
        for (let k = Math.min(n, of); k <= of; k++) {
          const room = await load(k);
          if ((room.state?.moves?.length ?? 0) >= n) return show(k);
        }
        return show(of);
      };
      el.append(reviewPanel(review, jump));
    })().catch(() => {});
  }
  return {
    el,
    destroy() {
      gone = true;
      document.removeEventListener('keydown', keys);
      screen.destroy?.();
    },
  };
}
