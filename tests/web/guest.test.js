// A guest seated in three taps (DESIGN "Share"): from a shared link, on a phone, a person who has
// never used Madang opens the link (tap 1), finds the name already filled in and editable, and
// taps 참가하기 (tap 2). Every tap and key press the page receives is counted by the page itself,
// the join button must show without scrolling, and the time from the tap on the link to the
// seat is printed (a figure for BENCHMARKS.md, never an assertion).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PHONE, launch, shot, startServer } from './harness.js';

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

/** A room made by its host over HTTP; returns the link the host shares. */
async function hostRoom(game, name) {
  const r = await fetch(`${server.base}/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ game, name }),
  });
  assert.equal(r.status, 201);
  return `${server.base}/r/${(await r.json()).roomId}`;
}

/** The players of a room, as everyone sees them. */
async function players(link) {
  const id = link.split('/r/')[1];
  return (await (await fetch(`${server.base}/rooms/${id}`)).json()).players.map((p) => p.name);
}

/**
 * Opens `link` in `page` as a tap on it would and seats its guest with the taps a person makes;
 * returns the taps (the link's included), the name it was seated under and the milliseconds.
 */
async function seatGuest(page, link) {
  // Counted by the page: a pointer press or a key press is a tap someone had to make.
  await page.addInitScript(() => {
    window.inputs = 0;
    for (const type of ['pointerdown', 'keydown']) addEventListener(type, () => { window.inputs += 1; }, true);
  });
  const started = performance.now();
  await page.goto(link); // tap 1: the link in the chat
  const join = page.getByTestId('join-room');
  await join.waitFor();
  const box = await join.boundingBox();
  assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `참가하기 shows without scrolling (y ${box.y})`);
  const name = await page.getByTestId('player-name').inputValue();
  assert.ok(name.length > 0, 'the name comes filled in');
  assert.equal(await page.getByTestId('player-name').isEditable(), true, 'and can be changed');
  await join.click(); // tap 2
  await page.locator('.me', { hasText: `나: ${name}` }).waitFor();
  const ms = performance.now() - started;
  return { taps: 1 + (await page.evaluate(() => window.inputs)), name, ms };
}

test('a guest who never used Madang is seated from a shared link in three taps or fewer', async (t) => {
  const link = await hostRoom('yut', '철수');
  const first = await seatGuest(await browser.player(PHONE), link);
  assert.ok(first.taps <= 3, `${first.taps} taps`);
  assert.equal(first.name, '손님');
  t.diagnostic(`seated in ${first.taps} taps, ${Math.round(first.ms)} ms from the link to the seat`);

  // A second newcomer in the same room is offered a name nobody there goes by.
  const secondPage = await browser.player(PHONE);
  const second = await seatGuest(secondPage, link);
  assert.ok(second.taps <= 3, `${second.taps} taps`);
  assert.equal(second.name, '손님 2');
  await shot(secondPage, 'guest-seated');
  t.diagnostic(`second guest seated in ${second.taps} taps, ${Math.round(second.ms)} ms`);
  assert.deepEqual(await players(link), ['철수', '손님', '손님 2']);
  // A prefilled name is not kept as the phone's own: the next room offers 손님 again.
  assert.equal(await secondPage.evaluate(() => localStorage.getItem('madang.name')), null);
});

test('a returning player keeps their name, made free when the room already has it', async (t) => {
  const link = await hostRoom('baduk', '영희');
  const page = await browser.player(PHONE);
  await page.goto(server.base);
  await page.evaluate(() => localStorage.setItem('madang.name', '영희'));
  const seated = await seatGuest(page, link);
  assert.ok(seated.taps <= 3, `${seated.taps} taps`);
  assert.equal(seated.name, '영희 2');
  assert.deepEqual(await players(link), ['영희', '영희 2']);
  assert.equal(await page.evaluate(() => localStorage.getItem('madang.name')), '영희', 'the name the phone goes by is kept');
  t.diagnostic(`seated in ${seated.taps} taps, ${Math.round(seated.ms)} ms`);
});

test('a name the guest types is kept for the next room', async () => {
  const link = await hostRoom('yut', '민수');
  const page = await browser.player(PHONE);
  await page.goto(link);
  await page.getByTestId('player-name').fill('할아버지');
  await page.getByTestId('join-room').click();
  await page.locator('.me', { hasText: '나: 할아버지' }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('madang.name')), '할아버지');
  const next = await hostRoom('yut', '민수');
  await page.goto(next);
  assert.equal(await page.getByTestId('player-name').inputValue(), '할아버지');
  assert.equal(page.errors.length, 0, page.errors.join('\n'));
});
