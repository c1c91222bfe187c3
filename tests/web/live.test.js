// The live channel in the browser: one page moves, the other sees the move with no poll request
// in between — one read per announced version (requests counted) — and a page whose WebSocket is
// blocked falls back to polling on the room's schedule.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoom, joinRoom, launch, startServer, statusIs, version, versionAbove } from './harness.js';

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

/** Counts the page's reads of the room (`GET /rooms/{id}`). */
function countReads(page) {
  const counted = { reads: 0 };
  page.on('request', (r) => {
    if (r.method() === 'GET' && /\/rooms\/[^/?]+(\?|$)/.test(new URL(r.url()).pathname + '?')) counted.reads += 1;
  });
  return counted;
}

/** Whether the page's live socket said hello (resolves when it did). */
function helloSent(page) {
  return new Promise((resolve) => {
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => String(f.payload).includes('"hello"') && resolve(ws));
    });
  });
}

/** Two players in a started 윷놀이 room (no turn timer); the guest page's reads are counted. */
async function twoPages({ blockSocket = false } = {}) {
  const host = await browser.player();
  const guest = await browser.player();
  if (blockSocket) {
    // A network that refuses WebSockets: every socket closes before it opens.
    await guest.addInitScript(() => {
      window.WebSocket = class {
        constructor() {
          this.readyState = 3;
          setTimeout(() => this.onclose?.({ code: 1006 }), 0);
        }
        send() {}
        close() {}
      };
    });
  }
  const counted = countReads(guest);
  const hello = helloSent(guest);
  const link = await createRoom(host, server.base, { game: 'yut', name: '철수' });
  await joinRoom(guest, link, '영희');
  if (!blockSocket) await hello;
  const v = await version(host);
  await versionAbove(host, v - 1);
  await host.getByTestId('start-game').click();
  await statusIs(host, 'playing');
  await statusIs(guest, 'playing');
  return { host, guest, counted };
}

test('a move on one page reaches the other over the socket, with no poll in between', async () => {
  const { host, guest, counted } = await twoPages();
  let checked = 0;
  for (let i = 0; i < 8 && checked < 2; i++) {
    // Whoever is on turn throws; the other page must see it.
    const [mover, watcher] = (await host.getByTestId('throw').isEnabled()) ? [host, guest] : [guest, host];
    if (!(await mover.getByTestId('throw').isEnabled())) break;
    const before = await version(watcher);
    const reads = counted.reads;
    await mover.getByTestId('throw').click();
    await versionAbove(watcher, before);
    if (watcher === guest) {
      const advanced = (await version(guest)) - before;
      assert.ok(
        counted.reads - reads <= advanced,
        `the guest read ${counted.reads - reads} times for ${advanced} announced versions: no polls`,
      );
      checked += 1;
    }
    // Moves to pick: the mover plays its first destination.
    const dest = mover.getByTestId('yut-dest');
    while ((await dest.count()) > 0) {
      const v = await version(mover);
      await dest.first().click();
      await versionAbove(mover, v);
      await versionAbove(watcher, v);
    }
  }
  assert.ok(checked >= 1, 'the guest watched a move of the host');
  assert.deepEqual(guest.errors, []);
});

test('a blocked socket falls back to polling', async () => {
  const { host, guest, counted } = await twoPages({ blockSocket: true });
  for (let i = 0; i < 6; i++) {
    const mover = (await host.getByTestId('throw').isEnabled()) ? host : guest;
    const watcher = mover === host ? guest : host;
    const before = await version(watcher);
    const reads = counted.reads;
    await mover.getByTestId('throw').click();
    await versionAbove(watcher, before);
    if (watcher === guest) {
      assert.ok(counted.reads > reads, 'the guest, without its socket, polled and saw the move');
      return;
    }
    const dest = mover.getByTestId('yut-dest');
    while ((await dest.count()) > 0) {
      const v = await version(mover);
      await dest.first().click();
      await versionAbove(mover, v);
      await versionAbove(watcher, v);
    }
  }
  assert.fail('the host never moved while the guest watched');
});
