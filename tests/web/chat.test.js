// The chat drawer in real Chromium: two players of one 윷놀이 team talk on the team tab while the
// other team's page never shows it; a spectator's gallery talk never appears on a player's page;
// messages are text, never HTML; on a phone the open drawer sits below the board, never over it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PHONE, launch, shot, startServer, statusIs } from './harness.js';

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

async function api(method, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${server.base}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const json = await r.json();
  assert.ok(r.ok, `${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** A page holding `seat` (null: a spectator) of `roomId`, on the room's screen. */
async function open(roomId, seat, viewport = PHONE) {
  const page = await browser.player(viewport);
  await page.goto(`${server.base}/`);
  if (seat) {
    await page.evaluate(([id, s]) => localStorage.setItem(`madang.seat.${id}`, JSON.stringify(s)), [roomId, seat]);
  }
  await page.goto(`${server.base}/r/${encodeURIComponent(roomId)}`);
  await statusIs(page, 'playing');
  return page;
}

async function openChat(page, tab) {
  if ((await page.getByTestId('chat-panel').getAttribute('hidden')) != null) {
    await page.getByTestId('chat-toggle').click();
  }
  await page.getByTestId(`chat-tab-${tab}`).click();
}

async function sendText(page, text) {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
}

/** The texts the page's open tab shows. */
function shown(page) {
  return page.getByTestId('chat-message').locator('.chat-text').allTextContents();
}

/** Everything the page's chat holds, whatever the tab: the DOM text of every message ever drawn. */
async function everything(page) {
  const texts = [];
  for (const tab of ['room', 'team', 'spectators']) {
    const button = page.getByTestId(`chat-tab-${tab}`);
    if (await button.count()) {
      await button.click();
      texts.push(...(await shown(page)));
    }
  }
  return texts;
}

test('team chat reaches the team only, gallery chat the gallery only, as text', async () => {
  const created = await api('POST', '/rooms', { game: 'yut', name: '청1', options: { mode: 'team', turnSeconds: null }, seed: 5 });
  const roomId = created.roomId;
  const a = { token: created.token, playerId: created.playerId };
  const seatOf = (s) => ({ token: s.token, playerId: s.playerId });
  const b = seatOf(await api('POST', `/rooms/${roomId}/players`, { name: '홍1' }));
  const c = seatOf(await api('POST', `/rooms/${roomId}/players`, { name: '청2' }));
  const d = seatOf(await api('POST', `/rooms/${roomId}/players`, { name: '홍2' }));
  await api('POST', `/rooms/${roomId}/actions`, { action: { type: 'start' } }, a.token);

  const pageA = await open(roomId, a);
  const pageC = await open(roomId, c);
  const pageB = await open(roomId, b);
  const gallery = await open(roomId, null);

  // 청1 says something to the team, with markup that must stay text.
  await openChat(pageA, 'team');
  await sendText(pageA, '<b>모</b>로 잡자');
  await openChat(pageC, 'team');
  await pageC.getByTestId('chat-message').filter({ hasText: '<b>모</b>로 잡자' }).waitFor();
  assert.equal(await pageC.locator('.chat-list b').count(), 0, 'a message is never HTML');
  // The other team's page: wait until it shows a later room message, so that it has polled past
  // the team message.
  await sendText(pageC, '좋아');
  await openChat(pageA, 'room');
  await sendText(pageA, '다들 화이팅');
  await openChat(pageB, 'room');
  await pageB.getByTestId('chat-message').filter({ hasText: '다들 화이팅' }).waitFor();
  // A spectator talks in the gallery; the players never see it.
  await openChat(gallery, 'spectators');
  await gallery.getByTestId('chat-name').fill('구경꾼');
  await sendText(gallery, '훈수: 모로 가요');
  await gallery.getByTestId('chat-message').filter({ hasText: '훈수: 모로 가요' }).waitFor();
  await openChat(gallery, 'room');
  await gallery.getByTestId('chat-message').filter({ hasText: '다들 화이팅' }).waitFor();
  // One more room message after the gallery's: every page that shows it has polled past both.
  await sendText(pageB, '홍팀 간다');
  for (const page of [pageA, pageB, pageC, gallery]) {
    await openChat(page, 'room');
    await page.getByTestId('chat-message').filter({ hasText: '홍팀 간다' }).waitFor();
  }
  const onB = await everything(pageB);
  assert.ok(!onB.includes('<b>모</b>로 잡자') && !onB.includes('좋아'), `the other team saw team talk: ${onB}`);
  assert.equal(await pageB.getByTestId('chat-tab-spectators').count(), 0, 'players have no gallery tab');
  for (const page of [pageA, pageB, pageC]) {
    const all = await everything(page);
    assert.ok(!all.includes('훈수: 모로 가요'), `a player saw the gallery: ${all}`);
  }
  const onGallery = await everything(gallery);
  assert.ok(!onGallery.includes('<b>모</b>로 잡자'), 'spectators never see team talk');
  assert.equal(await gallery.getByTestId('chat-tab-team').count(), 0);

  // Unread badges: the other team's message arrives while 청2's drawer is closed.
  await pageC.getByTestId('chat-toggle').click();
  await openChat(pageB, 'room');
  await sendText(pageB, '하나 더');
  await pageC.getByTestId('chat-unread').filter({ hasText: '1' }).waitFor();

  // On a phone the open drawer is below the board: they never overlap.
  await openChat(pageA, 'team');
  const board = await pageA.locator('.yut-board').boundingBox();
  const drawer = await pageA.getByTestId('chat-panel').boundingBox();
  assert.ok(drawer.y >= board.y + board.height, `the drawer covers the board: ${JSON.stringify({ board, drawer })}`);
  await pageA.getByTestId('chat-panel').scrollIntoViewIfNeeded();
  await shot(pageA, 'chat-team-phone');

  // The emote bar sends the game's phrases.
  await pageA.getByTestId('chat-emote').filter({ hasText: '윷이야!' }).click();
  await pageC.getByTestId('chat-toggle').click();
  await openChat(pageC, 'team');
  await pageC.getByTestId('chat-message').filter({ hasText: '윷이야!' }).waitFor();

  for (const page of [pageA, pageB, pageC, gallery]) assert.deepEqual(page.errors, []);
});

test('a message arrives over the live socket, with no chat poll in between', async () => {
  const created = await api('POST', '/rooms', { game: 'yut', name: '청1', options: { mode: 'team', turnSeconds: null }, seed: 6 });
  const roomId = created.roomId;
  const a = { token: created.token, playerId: created.playerId };
  const seatOf = (s) => ({ token: s.token, playerId: s.playerId });
  await api('POST', `/rooms/${roomId}/players`, { name: '홍1' });
  const c = seatOf(await api('POST', `/rooms/${roomId}/players`, { name: '청2' }));
  await api('POST', `/rooms/${roomId}/players`, { name: '홍2' });
  await api('POST', `/rooms/${roomId}/actions`, { action: { type: 'start' } }, a.token);
  const pageA = await open(roomId, a);

  // 청2's page: its chat polls counted; the catch-up after its socket's hello is awaited (the
  // hello is taken when the pong of the ping after it arrives; the drawer then polls once).
  const pageC = await browser.player(PHONE);
  const chatPolls = { n: 0, answered: 0 };
  let helloTaken = false;
  let catchUp = null;
  let caughtUp;
  const caught = new Promise((resolve) => (caughtUp = resolve));
  const isChatPoll = (r) => r.method() === 'GET' && /\/rooms\/[^/]+\/chat$/.test(new URL(r.url()).pathname);
  pageC.on('websocket', (ws) => ws.on('framereceived', (f) => String(f.payload).includes('"pong"') && (helloTaken = true)));
  pageC.on('request', (r) => {
    if (!isChatPoll(r)) return;
    chatPolls.n += 1;
    if (helloTaken && !catchUp) catchUp = r;
  });
  pageC.on('response', (r) => {
    if (!isChatPoll(r.request())) return;
    chatPolls.answered += 1;
    if (r.request() === catchUp) caughtUp();
  });
  await pageC.goto(`${server.base}/`);
  await pageC.evaluate(([id, s]) => localStorage.setItem(`madang.seat.${id}`, JSON.stringify(s)), [roomId, c]);
  await pageC.goto(`${server.base}/r/${encodeURIComponent(roomId)}`);
  await statusIs(pageC, 'playing');
  await caught;
  await openChat(pageC, 'team');
  // Every chat poll made so far has been answered: none is on its way to bring the message.
  while (chatPolls.answered < chatPolls.n) await new Promise((resolve) => setTimeout(resolve, 20));

  const before = chatPolls.n;
  await openChat(pageA, 'team');
  await sendText(pageA, '소켓으로 왔어요');
  await pageC.getByTestId('chat-message').filter({ hasText: '소켓으로 왔어요' }).waitFor();
  assert.equal(chatPolls.n - before, 0, 'the message came over the socket, with no chat poll');
  for (const page of [pageA, pageC]) assert.deepEqual(page.errors, []);
});
