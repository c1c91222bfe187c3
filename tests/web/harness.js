// What every browser test needs: the real `madang` binary on a free port (MADANG_DEV=1, fresh
// data dir), Debian's Chromium driven by playwright-core (never a downloaded browser), one
// browser context per player, and screenshots under target/screenshots/.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export { startServer } from '../../clients/js/test/server.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SHOTS = join(repo, 'target/screenshots');

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 860 };

/** Launches Chromium (playwright gives each launch a fresh, temporary user-data dir). */
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  // Each player gets a context of its own (own localStorage), like a phone of their own.
  return {
    async player(viewport = PHONE) {
      const ctx = await browser.newContext({ viewport, locale: 'ko-KR' });
      const page = await ctx.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(e)); page.on('console', (m) => process.env.DEBUG_CONSOLE && console.log('console:', m.text()));
      page.on('console', (m) => m.type() === 'error' && page.errors.push(new Error(m.text())));
      return page;
    },
    async close() {
      await browser.close();
    },
  };
}

/** Writes a screenshot to target/screenshots/NAME.png. */
export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** The room version a page shows (`room-status`'s data-version), or -1 before a room shows. */
export async function version(page) {
  const el = page.getByTestId('room-status');
  if ((await el.count()) === 0) return -1;
  return Number(await el.getAttribute('data-version'));
}

/** Waits until the page shows a version above `v`. */
export async function versionAbove(page, v, timeout = 15000) {
  await page.waitForFunction(
    (above) => Number(document.querySelector('[data-testid="room-status"]')?.dataset.version ?? -1) > above,
    v,
    { timeout, polling: 'raf' },
  );
}

/** Waits until the page's room is in `status` (lobby, playing, finished). */
export async function statusIs(page, status, timeout = 15000) {
  await page.locator(`[data-testid="room-status"][data-status="${status}"]`).waitFor({ timeout });
}

/** Screenshots of what a page shows, at phone and desktop sizes, then its own size again. */
export async function shots(page, name) {
  // Let finite animations (the sticks' toss) settle so the picture shows the answer.
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.effect?.getTiming().iterations === Infinity || a.playState !== 'running'));
  const own = page.viewportSize();
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
  await shot(page, `${name}-desktop`);
  await page.setViewportSize(own);
}

/** Creates a room through the lobby form; returns the share link. */
export async function createRoom(page, base, { game, name, seed, options = {}, preset }) {
  await page.goto(`${base}/${seed != null ? `?seed=${seed}` : ''}`);
  await page.getByTestId('game').selectOption(game);
  await page.getByTestId('option-' + (game === 'yut' ? 'mode' : 'boardSize')).waitFor();
  if (preset) await page.getByTestId(`preset-${preset}`).click();
  for (const [key, value] of Object.entries(options)) {
    const control = page.getByTestId(`option-${key}`);
    if ((await control.evaluate((el) => el.tagName)) === 'SELECT') await control.selectOption(String(value));
    else await control.fill(String(value));
  }
  await page.getByTestId('player-name').fill(name);
  await page.getByTestId('create-room').click();
  await statusIs(page, 'lobby');
  return page.getByTestId('share-link').getAttribute('href');
}

/** Opens the share link and joins under `name`. */
export async function joinRoom(page, link, name) {
  await page.goto(link);
  await page.getByTestId('join-room').waitFor();
  await page.getByTestId('player-name').fill(name);
  await page.getByTestId('join-room').click();
  await page.locator('.me', { hasText: `나: ${name}` }).waitFor();
}
