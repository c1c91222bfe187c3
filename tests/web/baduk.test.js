// 바둑 through the UI only: a 9×9 game through scoring and agreement (two players and a
// spectator, a reload mid-game that rejoins) and its 한 판 더 into a new lobby, and a 19×19
// game with the two-step placement whose timeout is shown as it fires (the server clock
// advanced with /dev/clock).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DESKTOP, PHONE, createRoom, joinRoom, launch, shots, startServer, statusIs, version, versionAbove,
} from './harness.js';

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

const point = (page, x, y) => page.locator(`[data-testid="baduk-point"][data-x="${x}"][data-y="${y}"]`);

/** Taps a point (one tap on 9×9) and waits until every page shows the move. */
async function place(page, x, y, watchers) {
  const v = await version(page);
  await point(page, x, y).click();
  for (const p of watchers) await versionAbove(p, v);
}

async function pass(page, watchers) {
  const v = await version(page);
  await page.getByTestId('pass').click();
  await page.getByTestId('confirm-pass').click();
  for (const p of watchers) await versionAbove(p, v);
}

test('a 9×9 바둑 game through scoring and agreement, with a spectator, a reload and 한 판 더', async () => {
  const black = await browser.player(PHONE);
  const white = await browser.player(DESKTOP);
  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '흑돌', options: { boardSize: 9, colorAssignment: 'hostBlack' },
  });
  await joinRoom(white, link, '백돌');
  const spectator = await browser.player(PHONE);
  await spectator.goto(link);
  await black.getByTestId('start-game').click();
  const all = [black, white, spectator];
  for (const p of all) await statusIs(p, 'playing');
  for (const id of ['pass', 'resign', 'agree-score']) {
    assert.equal(await spectator.getByTestId(id).count(), 0, `no ${id} button for a spectator`);
  }

  // Black walls off column E (x=4), white column F (x=5).
  for (let y = 0; y < 9; y++) {
    await place(black, 4, y, all);
    if (y === 4) {
      // Mid-game: white reloads and is back in the seat at once (token kept per room).
      await shots(black, 'baduk-midgame');
      await white.reload();
      await white.locator('.me', { hasText: '나: 백돌' }).waitFor();
      assert.equal(await white.getByTestId('pass').count(), 1);
    }
    await place(white, 5, y, all);
  }
  const stones = await spectator.locator('.stone').count();
  assert.equal(stones, 18, 'the spectator sees every stone');
  assert.equal(await black.getByTestId('last-move').count(), 1, 'the last move is marked');
  await pass(black, all);
  await white.getByTestId('opponent-passed').waitFor();
  await place(white, 1, 4, all); // an invader in black's area
  await pass(black, all);
  await pass(white, all);
  for (const p of all) await p.getByTestId('score-preview').waitFor();
  // The invader is suggested dead: black 36 + 1, white 27 + 6.5.
  assert.equal(await black.getByTestId('score-preview').innerText(), '흑 37 : 백 33.5');
  assert.equal(await spectator.getByTestId('agree-score').count(), 0);
  await shots(white, 'baduk-scoring');
  let v = await version(white);
  await white.getByTestId('agree-score').click();
  await versionAbove(black, v);
  v = await version(black);
  await black.getByTestId('agree-score').click();
  for (const p of all) {
    await statusIs(p, 'finished');
    await p.getByTestId('result').waitFor();
  }
  assert.match(await spectator.getByTestId('result').innerText(), /흑 3집 반 승/);
  // The nigiri's commitment, shown from the lobby on, checked in the browser against the reveal.
  assert.match(await spectator.getByTestId('rng-commitment').getAttribute('title'), /^[0-9a-f]{64}$/);
  await spectator.locator('[data-testid="rng-verdict"][data-ok="true"]').waitFor();
  const sgf = await black.getByTestId('sgf').getAttribute('href');
  const record = await (await fetch(server.base + sgf)).text();
  assert.match(record, /RE\[B\+3\.5\]/);
  await shots(black, 'baduk-result');

  // 한 판 더: white asks; black's page turns its button into the way over without a reload;
  // both end up in the new lobby as themselves, at the new room's address.
  assert.equal(await spectator.getByTestId('rematch').count(), 0, 'no rematch button for a spectator');
  await white.getByTestId('rematch').click();
  await white.waitForURL((url) => url.href !== link && /\/r\/[\w-]+$/.test(url.pathname));
  await statusIs(white, 'lobby');
  const rematchLink = white.url();
  await black.locator('[data-testid="rematch"][data-ready="true"]').waitFor();
  await spectator.getByTestId('rematch-watch').waitFor();
  assert.equal(await spectator.getByTestId('rematch-watch').getAttribute('href'), new URL(rematchLink).pathname);
  await shots(black, 'baduk-rematch');
  await black.getByTestId('rematch').click();
  await black.waitForURL(rematchLink);
  await statusIs(black, 'lobby');
  for (const [p, name] of [[black, '흑돌'], [white, '백돌']]) {
    await p.locator('.me', { hasText: `나: ${name}` }).waitFor();
    await p.locator('[data-testid="seat"]').nth(1).waitFor();
    assert.equal(await p.getByTestId('join-room').count(), 0, 'already seated: the token went along');
  }
  // Black is still the host and starts; hostBlack became hostWhite, so 백돌 plays black now.
  await black.getByTestId('start-game').click();
  for (const p of [black, white]) await statusIs(p, 'playing');
  assert.equal(await white.getByTestId('turn').innerText(), '내 차례예요');
  // A reload in the new room keeps the seat (stored per room).
  await black.reload();
  await black.locator('.me', { hasText: '나: 흑돌' }).waitFor();
  for (const p of all) assert.deepEqual(p.errors, [], 'no page errors');
});

