// Page weight and speed of the web client (figures for BENCHMARKS.md; measured, never asserted):
// bytes transferred for a first load, time to interactive, and how long after a long-poll
// answer arrives another player's move shows on screen.
// Run: cargo build --release --bin madang && MADANG_BIN=target/release/madang node tests/web/bench.js
// (the server gzips the embedded files for a browser that accepts it: the bytes are as sent).
import { PHONE, createRoom, joinRoom, launch, startServer, statusIs, version, versionAbove } from './harness.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await startServer();
const browser = await launch();
try {
  // First loads, each in a fresh context (empty cache): bytes on the wire and time until the
  // create button can be used.
  const bytes = [];
  const tti = [];
  for (let i = 0; i < 7; i++) {
    const page = await browser.player(PHONE);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    let total = 0;
    let requests = 0;
    let gzipped = 0;
    cdp.on('Network.responseReceived', (e) => {
      const encoding = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding');
      if (encoding?.[1] === 'gzip') gzipped++;
    });
    cdp.on('Network.loadingFinished', (e) => {
      total += e.encodedDataLength;
      requests++;
    });
    await page.goto(`${server.base}/`);
    await page.getByTestId('create-room').waitFor();
    const ready = await page.evaluate(() => performance.now());
    await page.waitForLoadState('networkidle');
    bytes.push({ total, requests, gzipped });
    tti.push(ready);
    await page.context().close();
  }
  const first = bytes[0];
  console.log(`first load: ${first.requests} requests, ${first.total} bytes transferred (${first.gzipped} answers gzip-encoded)`);
  // A reload of a warm page: every file revalidates (Cache-Control: no-cache) and gets a 304.
  const page = await browser.player(PHONE);
  const cdp = await page.context().newCDPSession(page);
  await page.goto(`${server.base}/`);
  await page.getByTestId('create-room').waitFor();
  await page.waitForLoadState('networkidle');
  await cdp.send('Network.enable');
  let again = 0;
  let notModified = 0;
  cdp.on('Network.responseReceived', (e) => { if (e.response.status === 304) notModified++; });
  cdp.on('Network.loadingFinished', (e) => { again += e.encodedDataLength; });
  await page.reload();
  await page.getByTestId('create-room').waitFor();
  await page.waitForLoadState('networkidle');
  console.log(`reload: ${again} bytes transferred, ${notModified} answers 304 Not Modified`);
  await page.context().close();
  console.log(`time to interactive (create button shown): median ${median(tti).toFixed(0)} ms, max ${Math.max(...tti).toFixed(0)} ms over ${tti.length} loads`);

  // Another player's move: from the long-poll answer's last byte to the stone on screen.
  const black = await browser.player(PHONE);
  const white = await browser.player(PHONE);
  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '흑', options: { boardSize: 9, colorAssignment: 'hostBlack', 'timeControl.kind': 'none' },
  });
  await joinRoom(white, link, '백');
  await black.getByTestId('start-game').click();
  await statusIs(white, 'playing');
  const delays = [];
  for (let i = 0; i < 30; i++) {
    const [mover, watcher] = i % 2 ? [white, black] : [black, white];
    const x = i % 9;
    const y = Math.floor(i / 9) * 2 + (i % 2);
    const v = await version(mover);
    await watcher.evaluate(() => {
      performance.clearResourceTimings();
      window.__shown = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          const poll = performance.getEntriesByType('resource').find((e) => e.name.includes('since='));
          if (poll) {
            obs.disconnect();
            resolve(performance.now() - poll.responseEnd);
          }
        });
        obs.observe(document.getElementById('main'), { childList: true, subtree: true });
      });
    });
    await mover.locator(`[data-testid="baduk-point"][data-x="${x}"][data-y="${y}"]`).click();
    await versionAbove(watcher, v);
    delays.push(await watcher.evaluate(() => window.__shown));
  }
  console.log(`update shown after the long-poll answer: median ${median(delays).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms over ${delays.length} moves`);
} finally {
  await browser.close();
  await server.stop();
}
