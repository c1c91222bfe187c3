// The client library against the real local server (the `madang` binary on a free port).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { MadangClient, MadangError, retryAfterMs } from '../src/madang.js';
import { startServer } from './server.js';

// The test proxies forward what fetch gives them: the body already decoded (the server gzips
// JSON of 1 KB or more), so its coding and length headers no longer apply.
function passOn(headers) {
  const out = Object.fromEntries(headers);
  delete out['content-encoding'];
  delete out['content-length'];
  return out;
}

let server;
let client;
before(async () => {
  server = await startServer();
  client = new MadangClient({ baseUrl: server.base });
});
after(() => server?.stop());

/** A room with `names.length` seats (the first is the host), as sessions, started or not. */
async function seated(game, options, names, { seed, start = true } = {}) {
  const host = await client.createRoom({ game, name: names[0], options, seed });
  const seats = [client.session(host)];
  for (const name of names.slice(1)) {
    seats.push(client.session({ ...(await client.joinRoom(host.roomId, name)), roomId: host.roomId }));
  }
  if (start) await seats[0].act({ type: 'start' });
  return seats;
}

describe('whole games', () => {
  test('a 4-player team 윷놀이 game with a seed, to the end', async () => {
    const seats = await seated('yut', { mode: 'team', turnSeconds: null }, ['청1', '홍1', '청2', '홍2'], {
      seed: 12,
    });
    const byId = new Map(seats.map((s) => [s.playerId, s]));
    let room = await client.getRoom(seats[0].roomId);
    let actions = 0;
    while (room.status !== 'finished') {
      assert.ok(actions++ < 5000, 'the game ends');
      const state = room.state;
      const mover = byId.get(state.turnOrder[state.turnIndex]);
      // The mover's own view lists the legal moves.
      const mine = await mover.refresh();
      const action =
        mine.state.phase === 'throw'
          ? { type: 'THROW' }
          : { type: 'MOVE', throwIndex: mine.state.legalMoves[0].throwIndex, from: mine.state.legalMoves[0].from };
      const acted = await mover.act(action);
      assert.equal(acted.version, mine.version + 1, 'one action, one version');
      assert.ok(Array.isArray(acted.events) && acted.events.length > 0);
      room = acted.room;
    }
    const winners = room.result.winners;
    assert.equal(winners.length, 2, 'the whole winning team wins');
    const teams = new Set(room.players.filter((p) => winners.includes(p.id)).map((p) => p.team));
    assert.equal(teams.size, 1, 'the winners are teammates');
  });

  test('a 9×9 바둑 game through scoring and agreement, and its SGF', async () => {
    const [black, white] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['흑돌', '백돌']);
    const place = (s, x, y) => s.act({ type: 'place', x, y });
    for (let y = 0; y < 9; y++) {
      await place(black, 4, y);
      await place(white, 5, y);
    }
    await black.act({ type: 'pass' });
    await place(white, 1, 4); // an invader in black's area, dead
    await black.act({ type: 'pass' });
    const passed = await white.act({ type: 'pass' });
    assert.equal(passed.room.state.phase, 'scoring');
    await white.act({ type: 'agreeScore' });
    const end = await black.act({ type: 'agreeScore' });
    assert.equal(end.room.status, 'finished');
    assert.equal(end.room.result.winner, 'black');
    assert.equal(end.room.result.reason, 'score');
    assert.equal(end.room.result.summaryKo, '흑 3집 반 승');
    const sgf = await client.sgf(black.roomId);
    assert.match(sgf, /SZ\[9\]/);
    assert.match(sgf, /RE\[B\+3\.5\]/);
    // The replay: every step from the start, the last one the finished game; past it, a typed error.
    const first = await client.replayStep(black.roomId, 0);
    assert.deepEqual(first.replay, { at: 0, of: end.room.version - first.version });
    assert.equal(first.state.moves.length, 0);
    const last = await client.replayStep(black.roomId, first.replay.of);
    assert.equal(last.version, end.room.version);
    assert.equal(last.result.summaryKo, '흑 3집 반 승');
    await assert.rejects(client.replayStep(black.roomId, first.replay.of + 1), (e) => e.code === 'STEP_NOT_FOUND' && e.status === 404);
  });
});

