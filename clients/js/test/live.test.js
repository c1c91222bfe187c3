// The live watch (`watchLive`, and `RoomSession.watch` when the room has a `liveUrl`) against the
// real local server: changes arrive over the socket with one read each and no polling, and a
// socket that cannot open falls back to the room's poll schedule.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { MadangClient } from '../src/madang.js';
import { startServer } from './server.js';

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

/** A client whose GETs of the room are counted. */
function countingClient() {
  const counted = { reads: 0 };
  const client = new MadangClient({
    baseUrl: server.base,
    fetch: (url, init) => {
      if ((init?.method ?? 'GET') === 'GET' && /\/rooms\/[^/]+(\?|$)/.test(String(url))) counted.reads += 1;
      return fetch(url, init);
    },
  });
  return { client, counted };
}

/** Resolves with the first room `session` hears whose version is at least `version`. */
function heard(session, version) {
  return new Promise((resolve) => {
    // The frame may come before the action's own answer (which is gzipped when large): then the
    // session already holds the version.
    if (session.room && session.room.version >= version) {
      resolve(session.room);
      return;
    }
    const listener = (room) => {
      if (room.version >= version) {
        session.listeners.delete(listener);
        resolve(room);
      }
    };
    session.listeners.add(listener);
  });
}

test('a spectator hears every move over the socket, one read per version and no polls', async () => {
  if (!globalThis.WebSocket) throw new Error('run node with --experimental-websocket (Node 20) or Node 22+');
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '철수', options: { turnSeconds: null } });
  const guest = await players.joinRoom(host.roomId, '영희');
  const seats = [players.session(host), players.session({ ...guest, roomId: host.roomId })];
  assert.match(host.room.liveUrl, /^ws:\/\/127\.0\.0\.1:\d+\/live$/);

  const { client, counted } = countingClient();
  const spectator = client.session({ roomId: host.roomId });
  await spectator.refresh();
  let up;
  const opened = new Promise((resolve) => (up = resolve));
  const watch = spectator.watch(undefined, { status: (isUp) => isUp && up() });
  await opened;
  const before = counted.reads;
  let version = spectator.room.version;
  await seats[0].act({ type: 'start' });
  version += 1;
  await heard(spectator, version);
  for (let i = 0; i < 12; i++) {
    const room = await players.getRoom(host.roomId);
    const seat = seats.find((s) => s.playerId === room.state.currentPlayer);
    const mine = await players.getRoom(host.roomId, { token: seat.token });
    const action =
      mine.state.phase === 'throw'
        ? { type: 'THROW' }
        : { type: 'MOVE', throwIndex: mine.state.legalMoves[0].throwIndex, from: mine.state.legalMoves[0].from };
    const acted = await seat.act(action);
    version = acted.version;
    await heard(spectator, version);
  }
  // Every announced version carried the spectator's own room: no read at all, and no polls
  // while the socket is up (13 changes).
  assert.equal(counted.reads - before, 0, `${counted.reads - before} reads for 13 changes`);
  watch.stop();
  await watch.done;
});

test('a socket that cannot open falls back to polling on the room schedule', async () => {
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '철수', options: { turnSeconds: null } });
  const { client, counted } = countingClient();
  const spectator = client.session({ roomId: host.roomId });
  await spectator.refresh();
  // A blocked socket: the live URL points at a port nobody listens on.
  spectator.room = { ...spectator.room, liveUrl: 'ws://127.0.0.1:9/live' };
  const watch = spectator.watch();
  await players.joinRoom(host.roomId, '영희');
  const room = await heard(spectator, 2);
  assert.equal(room.version, 2);
  assert.ok(counted.reads >= 2, 'polled');
  watch.stop();
  await watch.done;
});

/**
 * A live endpoint that takes the WebSocket handshake and then drops every frame: the hello is
 * never answered (a proxy that eats frames, a server that never got it).
 */
