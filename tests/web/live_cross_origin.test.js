// The live channel when it is another origin than the pages, as on AWS, where the app comes from
// the HTTP API (or CloudFront) and the socket from the WebSocket API: the page's CSP must let the
// socket through, and one page sees the other's move over it with no poll in between.
//
// - On the Lambda path: the real `api`, `sweeper` and `live` binaries behind the project's
//   emulators (the HTTP front door and the API Gateway WebSocket front, on dynalite), started by
//   `target/debug/lambda_stack` (tests/bin/lambda_stack.rs). The pages load from the front door
//   and `liveUrl` is the WebSocket front, on another port. Needs MADANG_DYNALITE_ENDPOINT and the
//   binaries built with the `dev` feature, as scripts/test provides.
// - Locally: one `madang` whose `liveUrl` (MADANG_LIVE_URL) names it as `localhost` while the
//   pages load from `127.0.0.1`: another origin for the browser, the same server.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { madangBinary } from '../../clients/js/test/server.js';
import { createRoom, joinRoom, launch, statusIs, version, versionAbove } from './harness.js';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Spawns `bin` with `env` and waits for the line matching `ready` (its first group: the base). */
async function spawnServer(bin, env, ready) {
  const child = spawn(bin, [], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const base = await new Promise((resolveBase, reject) => {
    // Only a bound on a hang: the Lambda stack starts several processes and waits for their init.
    const timer = setTimeout(() => reject(new Error(`${bin} did not start in 90 s`)), 90000);
    child.once('exit', (code) => reject(new Error(`${bin} exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = line.match(ready);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    });
  });
  return {
    base,
    async stop() {
      child.stdin.end();
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode != null || child.signalCode != null ? r() : child.once('exit', r)));
    },
  };
}

/** A free loopback port (held while the OS picks it, then let go for the server to bind). */
async function freePort() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

/** Counts the page's reads of the room (`GET /rooms/{id}`). */
function countReads(page) {
  const counted = { reads: 0 };
  page.on('request', (r) => {
    if (r.method() === 'GET' && /\/rooms\/[^/?]+(\?|$)/.test(new URL(r.url()).pathname + '?')) counted.reads += 1;
  });
  return counted;
}

/** Resolves with the socket's URL once the page's live socket has said hello. */
function helloSent(page) {
  return new Promise((resolve) => {
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => String(f.payload).includes('"hello"') && resolve(ws.url()));
    });
  });
}

/**
 * Two players in a started 윷놀이 room on `base`; the guest's socket must open to `liveOrigin`
 * (not the page's origin) and say hello. Then whoever is on turn throws, and the other page must
 * see it with no poll in between: at most one read per announced version (the read the version
 * frame asks for).
 */
async function movesReachTheOtherPageOverTheSocket(base, liveOrigin) {
  const host = await browser.player();
  const guest = await browser.player();
  const counted = countReads(guest);
  const hello = helloSent(guest);
  const link = await createRoom(host, base, { game: 'yut', name: '철수' });
  await joinRoom(guest, link, '영희');
  const socket = await Promise.race([
    hello,
    // The CSP refusing the socket shows as a console error, and the page polls instead.
    new Promise((_, reject) => setTimeout(() => reject(new Error(
      `the guest's live socket never said hello (page errors: ${guest.errors.map((e) => e.message).join(' | ')})`,
    )), 15000)),
  ]);
  assert.equal(new URL(socket).origin, liveOrigin, 'the socket goes to liveUrl');
  assert.notEqual(new URL(socket).host, new URL(base).host, 'the socket is another origin than the page');
  const v = await version(host);
  await versionAbove(host, v - 1);
  await host.getByTestId('start-game').click();
  await statusIs(host, 'playing');
  await statusIs(guest, 'playing');

  let checked = 0;
  for (let i = 0; i < 8 && checked < 2; i++) {
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
    const dest = mover.getByTestId('yut-dest');
    while ((await dest.count()) > 0) {
      const at = await version(mover);
      await dest.first().click();
      await versionAbove(mover, at);
      await versionAbove(watcher, at);
    }
  }
  assert.ok(checked >= 1, 'the guest watched a move of the host');
  assert.deepEqual(guest.errors, [], 'no CSP refusal or other error on the guest page');
  assert.deepEqual(host.errors, [], 'no CSP refusal or other error on the host page');
}

test('on the Lambda binaries behind the emulators, the socket to the WebSocket API opens and moves arrive over it', async () => {
  assert.ok(
    process.env.MADANG_DYNALITE_ENDPOINT,
    'MADANG_DYNALITE_ENDPOINT is not set: this test runs the Lambda path on dynalite, which scripts/test starts',
  );
  const bin = process.env.MADANG_LAMBDA_STACK ?? join(dirname(madangBinary()), 'lambda_stack');
  assert.ok(existsSync(bin), `${bin} is missing: cargo build -p madang-tests --bin lambda_stack`);
  const stack = await spawnServer(bin, { RUST_LOG: 'warn' }, /lambda stack listening on (http:\/\/\S+)/);
  try {
    // The stack's liveUrl, as every view carries it.
    const created = await fetch(`${stack.base}/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ game: 'yut', name: '확인' }),
    }).then((r) => r.json());
    const live = created.room.liveUrl;
    assert.match(live, /^ws:\/\/127\.0\.0\.1:\d+\/live$/);
    assert.notEqual(new URL(live).port, new URL(stack.base).port, 'the WebSocket front is another origin');
    await movesReachTheOtherPageOverTheSocket(stack.base, new URL(live).origin);
  } finally {
    await stack.stop();
  }
});

test('locally, with MADANG_LIVE_URL naming the server by another host, the socket opens and moves arrive over it', async () => {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'madang-web-'));
  const live = `ws://localhost:${port}/live`;
  const server = await spawnServer(madangBinary(), {
    MADANG_ADDR: `127.0.0.1:${port}`,
    MADANG_DATA: data,
    MADANG_DEV: '1',
    MADANG_LIVE_URL: live,
    // The pages come from the other host name: the operator names their origin.
    MADANG_ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
    RUST_LOG: 'warn',
  }, /madang listening on (http:\/\/\S+)/);
  try {
    await movesReachTheOtherPageOverTheSocket(server.base, new URL(live).origin);
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
});