describe('long-polling', () => {
  test('a watcher wakes when another player acts, and 304 reads as null', async () => {
    const [host, guest] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['가', '나']);
    const v = (await host.refresh()).version;
    assert.equal(await client.getRoom(host.roomId, { token: host.token, since: v, wait: 1 }), null);

    const seen = [];
    const woke = new Promise((resolve) => {
      const watch = guest.watch((room) => {
        seen.push(room.version);
        if (room.version > v) {
          watch.stop();
          resolve(room);
        }
      });
    });
    // Let the watcher's long-poll reach the server before acting.
    await new Promise((r) => setTimeout(r, 100));
    const acted = await host.act({ type: 'place', x: 2, y: 2 });
    const room = await woke;
    assert.equal(room.version, acted.version);
    assert.equal(room.state.board[2 * 9 + 2], 1, 'the watcher sees the black stone');
    assert.equal(guest.room.version, acted.version, 'the session keeps the newest room');
  });

  test('watch stops by itself on a room that does not exist', async () => {
    const errors = [];
    const watch = client.watch('no-such-room', { onError: (e) => errors.push(e) });
    await watch.done;
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof MadangError);
    assert.equal(errors[0].status, 404);
  });
});

describe('retries', () => {
  test('an answer lost on the way back is replayed for the same Idempotency-Key', async () => {
    const [black] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['흑', '백']);
    const before = (await black.refresh()).version;
    // A fetch whose first action reaches the server but whose answer never comes back.
    let lost = 0;
    const lossy = async (url, init) => {
      const response = await fetch(url, init);
      if (init.method === 'POST' && lost++ === 0) {
        await response.body?.cancel();
        throw new TypeError('fetch failed (answer lost)');
      }
      return response;
    };
    const flaky = new MadangClient({ baseUrl: server.base, fetch: lossy, backoffMs: 10 });
    const acted = await flaky.act(black.roomId, black.token, { type: 'place', x: 3, y: 3 });
    assert.equal(lost, 2, 'sent twice');
    assert.equal(acted.replayed, true, 'the second answer is the replay of the first');
    assert.equal(acted.version, before + 1);
    assert.equal((await black.refresh()).version, before + 1, 'the stone was placed once');

    // By hand: the caller gives up (no retries) and later retries with the same key.
    lost = 0;
    const once = new MadangClient({ baseUrl: server.base, fetch: lossy, retries: 0 });
    const [b2] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['흑', '백']);
    const key = 'retry-by-hand-1';
    await assert.rejects(
      once.act(b2.roomId, b2.token, { type: 'place', x: 4, y: 4 }, { idempotencyKey: key }),
      (e) => e instanceof MadangError && e.code === 'NETWORK_ERROR' && e.status === 0,
    );
    const again = await client.act(b2.roomId, b2.token, { type: 'place', x: 4, y: 4 }, { idempotencyKey: key });
    assert.equal(again.replayed, true);
    assert.equal(again.room.state.board[4 * 9 + 4], 1);
  });

  test('only replayable requests are retried after a 503; a 429 (nothing done) always is', async () => {
    // A fault-injecting proxy in front of the real server: the requests are answered, in order,
    // as `faults` says (a status with Retry-After, or null: passed through).
    const faults = [503, 429, null, 503, null];
    let seen = 0;
    const proxy = createServer(async (req, res) => {
      const status = faults[seen++] ?? null;
      if (status) {
        req.resume();
        res.writeHead(status, { 'content-type': 'application/problem+json', 'retry-after': '0.3' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'busy', status, code: 'UNAVAILABLE', detail: '잠시 후에 다시 해 주세요.' }));
        return;
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = { ...req.headers };
      delete headers.host;
      delete headers['content-length'];
      const upstream = await fetch(server.base + req.url, { method: req.method, headers, body });
      res.writeHead(upstream.status, passOn(upstream.headers));
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const via = new MadangClient({ baseUrl: `http://127.0.0.1:${proxy.address().port}` });
      // A create is not replayable: a 503 may have landed, so it is not sent again.
      await assert.rejects(via.createRoom({ game: 'yut', name: '철수' }), (e) => e instanceof MadangError && e.status === 503);
      assert.equal(seen, 1);
      // A 429 did nothing: the create is sent again after Retry-After.
      const started = Date.now();
      const seat = await via.createRoom({ game: 'yut', name: '철수' });
      assert.equal(seen, 3);
      assert.ok(Date.now() - started >= 250, 'waited as Retry-After said');
      assert.equal(seat.room.status, 'lobby');
      // A join carries an Idempotency-Key: retried after a 503, it takes one seat.
      const joined = await via.joinRoom(seat.roomId, '영희');
      assert.equal(seen, 5);
      assert.equal(joined.room.players.length, 2);
    } finally {
      proxy.close();
    }
  });

  test('behind CloudFront: every body carries its SHA-256, and the token survives the signature', async () => {
    // An edge in front of the real server doing what CloudFront with origin access control and
    // the Function URL do (template.yaml, Cdn: CloudFront): Lambda refuses a body whose
    // x-amz-content-sha256 is missing or wrong (403), and the viewer-request function moves the
    // bearer token to x-madang-authorization before CloudFront's SigV4 signature takes
    // Authorization.
    const refused = [];
    const edge = createServer(async (req, res) => {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      if (body) {
        const want = createHash('sha256').update(body).digest('hex');
        if (req.headers['x-amz-content-sha256'] !== want) {
          refused.push(req.url);
          res.writeHead(403, { 'content-type': 'application/json' });
          res.end('{"message":"The request signature we calculated does not match the signature you provided."}');
          return;
        }
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers['content-length'];
      delete headers['x-madang-authorization'];
      if (headers.authorization) headers['x-madang-authorization'] = headers.authorization;
      headers.authorization = 'AWS4-HMAC-SHA256 Credential=EXAMPLE/20261201/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=00';
      const upstream = await fetch(server.base + req.url, { method: req.method, headers, body });
      res.writeHead(upstream.status, passOn(upstream.headers));
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise((r) => edge.listen(0, '127.0.0.1', r));
    try {
      const via = new MadangClient({ baseUrl: `http://127.0.0.1:${edge.address().port}` });
      const host = via.session(await via.createRoom({ game: 'baduk', name: '흑', options: { boardSize: 9, colorAssignment: 'hostBlack' } }));
      const guest = via.session({ ...(await via.joinRoom(host.roomId, '백')), roomId: host.roomId });
      await host.act({ type: 'start' });
      const placed = await host.act({ type: 'place', x: 4, y: 4 });
      assert.equal(placed.room.state.board[4 * 9 + 4], 1);
      await guest.refresh();
      assert.equal(guest.room.you, guest.playerId, 'the moved token reads as its seat');
      assert.deepEqual(refused, []);
      // A body without its hash is what Lambda refuses.
      const bare = await fetch(`http://127.0.0.1:${edge.address().port}/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ game: 'yut', name: '철수' }),
      });
      assert.equal(bare.status, 403);
      assert.deepEqual(refused, ['/rooms']);
    } finally {
      edge.close();
    }
  });

  test('Retry-After in seconds and as an HTTP date', () => {
    assert.equal(retryAfterMs('2'), 2000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(retryAfterMs(null), null);
  });
});

describe('conflicts and errors', () => {
  test('a pinned stale version is refused with 409 and the room; the retry lands', async () => {
    const [black, white] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['흑', '백']);
    await black.refresh();
    await white.refresh();
    await black.act({ type: 'place', x: 2, y: 2 }, { pin: true });
    // White still holds the version before black's move.
    const stale = white.room.version;
    const err = await white.act({ type: 'place', x: 6, y: 6 }, { pin: true }).catch((e) => e);
    assert.ok(err instanceof MadangError);
    assert.equal(err.status, 409);
    assert.equal(err.code, 'VERSION_CONFLICT');
    assert.equal(err.room.version, stale + 1, 'the 409 hands the current room back');
    assert.equal(white.room.version, stale + 1, 'and the session keeps it');
    assert.equal(white.room.state.board[2 * 9 + 2], 1);
    const acted = await white.act({ type: 'place', x: 6, y: 6 }, { pin: true });
    assert.equal(acted.version, stale + 2);
  });

  test('rule errors are typed by code with the Korean detail', async () => {
    const [black, white] = await seated('baduk', { boardSize: 9, colorAssignment: 'hostBlack' }, ['흑', '백']);
    const err = await white.act({ type: 'place', x: 0, y: 0 }).catch((e) => e);
    assert.ok(err instanceof MadangError);
    assert.equal(err.status, 422);
    assert.equal(err.code, 'NOT_YOUR_TURN');
    assert.match(err.detail, /[가-힣]/);
    assert.equal(err.retryable, false);
    const missing = await client.getRoom('nope').catch((e) => e);
    assert.equal(missing.status, 404);
    const bad = await client.createRoom({ game: 'yut', name: '철수', options: { pieces: 9 } }).catch((e) => e);
    assert.equal(bad.code, 'INVALID_OPTIONS');
    assert.equal(bad.field, 'pieces');
    void black;
  });
});

test('the committed API types are those `npm run gen` makes from functions/openapi.json', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const out = join(mkdtempSync(join(tmpdir(), 'madang-gen-')), 'openapi.d.ts');
  // The flags are the `gen` script's own, so the check cannot drift from what `npm run gen` does.
  const gen = JSON.parse(readFileSync(join(here, '../package.json'), 'utf8')).scripts.gen;
  const flags = gen.split(/\s+/).filter((w) => w.startsWith('--'));
  execFileSync(
    process.execPath,
    [join(here, '../node_modules/openapi-typescript/bin/cli.js'), join(here, '../../../functions/openapi.json'),
      ...flags, '-o', out],
    { stdio: 'pipe' },
  );
  assert.equal(
    readFileSync(join(here, '../src/openapi.d.ts'), 'utf8'),
    readFileSync(out, 'utf8'),
    'src/openapi.d.ts is stale: run `npm run gen` in clients/js',
  );
});
