// Slow 바둑 and "알림 받기" in Chromium: the correspondence clock reads "남은 시간 1일", the tab
// title says "(내 차례)" on the player's turn only, the permission prompt comes only from the
// button, subscribing goes through the real service worker registration (/sw.js) and reaches
// the server (PUT /rooms/{id}/push), and the service worker's push handler — fed a message
// through the DevTools protocol (ServiceWorker.deliverPushMessage) — shows the Korean
// notification for the room; a tap on it (dispatched inside the service worker) takes an open
// window of the app to the room at the player's seat. One tap turns it off.
//
// Headless Chromium has no push service to subscribe with (FCM is not reachable), so only
// `PushManager.subscribe` is stood in for: it returns a subscription at a loopback endpoint,
// which the server accepts because this test names 127.0.0.1 on its allow list.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PHONE, createRoom, joinRoom, launch, startServer, statusIs } from './harness.js';

let server;
let browser;
before(async () => {
  process.env.MADANG_PUSH_HOSTS = '127.0.0.1';
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const FAKE_ENDPOINT = 'http://127.0.0.1:9/push/browser';

test('a slow game: 남은 시간 1일, (내 차례), 알림 받기 through the service worker, and a push shown in Korean', async () => {
  const black = await browser.player(PHONE);
  const white = await browser.player(PHONE);
  let asked = 0;
  await black.exposeFunction('permissionAsked', () => { asked += 1; });
  await black.addInitScript((endpoint) => {
    // Counts the permission prompts, and stands in for the push service's subscribe.
    const request = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = async () => { window.permissionAsked(); return request(); };
    const sub = {
      endpoint,
      toJSON: () => ({ endpoint, expirationTime: null, keys: {
        p256dh: 'BLn9b-VR0ca83knDNZ32dCHGyjJp-1riX9ZTN40MqV8K_LpQmLqxC_DoHvqvFXO_nGdAB4W9dogZb_sM-uV4JbY',
        auth: '_ordMnz7uTCmrpBTeUV4Bw' } }),
    };
    if (self.PushManager) {
      PushManager.prototype.getSubscription = async () => null;
      PushManager.prototype.subscribe = async function subscribe(options) {
        if (!(options.applicationServerKey instanceof Uint8Array) || options.applicationServerKey.length !== 65) {
          throw new Error('applicationServerKey is not the 65-byte VAPID key');
        }
        return sub;
      };
    }
  }, FAKE_ENDPOINT);
  await black.context().grantPermissions(['notifications'], { origin: server.base });

  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '할아버지', preset: 'slow', options: { boardSize: 9, colorAssignment: 'hostBlack' },
  });
  await joinRoom(white, link, '손자');
  await black.getByTestId('start-game').click();
  await statusIs(white, 'playing');
  await statusIs(black, 'playing');
  assert.match(await black.getByTestId('slow-clock-black').innerText(), /^남은 시간 (1일|23시간 5\d분)$/);
  await black.waitForFunction(() => document.title.startsWith('(내 차례) '));
  assert.ok(!(await white.title()).startsWith('(내 차례)'), 'not white\'s turn');
  assert.equal(asked, 0, 'no permission prompt on load');

  // 알림 받기: one tap asks, registers /sw.js, subscribes and tells the server.
  await black.getByTestId('push-toggle').click();
  await black.locator('[data-testid="push-toggle"][aria-pressed="true"]').waitFor();
  assert.equal(asked, 1);
  const scope = await black.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, `${server.base}/`);

  // The service worker's push handler shows the notification, in Korean, for the room.
  const cdp = await black.context().newCDPSession(black);
  const registrations = new Promise((resolve) => cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
    const reg = e.registrations.find((r) => r.scopeURL === `${server.base}/` && !r.isDeleted);
    if (reg) resolve(reg.registrationId);
  }));
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registrations;
  const roomId = link.split('/').pop();
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: server.base,
    registrationId,
    data: JSON.stringify({ type: 'yourTurn', roomId, game: 'baduk', version: 9, title: '바둑 · 내 차례예요',
      body: '상대가 기다려요. 남은 시간 1일', url: `/r/${roomId}` }),
  });
  let shown = [];
  for (let i = 0; i < 100 && shown.length === 0; i += 1) {
    shown = await black.evaluate(async () => {
      const list = await (await navigator.serviceWorker.ready).getNotifications();
      return list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data?.url }));
    });
    if (shown.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(shown, [{ title: '바둑 · 내 차례예요', body: '상대가 기다려요. 남은 시간 1일', tag: `room-${roomId}`, url: `/r/${roomId}` }]);

  // One tap turns it off (DELETE /rooms/{id}/push).
  await black.getByTestId('push-toggle').click();
  await black.locator('[data-testid="push-toggle"][aria-pressed="false"]').waitFor();

  // A tap on the notification shown above opens the room at black's seat. Headless Chromium cannot tap an OS notification,
  // so the tap is made inside the service worker: its own notificationclick handler runs on the
  // notification shown. The app is open elsewhere (the lobby): the worker tells that window to
  // go to the room, and the page shows black's seat, black to move.
  await black.goto(`${server.base}/`);
  await black.locator('form').first().waitFor();
  const [worker] = black.context().serviceWorkers().length
    ? black.context().serviceWorkers()
    : [await black.context().waitForEvent('serviceworker')];
  const clicked = await worker.evaluate(async () => {
    const [notification] = await self.registration.getNotifications();
    const waits = [];
    const event = new Event('notificationclick');
    Object.defineProperty(event, 'notification', { value: notification });
    event.waitUntil = (p) => waits.push(p);
    self.dispatchEvent(event);
    await Promise.all(waits);
    return { handled: waits.length, left: (await self.registration.getNotifications()).length };
  });
  assert.deepEqual(clicked, { handled: 1, left: 0 }, 'the handler ran and closed the notification');
  await black.waitForURL(`${server.base}/r/${roomId}`);
  await black.waitForFunction(() => document.title.startsWith('(내 차례) '));
  await black.getByTestId('slow-clock-black').waitFor();

  // White has no button prompt either until tapped; black moves and the title follows the turn.
  await black.locator('[data-testid="baduk-point"][data-x="2"][data-y="2"]').click();
  await white.waitForFunction(() => document.title.startsWith('(내 차례) '));
  await black.waitForFunction(() => !document.title.startsWith('(내 차례)'));
  assert.deepEqual(black.errors.concat(white.errors).map(String), []);
});
