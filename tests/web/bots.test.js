// Issue 22 in the browser: the host seats a computer player from the lobby (a Korean control,
// the levels of `GET /games/{kind}` `bots.levels`, the bot in the seat list with its level,
// kept reachable by keyboard and checked with axe-core) in 윷놀이 and 바둑, then plays a whole
// 9줄 game against the lowest level by clicking the board — legal points read from the room's
// view, a pass once a few stones are down or the bot has passed, then scoring and 동의 — to the
// result. The bot's think time is skipped with the dev clock (the local sweeper, or the page's
// next read, then fires its move), so no step waits for real time to pass.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DESKTOP, PHONE, createRoom, launch, shots, startServer, statusIs, version, versionAbove } from './harness.js';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** The longest think time of a computer player (core's `BOT_THINK_MAX_MS`). */
const BOT_THINK_MAX_MS = 2_000;

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function axe(page, where) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${where}: axe`);
}

async function levels(kind) {
  return (await (await fetch(`${server.base}/games/${kind}`)).json()).bots.levels;
}

/** The room as the page's own seat sees it (its token is in localStorage, as the app keeps it). */
async function roomView(page, roomId) {
  const seat = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)), `madang.seat.${roomId}`);
  const r = await fetch(`${server.base}/rooms/${roomId}`, { headers: { authorization: `Bearer ${seat.token}` } });
  assert.equal(r.status, 200);
  return r.json();
}

/** Seats a computer player of the level labelled `label` with the keyboard alone. */
async function addBotByKeyboard(page, label) {
  const select = page.getByLabel('컴퓨터 실력');
  await select.focus();
  await select.selectOption({ label });
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'add-bot', 'Tab reaches 컴퓨터 넣기');
  const v = await version(page);
  await page.keyboard.press('Enter');
  await versionAbove(page, v);
}

test('윷놀이 lobby: the host seats computer players of two levels by keyboard and removes one', async () => {
  const host = await browser.player(PHONE);
  await createRoom(host, server.base, { game: 'yut', name: '철수' });
  const offered = await levels('yut');
  assert.deepEqual(await host.getByTestId('bot-level').locator('option').allInnerTexts(), offered.map((l) => l.label));
  await addBotByKeyboard(host, offered[0].label);
  await addBotByKeyboard(host, offered.at(-1).label);
  const badges = host.getByTestId('bot-badge');
  assert.deepEqual(await badges.allInnerTexts(), [`컴퓨터 · ${offered[0].label}`, `컴퓨터 · ${offered.at(-1).label}`]);
  assert.deepEqual(
    await host.locator('[data-testid="seat"] .seat-name').allInnerTexts(),
    ['철수', '컴퓨터 1', '컴퓨터 2'],
  );
  // The level picked last stays picked across the redraws; the focus stays on the button.
  assert.equal(await host.getByTestId('bot-level').inputValue(), String(offered.at(-1).level));
  assert.equal(await host.evaluate(() => document.activeElement?.dataset.testid), 'add-bot');
  await axe(host, 'the 윷놀이 lobby with computer players');
  await shots(host, 'lobby-bots');
  const v = await version(host);
  await host.getByRole('button', { name: '컴퓨터 1 내보내기' }).click();
  await versionAbove(host, v);
  assert.deepEqual(await host.locator('[data-testid="seat"] .seat-name').allInnerTexts(), ['철수', '컴퓨터 2']);
  assert.deepEqual(host.errors, [], 'no page errors');
});

test('바둑 9줄 against the lowest computer level: added in the lobby, played by clicks to an agreed score', async () => {
  const me = await browser.player(DESKTOP);
  const link = await createRoom(me, server.base, {
    game: 'baduk', name: '나', options: { boardSize: 9, colorAssignment: 'hostBlack', 'timeControl.kind': 'none' },
  });
  const roomId = link.split('/').at(-1);
  const offered = await levels('baduk');
  assert.deepEqual(await me.getByTestId('bot-level').locator('option').allInnerTexts(), offered.map((l) => l.label));
  assert.equal(await me.getByTestId('bot-level').inputValue(), String(offered[0].level), 'the lowest level first');
  let v = await version(me);
  await me.getByTestId('add-bot').click();
  await versionAbove(me, v);
  assert.equal(await me.getByTestId('bot-badge').innerText(), `컴퓨터 · ${offered[0].label}`);
  assert.ok(await me.getByTestId('add-bot').isDisabled(), 'two seats taken: no third player');
  await axe(me, 'the 바둑 lobby with a computer player');
  await me.getByTestId('start-game').click();
  await statusIs(me, 'playing');
  assert.equal(await me.getByTestId('bot-badge').innerText(), '컴퓨터');

  // Points near the middle first, then the rest of the board.
  const order = [[4, 4], [2, 2], [6, 6], [2, 6], [6, 2], [4, 2], [2, 4], [6, 4], [4, 6]];
  for (let y = 0; y < 9; y++) for (let x = 0; x < 9; x++) order.push([x, y]);
  const STONES_BEFORE_PASSING = 4;
  let placed = 0;
  let botMoves = 0;
  for (let step = 0; step < 300; step++) {
    const room = await roomView(me, roomId);
    if (room.status === 'finished') break;
    const st = room.state;
    const mine = st.players.black === room.you ? 'black' : 'white';
    v = room.version;
    await versionAbove(me, v - 1); // the page shows what the view shows
    if (st.phase === 'playing' && st.turn === mine) {
      const botPassed = st.moves.at(-1)?.kind === 'pass';
      if (placed < STONES_BEFORE_PASSING && !botPassed) {
        const illegal = new Set((st.illegalPoints ?? []).map((p) => `${p.x},${p.y}`));
        const [x, y] = order.find(([x, y]) => st.board[y * 9 + x] === 0 && !illegal.has(`${x},${y}`));
        await me.locator(`[data-testid="baduk-point"][data-x="${x}"][data-y="${y}"]`).click();
        placed++;
      } else {
        await me.getByTestId('pass').click();
        await me.getByTestId('confirm-pass').click();
      }
      await versionAbove(me, v);
    } else if (st.phase === 'scoring' && !st.scoringMarks.agreed[mine]) {
      await me.getByTestId('score-preview').waitFor();
      await me.getByTestId('agree-score').click();
      await versionAbove(me, v);
    } else {
      // The computer's turn (a move, or its marks and 동의 in scoring): due within a think time.
      assert.ok(room.deadlineAt != null, 'the bot announces its move');
      await server.advanceClock(BOT_THINK_MAX_MS + 1);
      await versionAbove(me, v);
      botMoves++;
    }
  }
  await statusIs(me, 'finished');
  const result = await me.getByTestId('result');
  await result.waitFor();
  const end = await roomView(me, roomId);
  assert.equal(end.result.reason, 'score', JSON.stringify(end.result));
  assert.match(await result.innerText(), /흑 [\d.]+ : 백 [\d.]+/);
  assert.ok(placed >= 1 && botMoves >= 2, `${placed} stones placed, ${botMoves} bot moves`);
  assert.ok(end.state.moves.some((m) => m.kind === 'place' && m.color === 'white'), 'the bot placed stones');
  await shots(me, 'baduk-bot-result');
  assert.deepEqual(me.errors, [], 'no page errors');
});
