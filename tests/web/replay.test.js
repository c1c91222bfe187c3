// Replay in the web app (DESIGN "Replay", issue 33): a 윷놀이 game played over the API, then its
// replay in Chromium stepped through with the arrow keys, Home/End, the buttons and the slider;
// [공유] gives the URL of the step shown, which opens at that very step. A finished 바둑 game's
// result offers [다시 보기], and a spectator of a game in progress can step back through it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shots, startServer, statusIs } from './harness.js';

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

async function api(method, path, { token, body } = {}) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  assert.ok(response.ok, `${method} ${path} → ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A started room of `game` with two players (the host first). */
async function started(game, options) {
  const host = await api('POST', '/rooms', { body: { game, name: '철수', options, seed: 33 } });
  const guest = await api('POST', `/rooms/${host.roomId}/players`, { body: { name: '영희' } });
  await api('POST', `/rooms/${host.roomId}/actions`, { token: host.token, body: { action: { type: 'start' } } });
  return { id: host.roomId, players: [host, guest] };
}

/** Plays `count` 윷놀이 actions: throw, or the first legal move. */
async function playYut({ id, players }, count) {
  for (let i = 0; i < count; i++) {
    const room = await api('GET', `/rooms/${id}`);
    const on = players.find((p) => p.playerId === room.state.currentPlayer);
    const mine = await api('GET', `/rooms/${id}`, { token: on.token });
    const m = mine.state.legalMoves?.[0];
    const action = mine.state.phase === 'throw' ? { type: 'THROW' } : { type: 'MOVE', throwIndex: m.throwIndex, from: m.from };
    await api('POST', `/rooms/${id}/actions`, { token: on.token, body: { action } });
  }
}

async function stepShown(page) {
  const el = page.getByTestId('replay-step');
  return { at: Number(await el.getAttribute('data-at')), version: Number(await el.getAttribute('data-version')) };
}

async function waitStep(page, n) {
  await page.locator(`[data-testid="replay-step"][data-at="${n}"]`).waitFor({ timeout: 15000 });
  assert.equal(new URL(page.url()).searchParams.get('at'), String(n), 'the address follows the step');
}

test('a replay steps with the keys, the buttons and the slider, and a shared step opens at that step', async () => {
  const room = await started('yut', { turnSeconds: null });
  await playYut(room, 14);
  const start = (await api('GET', `/rooms/${room.id}/at/0`));
  const of = start.replay.of;
  assert.equal(of, 14);
  const page = await browser.player();
  await page.goto(`${server.base}/r/${room.id}?at=3`);
  await waitStep(page, 3);
  assert.equal((await stepShown(page)).version, start.version + 3);
  assert.match(await page.getByTestId('replay-desc').textContent(), /\S/, 'the step says what it did');
  await page.keyboard.press('ArrowRight');
  await waitStep(page, 4);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await waitStep(page, 2);
  await page.keyboard.press('End');
  await waitStep(page, of);
  await page.keyboard.press('Home');
  await waitStep(page, 0);
  assert.equal(await page.getByTestId('replay-desc').textContent(), '시작');
  await page.getByTestId('replay-next').click();
  await waitStep(page, 1);
  assert.match(await page.getByTestId('replay-desc').textContent(), /(도|개|걸|윷|모|빽도|낙)!/, 'who threw what');
  await page.getByTestId('replay-slider').fill('9');
  await waitStep(page, 9);
  await page.getByTestId('replay-slider').focus();
  await page.keyboard.press('ArrowLeft');
  await waitStep(page, 8);
  // What the page shows at a step is the server's view of that version.
  const eight = await api('GET', `/rooms/${room.id}/at/8`);
  assert.equal((await stepShown(page)).version, eight.version);
  await page.getByTestId('replay-share').click();
  const shared = await page.getByTestId('replay-share').getAttribute('data-copied');
  assert.equal(shared, `${server.base}/r/${room.id}?at=8`);
  await shots(page, 'replay-yut');

  const friend = await browser.player();
  await friend.goto(shared);
  await waitStep(friend, 8);
  assert.equal((await stepShown(friend)).version, eight.version);
  assert.deepEqual([...page.errors, ...friend.errors], []);
});

test('a finished game offers 다시 보기, and a spectator of a game in progress steps back to its latest step', async () => {
  const room = await started('baduk', { boardSize: 9, colorAssignment: 'hostBlack' });
  const [black, white] = room.players;
  const place = (p, x, y) => api('POST', `/rooms/${room.id}/actions`, { token: p.token, body: { action: { type: 'place', x, y } } });
  await place(black, 2, 2);
  await place(white, 6, 6);
  await place(black, 2, 6);

  const watcher = await browser.player();
  await watcher.goto(`${server.base}/r/${room.id}`);
  await statusIs(watcher, 'playing');
  await watcher.getByTestId('replay-open').click();
  await waitStep(watcher, 3);
  assert.match(await watcher.getByTestId('replay-desc').textContent(), /흑 C3/);

  await api('POST', `/rooms/${room.id}/actions`, { token: white.token, body: { action: { type: 'resign' } } });
  const page = await browser.player();
  await page.goto(`${server.base}/r/${room.id}`);
  await statusIs(page, 'finished');
  await page.getByTestId('replay-open').click();
  await waitStep(page, 0);
  await page.keyboard.press('End');
  await waitStep(page, 4);
  assert.match(await page.getByTestId('replay-desc').textContent(), /승/, 'the last step says how it ended');
  await shots(page, 'replay-baduk-end');
  // The finished game's review: a curve under the board, labelled 참고용, and its swings jump
  // the replay to that move (no undo here: move n is step n).
  await page.getByTestId('review-curve').waitFor({ timeout: 30000 });
  assert.equal(await page.getByTestId('review-label').textContent(), '참고용');
  const swings = page.getByTestId('review-swing');
  assert.ok((await swings.count()) >= 1 && (await swings.count()) <= 3);
  const n = Number(await swings.first().getAttribute('data-n'));
  assert.ok(n >= 1 && n <= 3);
  await swings.first().click();
  await waitStep(page, n);

  const past = await browser.player();
  await past.goto(`${server.base}/r/${room.id}?at=99`);
  await waitStep(past, 4);
  assert.deepEqual([...watcher.errors, ...page.errors, ...past.errors], []);
});
