// The service worker of Web Push ("your turn" on the lock screen; docs/api.md, "Web Push"). It
// does nothing else: no caching, no fetch handler. A push carries the server's JSON payload
// (decrypted by the browser): it is shown in Korean, and a tap opens the room at the player's
// seat (the page finds the seat's token in its own storage).

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = data.title || '마당';
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || '',
    lang: 'ko',
    tag: data.roomId ? `room-${data.roomId}` : undefined,
    renotify: data.type === 'timeLow',
    requireInteraction: data.type === 'timeLow',
    icon: '/app/icon-192.png',
    data: { url: typeof data.url === 'string' && data.url.startsWith('/r/') ? data.url : '/' },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openRoom(event.notification.data?.url));
});

/**
 * A tap on a notification: the room, at the player's seat (the page finds the seat's token in
 * its own storage). A window of the app already open — on the room, the lobby or another room —
 * is told to go there (web/app.js listens) and brought to the front; only when none is open is a
 * new one opened. Exposed on `self` for the browser test, which cannot tap an OS notification.
 */
async function openRoom(path) {
  const url = new URL(typeof path === 'string' && path.startsWith('/r/') ? path : '/', self.location.origin);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((w) => w.url === url.href)
    ?? windows.find((w) => w.focused)
    ?? windows.find((w) => w.visibilityState === 'visible')
    ?? windows[0];
  if (!open) return self.clients.openWindow(url.href);
  open.postMessage({ type: 'open', url: url.pathname + url.search });
  // Focusing needs the tap's user activation; without it (a test) the message has done the work.
  return open.focus().catch(() => open);
}
self.openRoom = openRoom;