async function silentLiveServer() {
  const { createServer } = await import('node:http');
  const { createHash } = await import('node:crypto');
  const server = createServer((_, response) => response.writeHead(404).end());
  const sockets = new Set();
  const counted = { connections: 0, frames: 0 };
  server.on('upgrade', (request, socket) => {
    const accept = createHash('sha1')
      .update(`${request.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    counted.connections += 1;
    sockets.add(socket);
    socket.on('data', () => (counted.frames += 1));
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${server.address().port}/live`,
    counted,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

test('a socket whose hello goes unanswered is not live: the watch polls, and opens it again', { timeout: 60_000 }, async () => {
  if (!globalThis.WebSocket) throw new Error('run node with --experimental-websocket (Node 20) or Node 22+');
  const silent = await silentLiveServer();
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '철수', options: { turnSeconds: null } });
  const { client, counted } = countingClient();
  const spectator = client.session({ roomId: host.roomId });
  await spectator.refresh();
  spectator.room = { ...spectator.room, liveUrl: silent.url };
  const ups = [];
  const watch = client.watchLive(host.roomId, {
    since: spectator.room.version,
    liveUrl: silent.url,
    room: spectator.room,
    onRoom: (room) => spectator.accept(room),
    status: (isUp) => ups.push(isUp),
    helloTimeoutMs: 300,
  });
  // The socket opens and its hello goes out, and nobody answers. The watch still sees the join
  // and the start, by polling the room on its schedule.
  await players.joinRoom(host.roomId, '영희');
  assert.equal((await heard(spectator, 2)).version, 2);
  await players.act(host.roomId, host.token, { type: 'start' });
  assert.equal((await heard(spectator, 3)).version, 3);
  assert.ok(counted.reads >= 2, `${counted.reads} reads: polled`);
  assert.ok(silent.counted.frames >= 1, 'the hello went out');
  assert.deepEqual(ups, [], 'never up');
  // Unanswered, the socket was given up and opened again (with backoff).
  while (silent.counted.connections < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  watch.stop();
  await watch.done;
  silent.close();
});

test('team chat arrives over the socket to the teammate only, with no chat poll', async () => {
  if (!globalThis.WebSocket) throw new Error('run node with --experimental-websocket (Node 20) or Node 22+');
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '청1', options: { mode: 'team', turnSeconds: null } });
  const others = [];
  for (const name of ['홍1', '청2', '홍2']) others.push(await players.joinRoom(host.roomId, name));
  const room = await players.getRoom(host.roomId);
  const teamOf = Object.fromEntries(room.players.map((p) => [p.id, p.team]));
  const teammate = others.find((o) => teamOf[o.playerId] === teamOf[host.playerId]);
  const rival = others.find((o) => teamOf[o.playerId] !== teamOf[host.playerId]);

  // Each listener counts its chat polls, and hears chat through `onChat`.
  const listen = async (seat) => {
    const chatPolls = { n: 0 };
    const client = new MadangClient({
      baseUrl: server.base,
      fetch: (url, init) => {
        if (/\/chat\?/.test(String(url))) chatPolls.n += 1;
        return fetch(url, init);
      },
    });
    const session = client.session({ roomId: host.roomId, token: seat?.token ?? null });
    await session.refresh();
    const heardChat = [];
    let waiting = null;
    let taken;
    const hello = new Promise((resolve) => (taken = resolve));
    const watch = session.watch(undefined, {
      onHello: taken,
      onChat: (m) => {
        heardChat.push(m);
        if (waiting && waiting.seq === m.seq) waiting.resolve();
      },
    });
    await hello;
    const until = (seq) =>
      heardChat.some((m) => m.seq === seq) ? Promise.resolve() : new Promise((resolve) => (waiting = { seq, resolve }));
    return { client, chatPolls, heardChat, watch, until };
  };
  const mate = await listen(teammate);
  const other = await listen(rival);
  const gallery = await listen(null);

  const { seq: secret } = await players.say(host.roomId, { text: '청 작전', to: 'team' }, { token: host.token });
  const { seq: open } = await players.say(host.roomId, { text: '다들 잘 부탁해요' }, { token: host.token });
  // The room message comes after the team message on every socket: once it is heard, the team
  // message has come too — if it was going to.
  for (const l of [mate, other, gallery]) await l.until(open);
  assert.deepEqual(mate.heardChat.map((m) => m.seq), [secret, open]);
  assert.deepEqual(other.heardChat.map((m) => m.seq), [open]);
  assert.deepEqual(gallery.heardChat.map((m) => m.seq), [open]);
  for (const l of [mate, other, gallery]) {
    assert.equal(l.chatPolls.n, 0, 'no chat poll: the socket brought it');
    l.watch.stop();
    await l.watch.done;
  }
  // M exactly as the poll renders it.
  assert.deepEqual(mate.heardChat, await players.chat(host.roomId, { token: teammate.token }));
});

/** The server's clock now (the dev clock: `POST /dev/clock` with nothing to add). */
async function serverNow() {
  const r = await fetch(`${server.base}/dev/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 0 }),
  });
  assert.equal(r.status, 200);
  return (await r.json()).now;
}

test('with the socket up, the watch reads at the deadline of a room that arrived over the socket', async () => {
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '철수', options: { turnSeconds: 15 } });
  const guest = await players.joinRoom(host.roomId, '영희');
  // The guest's app: GETs of the room are counted, with the app's clock at each.
  let offset = 0;
  const now = () => Date.now() + offset;
  const reads = [];
  let onRead = () => {};
  const client = new MadangClient({
    baseUrl: server.base,
    fetch: (url, init) => {
      if ((init?.method ?? 'GET') === 'GET' && /\/rooms\/[^/]+(\?|$)/.test(String(url))) {
        reads.push(now());
        onRead();
      }
      return fetch(url, init);
    },
  });
  const lobby = await client.getRoom(host.roomId, { token: guest.token });
  assert.equal(lobby.deadlineAt ?? null, null, 'a lobby has no deadline');
  const rooms = [];
  let onRoom = () => {};
  let up;
  const opened = new Promise((resolve) => (up = resolve));
  const watch = client.watchLive(host.roomId, {
    token: guest.token,
    since: lobby.version,
    liveUrl: lobby.liveUrl,
    room: lobby,
    now,
    status: (isUp) => isUp && up(),
    onRoom: (room) => {
      rooms.push(room);
      onRoom();
    },
  });
  await opened;
  // The app's clock runs 14.6 s ahead of the server's, so the first turn's deadline (15 s after
  // the start, by the server) is half a second away for the app and not yet passed for the
  // server: the read the app makes then is its deadline read, answered 304 — no sweeper races it.
  offset = (await serverNow()) - Date.now() + 14_600;
  const before = reads.length;
  const deadlineRead = new Promise((resolve) => (onRead = resolve));
  const started = new Promise((resolve) => (onRoom = resolve));
  await players.act(host.roomId, host.token, { type: 'start' });
  await started;
  const first = rooms.at(-1);
  assert.ok(first.deadlineAt > 0, 'the started room has a deadline');
  assert.equal(reads.length, before, 'the start arrived with the room: no read');
  // The loop, asleep for the lobby's hour, re-armed on the room that came over the socket.
  await deadlineRead;
  assert.equal(reads.length, before + 1);
  assert.ok(reads.at(-1) >= first.deadlineAt, 'read at (not before) the deadline, by the app clock');
  // The server's deadline passes: the sweeper fires the timeout and the change arrives with the
  // room. One read per deadline: the 304 did not make the loop spin meanwhile.
  const fired = new Promise((resolve) => (onRoom = resolve));
  await server.advanceClock(15_000);
  await fired;
  const timedOut = rooms.at(-1);
  assert.ok(timedOut.version > first.version);
  assert.ok(timedOut.deadlineAt > first.deadlineAt, 'a new turn, a new deadline');
  assert.equal(reads.length, before + 1, `${reads.length - before} reads`);
  watch.stop();
  await watch.done;
});

test('with the socket up and no changes, a player reads to stay present; a spectator does not', async () => {
  const players = new MadangClient({ baseUrl: server.base });
  const host = await players.createRoom({ game: 'yut', name: '철수', options: { turnSeconds: null } });
  const reads = { player: 0, spectator: 0 };
  const waiting = {};
  const counting = (who) =>
    new MadangClient({
      baseUrl: server.base,
      fetch: (url, init) => {
        if ((init?.method ?? 'GET') === 'GET' && /\/rooms\/[^/]+(\?|$)/.test(String(url))) {
          reads[who] += 1;
          waiting[who]?.();
        }
        return fetch(url, init);
      },
    });
  const watches = [];
  for (const who of ['player', 'spectator']) {
    const client = counting(who);
    const token = who === 'player' ? host.token : undefined;
    const room = await client.getRoom(host.roomId, { token });
    let up;
    const opened = new Promise((resolve) => (up = resolve));
    watches.push(
      client.watchLive(host.roomId, {
        token,
        since: room.version,
        liveUrl: room.liveUrl,
        room,
        keepPresentMs: 300,
        status: (isUp) => isUp && up(),
      }),
    );
    await opened;
  }
  const before = { ...reads };
  // Nothing changes; the player's app reads once its 300 ms without a request are up.
  await new Promise((resolve) => (waiting.player = resolve));
  assert.equal(reads.player, before.player + 1);
  // The spectator has no presence to keep: it has read nothing since it opened the room.
  assert.equal(reads.spectator, before.spectator);
  for (const w of watches) w.stop();
  await Promise.all(watches.map((w) => w.done));
});
