// A phone nobody is looking at (issue 30): a room page hidden for 30 s closes its live socket and
// asks the server nothing while hidden — no socket, no poll, no chat poll — and when it is shown
// again it reads the room once, opens a socket with `hello` and the version it holds, and shows
// what changed at once.
// The page's clock is playwright's (time flows as usual; `fastForward` jumps the 30 s), its
// visibility is driven through `document.visibilityState` and a `visibilitychange` event.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoom, joinRoom, launch, startServer, version, versionAbove } from './harness.js';

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

/** Lets the test hide and show the page: `window.__setHidden(true | false)`. */
function visibilityControl() {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  window.__setHidden = (h) => {
    hidden = h;
    document.dispatchEvent(new Event('visibilitychange'));
  };
}

/** Waits until `done()` holds (checked every 20 ms, 15 s at most). */
async function until(done, what) {
  const end = Date.now() + 15000;
  while (!done()) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a page hidden for 30 s closes its socket, asks nothing while hidden, and is current at once when shown', async () => {
  const host = await browser.player();
  const guest = await browser.player();
  await guest.addInitScript(visibilityControl);
  await guest.clock.install();
  const sockets = [];
  guest.on('websocket', (ws) => {
    const socket = { ws, closed: false, hellos: [] };
    sockets.push(socket);
    ws.on('close', () => {
      socket.closed = true;
    });
    ws.on('framesent', (f) => {
      const text = String(f.payload);
      if (text.includes('"hello"')) socket.hellos.push(JSON.parse(text));
    });
  });
  const link = await createRoom(host, server.base, { game: 'yut', name: '철수' });
  await joinRoom(guest, link, '영희');
  // Joining from the room page swaps the spectator's socket for the player's: the last one.
  const open = () => sockets.filter((s) => !s.closed);
  await until(() => open().length === 1 && open()[0].hellos.length === 1, "the player's socket and hello");
  const first = open()[0];
  const opened = sockets.length;
  const roomId = decodeURIComponent(new URL(link).pathname.split('/').pop());
  const held = await version(guest);

  // Hidden: the socket stays for 30 s, then closes.
  await guest.evaluate(() => window.__setHidden(true));
  await guest.clock.fastForward(29000);
  assert.equal(first.closed, false, 'open for the first 30 s');
  await guest.clock.fastForward(2000);
  await until(() => first.closed, 'the socket to close');

  // While hidden, the room changes (a third player joins) and a minute passes: the page asks
  // nothing and opens no socket.
  const asked = [];
  const onRequest = (r) => asked.push(`${r.method()} ${new URL(r.url()).pathname}`);
  guest.on('request', onRequest);
  const joined = await fetch(`${server.base}/rooms/${encodeURIComponent(roomId)}/players`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: '민수' }),
  });
  assert.equal(joined.status, 201);
  await versionAbove(host, held);
  await guest.clock.fastForward(60000);
  assert.deepEqual(asked, [], 'nothing asked while hidden');
  assert.equal(sockets.length, opened, 'no socket while hidden');
  assert.equal(await version(guest), held, 'the hidden page still shows what it held');

  // Shown: a new socket says hello with the version held, and the page is current at once.
  await guest.evaluate(() => window.__setHidden(false));
  await versionAbove(guest, held);
  await until(() => sockets.length === opened + 1 && sockets[opened].hellos.length === 1, 'the hello of the new socket');
  // The client library reads the room once as it starts watching (before the socket is up), so
  // the hello's `since` is the version the page holds by then: the new one, or `held`.
  const since = sockets[opened].hellos[0].since;
  assert.ok(since >= held && since <= (await version(guest)), `hello since ${since}`);
  assert.equal(await version(guest), await version(host));
  await guest.getByText('민수').first().waitFor();
  const reads = asked.filter((r) => /^GET \/rooms\/[^/]+$/.test(r)).length;
  assert.ok(reads <= 1, `at most one read of the room on coming back: ${asked.join(', ')}`);
  guest.off('request', onRequest);
  assert.deepEqual(guest.errors, []);
  assert.deepEqual(host.errors, []);
});