test('19×19: tap, preview, confirm; an illegal point explained; a timeout shown as it fires', async () => {
  const black = await browser.player(DESKTOP);
  const white = await browser.player(PHONE);
  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '흑', options: {
      boardSize: 19, colorAssignment: 'hostBlack', 'timeControl.mainSec': 60, 'timeControl.periods': 1,
      'timeControl.periodSec': 10,
    },
  });
  await joinRoom(white, link, '백');
  await black.getByTestId('start-game').click();
  await statusIs(white, 'playing');
  // Two steps on 19: the tap shows a preview stone, the confirmation places it.
  await point(black, 3, 3).click();
  await black.getByTestId('preview-stone').waitFor();
  assert.equal(await version(black), await version(white), 'nothing sent before confirming');
  const v = await version(black);
  await black.getByTestId('confirm-move').click();
  await versionAbove(white, v);
  assert.equal(await white.locator('.stone.black').count(), 1);
  // White taps the occupied point: nothing is sent.
  await point(white, 3, 3).click();
  assert.equal(await version(white), v + 1);
  // White closes the corner: A19 (0,0) becomes suicide for black, explained on tap.
  const twoStep = async (page, x, y) => {
    const before = await version(page);
    await point(page, x, y).click();
    await page.getByTestId('confirm-move').click();
    for (const p of [black, white]) await versionAbove(p, before);
  };
  await twoStep(white, 1, 0);
  await twoStep(black, 10, 10);
  await twoStep(white, 0, 1);
  await point(black, 0, 0).click();
  assert.match(await black.getByTestId('illegal-reason').innerText(), /자충/);
  assert.equal(await black.getByTestId('preview-stone').count(), 0, 'no preview on an illegal point');
  await shots(white, 'baduk19-midgame');

  // Black, on turn, runs out of time: 60 s main time and one 10-s period. The server clock jumps past it;
  // the sweeper fires the timeout and both pages show the result without anyone acting.
  const r = await fetch(`${server.base}/dev/clock`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: 75_000 }),
  });
  assert.equal(r.status, 200);
  for (const p of [black, white]) {
    await statusIs(p, 'finished');
    assert.match(await p.getByTestId('result').innerText(), /백 시간승/);
  }
  for (const p of [black, white]) assert.deepEqual(p.errors, [], 'no page errors');
});

test('a tap on an illegal point says the reason the server gives (자충수), and nothing is sent', async () => {
  const black = await browser.player(PHONE);
  const white = await browser.player(PHONE);
  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '흑', options: { boardSize: 9, colorAssignment: 'hostBlack' },
  });
  await joinRoom(white, link, '백');
  await black.getByTestId('start-game').click();
  const all = [black, white];
  for (const p of all) await statusIs(p, 'playing');
  // Black closes the corner A9 (0,0): a white stone there would have no liberty.
  await place(black, 1, 0, all);
  await place(white, 8, 8, all);
  await place(black, 0, 1, all);
  const sent = [];
  white.on('request', (r) => { if (r.method() === 'POST') sent.push(r.url()); });
  const before = await version(white);
  await point(white, 0, 0).click();
  const reason = white.getByTestId('illegal-reason');
  await reason.waitFor();
  assert.match(await reason.textContent(), /자충수/);
  assert.deepEqual(sent, [], 'an illegal point sends no action');
  assert.equal(await version(white), before);
});
