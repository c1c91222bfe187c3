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
  const url = new URL(event.notification.data?.url || '/', self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.find((w) => w.url === url);
    if (open) return open.focus();
    return self.clients.openWindow(url);
  })());
});
