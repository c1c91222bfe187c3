// Motion and sound of the game screens (yut.md §9, baduk.md §9), worked out from two successive
// views: a 윷놀이 piece hops spot by spot along the path it took and a caught piece flies home;
// a 바둑 stone knocks and taken stones fade away. All motion waits on `motionOn()` (the switch
// and `prefers-reduced-motion`); sounds on the switch alone.
import { s } from './ui.js';
import { motionOn, sfx } from './sound.js';

const HOP_MS = 170;

/** Every piece of a 윷놀이 state by `side:id`: its status and node. */
function pieces(st) {
  const out = new Map();
  st?.sides?.forEach((side, si) => side.pieces.forEach((p) => out.set(`${si}:${p.id}`, { ...p, side: si })));
  return out;
}

/**
 * After a 윷놀이 redraw: hops each moved piece along its trail from where it stood to where it
 * stands, and flies each caught piece from its spot off the board, with a tone per hop.
 */
export function animateYut(board, before, after, xy) {
  if (!board || !before || !after || before === after) return 0;
  // Motion is decoration: whatever it meets, the redraw it follows stands.
  try {
    return hop(board, before, after, xy);
  } catch (e) {
    console.warn('motion', e);
    return 0;
  }
}

function hop(board, before, after, xy) {
  const was = pieces(before);
  const now = pieces(after);
  let hopped = 0;
  for (const [key, p] of now) {
    const old = was.get(key);
    if (!old) continue;
    if (p.status === 'board' && p.node != null && (old.status !== 'board' || old.node !== p.node)) {
      // The path: the trail after the spot it left (from the start when it entered).
      const trail = p.trail ?? [];
      const from = old.status === 'board' ? trail.lastIndexOf(old.node) : -1;
      const path = trail.slice(from + 1);
      if (!path.length || path.at(-1) !== p.node) continue;
      const token = board.querySelector(`g.piece[data-node="${p.node}"]`);
      if (!token || token.dataset.hopped) continue;
      token.dataset.hopped = '1';
      path.forEach((_, i) => sfx.step(i));
      hopped += 1;
      if (!motionOn()) continue;
      const [tx, ty] = xy[p.node];
      const start = old.status === 'board' ? xy[old.node] : [xy[0][0], xy[0][1] + 8];
      const frames = [{ transform: `translate(${start[0] - tx}px, ${start[1] - ty}px)` }];
      for (const [i, n] of path.entries()) {
        const [x, y] = xy[n];
        const [px, py] = i === 0 ? start : xy[path[i - 1]];
        frames.push({ transform: `translate(${(px + x) / 2 - tx}px, ${(py + y) / 2 - ty - 4}px)` });
        frames.push({ transform: `translate(${x - tx}px, ${y - ty}px)` });
      }
      token.animate(frames, { duration: HOP_MS * path.length, easing: 'ease-in-out' });
    } else if (old.status === 'board' && old.node != null && p.status === 'home') {
      sfx.caught();
      if (!motionOn()) continue;
      const [x, y] = xy[old.node];
      const ghost = s('circle', { cx: x, cy: y, r: 3.8, class: 'flying-piece', testid: 'flying-piece' });
      board.append(ghost);
      const fly = ghost.animate([
        { transform: 'translate(0, 0)', opacity: 1 },
        { transform: `translate(${(100 - x) / 2}px, ${-20}px)`, opacity: 0.9 },
        { transform: `translate(${102 - x}px, ${108 - y}px)`, opacity: 0 },
      ], { duration: 700, easing: 'ease-in', delay: HOP_MS * 2 });
      fly.finished.then(() => ghost.remove(), () => ghost.remove());
    }
  }
  return hopped;
}

/**
 * After a 바둑 redraw: a knock for a new stone, a run of notes and fading stones for captures.
 */
export function animateBaduk(svg, before, after) {
  if (!svg || !before || !after || before === after) return;
  try {
    fade(svg, before, after);
  } catch (e) {
    console.warn('motion', e);
  }
}

function fade(svg, before, after) {
  const placed = after.moves.length > before.moves.length && after.moves.at(-1)?.kind === 'place';
  if (placed) sfx.stone();
  const n = after.size;
  const taken = [];
  for (let i = 0; i < after.board.length; i += 1) {
    if (before.board[i] && !after.board[i]) taken.push([i % n, Math.floor(i / n), before.board[i]]);
  }
  if (!taken.length || after.moves.length <= before.moves.length) return;
  sfx.capture(taken.length);
  if (!motionOn()) return;
  for (const [x, y, c] of taken) {
    const ghost = s('circle', { cx: x, cy: y, r: 0.46, class: `stone ${c === 1 ? 'black' : 'white'} taken`, 'pointer-events': 'none' });
    svg.append(ghost);
    const fade = ghost.animate([{ opacity: 1, transform: 'scale(1)' }, { opacity: 0, transform: 'scale(.4)' }],
      { duration: 600, easing: 'ease-in', fill: 'forwards' });
    fade.finished.then(() => ghost.remove(), () => ghost.remove());
  }
}
