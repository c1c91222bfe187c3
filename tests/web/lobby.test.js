// Issue 21: the lobby speaks Korean (every preset of both games, and the page text checked for
// option keys and raw values), constraints as sentences, 초보 모드, the rules (from the lobby,
// from a game, and at /rules/{kind}, following the room's options), the sound switch across a
// reload, the QR invite decoded back to the room link, the installable manifest with its icons,
// and axe-core on the lobby, both boards, the scoring phase and a result screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsQR from 'jsqr';
import {
  DESKTOP, PHONE, createRoom, joinRoom, launch, shots, startServer, statusIs, version, versionAbove,
} from './harness.js';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server;
let browser;
const schemas = {};
before(async () => {
  server = await startServer();
  browser = await launch();
  for (const game of ['yut', 'baduk']) schemas[game] = await (await fetch(`${server.base}/games/${game}`)).json();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Every option key and raw (non-number) value of a game, as a word the page must not show. */
function forbiddenWords(schema) {
  const words = new Set(['true', 'false', 'null']);
  for (const opt of schema.options) {
    for (const part of opt.key.split('.')) words.add(part);
    for (const v of opt.values.oneOf ?? []) if (typeof v === 'string') words.add(v);
  }
  for (const p of schema.presets) words.add(p.name);
  return [...words];
}

/**
 * What the page shows a person, every fold opened — less the room link and the fairness hash,
 * which are addresses, not words.
 */
async function pageText(page) {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    const clone = document.body.cloneNode(true);
    for (const el of clone.querySelectorAll('[data-testid="share-link"], [data-testid="rng-commitment"], script, style')) el.remove();
    document.body.append(clone);
    clone.style.position = 'absolute';
    const text = clone.innerText;
    clone.remove();
    return text;
  });
}

function assertKorean(text, game, where) {
  for (const word of forbiddenWords(schemas[game])) {
    assert.doesNotMatch(text, new RegExp(`(^|[^A-Za-z])${word}([^A-Za-z]|$)`), `${where}: shows "${word}"`);
  }
}

/** axe-core on what the page shows: no serious or critical violation. */
async function axe(page, where) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${where}: axe`);
}

test('every preset of both games shows only Korean, says what it sets, and makes a room', async () => {
  const page = await browser.player(DESKTOP);
  for (const game of ['yut', 'baduk']) {
    for (const preset of schemas[game].presets) {
      await page.goto(`${server.base}/`);
      await page.getByTestId('game').selectOption(game);
      await page.getByTestId(`preset-${preset.name}`).click();
      assert.equal(await page.getByTestId(`preset-${preset.name}`).getAttribute('aria-pressed'), 'true');
      const summary = await page.getByTestId('preset-summary').innerText();
      assert.ok(summary.startsWith(preset.label), `${game} ${preset.name}: ${summary}`);
      if (preset.name === 'quick') {
        assert.match(summary, game === 'yut' ? /말 수: 3개/ : /판 크기: 9줄/, 'the quick game says what it sets');
      }
      assertKorean(await pageText(page), game, `${game} form, ${preset.name}`);
      await page.getByTestId('player-name').fill('방장');
      await page.getByTestId('create-room').click();
      await statusIs(page, 'lobby');
      assertKorean(await pageText(page), game, `${game} room lobby, ${preset.name}`);
      const link = await page.getByTestId('share-link').getAttribute('href');
      const room = await (await fetch(`${server.base}/rooms/${link.split('/').pop()}`)).json();
      for (const [key, value] of Object.entries(preset.options)) {
        if (key !== 'komi' && key !== 'timeControl') assert.deepEqual(room.options[key], value, `${game} ${preset.name} ${key}`);
      }
    }
  }
});

test('constraints read as sentences, and 바둑 points a beginner to 9줄', async () => {
  const page = await browser.player(PHONE);
  await page.goto(`${server.base}/`);
  await page.getByTestId('option-mode').selectOption('team');
  assert.match(await page.getByTestId('players-hint').innerText(), /팀전은 4·6·8명/);
  await page.getByTestId('preset-rulesPage').click();
  await page.getByTestId('option-mode').selectOption('team');
  assert.match(await page.getByTestId('players-hint').innerText(), /팀전은 2:2나 3:3/);
  await page.getByTestId('game').selectOption('baduk');
  await page.getByTestId('beginner-tip').waitFor();
  assert.match(await page.getByTestId('beginner-tip').innerText(), /9줄/);
  assert.equal(await page.getByTestId('option-boardSize').inputValue(), '19');
  await page.getByTestId('beginner-mode').click();
  assert.equal(await page.getByTestId('option-boardSize').inputValue(), '9');
  assert.match(await page.getByTestId('preset-summary').innerText(), /초보 모드: .*9줄/);
  await page.getByTestId('game').selectOption('yut');
  await page.getByTestId('option-mode').waitFor();
  assert.equal(await page.getByTestId('beginner-tip').count(), 0);
  await shots(page, 'lobby-form');
  await axe(page, 'the lobby');
});

/** The QR code's pixels, drawn through an image on a canvas, decoded in Node by jsQR. */
async function decodeQr(page) {
  const { data, width, height } = await page.getByTestId('invite-qr').evaluate(async (svg) => {
    const size = 400;
    const img = new Image();
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0, size, size);
    return { data: [...g.getImageData(0, 0, size, size).data], width: size, height: size };
  });
  return jsQR(Uint8ClampedArray.from(data), width, height)?.data ?? null;
}

test('the lobby shows the room link as a QR code that decodes to it, and shares it', async () => {
  const host = await browser.player(PHONE);
  const link = await createRoom(host, server.base, { game: 'yut', name: '방장' });
  await host.getByTestId('invite-qr').waitFor();
  assert.equal(await decodeQr(host), link, 'the QR code is the room link');
  assert.match(await host.getByTestId('invite-share').innerText(), /공유하기|링크 복사/);
  await shots(host, 'lobby-invite');
  const guest = await browser.player(PHONE);
  await joinRoom(guest, link, '손님');
  assert.equal(await decodeQr(guest), link, 'a guest can show the same code');
  await axe(host, 'the room lobby');
});

test('the app installs: a manifest with its icons, served with their types', async () => {
  const page = await browser.player(PHONE);
  await page.goto(`${server.base}/`);
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const r = await page.request.get(server.base + href);
  assert.equal(r.status(), 200);
  assert.match(r.headers()['content-type'], /^application\/manifest\+json/);
  const manifest = await r.json();
  assert.equal(manifest.name.startsWith('마당'), true);
  assert.equal(manifest.short_name, '마당');
  assert.equal(manifest.display, 'standalone');
  assert.ok(manifest.theme_color && manifest.background_color);
  assert.equal(await page.locator('meta[name="theme-color"]').getAttribute('content'), manifest.theme_color);
  const sizes = [];
  for (const icon of manifest.icons) {
    const res = await page.request.get(server.base + icon.src);
    assert.equal(res.status(), 200, icon.src);
    assert.equal(res.headers()['content-type'], 'image/png');
    const png = await res.body();
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert.equal(`${w}x${h}`, icon.sizes, `${icon.src} is as large as it says`);
    // The browser decodes it too.
    assert.equal(await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return img.naturalWidth;
    }, icon.src), w);
    sizes.push(w);
  }
  assert.deepEqual(sizes.sort((a, b) => a - b), [192, 512]);
});

test('the sound switch persists across a reload', async () => {
  const page = await browser.player(PHONE);
  await page.goto(`${server.base}/`);
  const toggle = page.getByTestId('sound-toggle');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true', 'on at first');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await page.reload();
  assert.equal(await page.getByTestId('sound-toggle').getAttribute('aria-pressed'), 'false', 'still off after a reload');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.sound), 'off');
  await page.getByTestId('sound-toggle').click();
  await page.reload();
  assert.equal(await page.getByTestId('sound-toggle').getAttribute('aria-pressed'), 'true');
});

async function assertRules(page, { sections, noBackdo = false }) {
  const rules = page.getByTestId('rules').last();
  await rules.waitFor();
  const found = await rules.getByTestId('rules-section').evaluateAll((els) => els.map((el) => ({
    title: el.querySelector('h2').textContent,
    diagrams: el.querySelectorAll('svg[data-testid="rules-diagram"]').length,
  })));
  assert.deepEqual(found.map((f) => f.title), sections);
  for (const f of found) assert.equal(f.diagrams, 1, `${f.title} has its diagram`);
  if (noBackdo) assert.doesNotMatch(await rules.innerText(), /빽도/, 'a room without 빽도 does not teach it');
}

const YUT_SECTIONS = ['윷 던지기', '지름길: 모서리와 방', '업기', '잡기', '빽도'];
const BADUK_SECTIONS = ['따내기', '자충수(스스로 숨 막기)', '패', '집 세는 법'];

test('the rules open from the lobby, from a game and at /rules/{kind}, and follow the room', async () => {
  const page = await browser.player(PHONE);
  await page.goto(`${server.base}/`);
  await page.getByTestId('open-rules').click();
  await assertRules(page, { sections: YUT_SECTIONS });
  // The odds are the server's, for the chosen stick model.
  const odds = schemas.yut.throwOdds.find((t) => t.stickModel === 'realistic' && t.backdo).odds;
  const shown = await page.getByTestId('rules-odds').locator('li').evaluateAll((els) => els.map((e) => [e.dataset.result, e.textContent]));
  assert.equal(shown.length, 6);
  for (const [result, text] of shown) assert.match(text, new RegExp(`${(odds[result] * 100).toFixed(odds[result] < 0.1 ? 1 : 0)}%`), result);
  await shots(page, 'rules-yut');
  await axe(page, 'the rules');
  await page.getByTestId('rules-close').click();

  // A game without 빽도: the rules opened from the game leave it out.
  const host = page;
  const link = await createRoom(host, server.base, { game: 'yut', name: '가', options: { backdo: false } });
  const guest = await browser.player(DESKTOP);
  await joinRoom(guest, link, '나');
  await startGame(host);
  await statusIs(guest, 'playing');
  await guest.getByTestId('open-rules').click();
  await assertRules(guest, { sections: YUT_SECTIONS.slice(0, 4), noBackdo: true });
  assert.equal(await guest.getByTestId('rules-odds').locator('li').count(), 5);
  await axe(guest, 'the rules over a game');
  await guest.getByTestId('rules-close').click();
  await axe(guest, 'the 윷놀이 board');
  // A move: the piece hops along its path on both pages (counted by the screen, not timed).
  await versionAbove(host, (await version(guest)) - 1);
  const mover = (await host.getByTestId('throw').isEnabled()) ? host : guest;
  const watcher = mover === host ? guest : host;
  while (await mover.getByTestId('throw').isEnabled()) {
    const v = await version(mover);
    await mover.getByTestId('throw').click();
    await versionAbove(mover, v);
  }
  const v = await version(mover);
  await mover.getByTestId('yut-dest').first().click();
  const choice = mover.getByTestId('yut-choice');
  if (await choice.count()) await choice.first().click();
  await versionAbove(watcher, v);
  await watcher.waitForFunction(() => Number(document.querySelector('.game.yut')?.dataset.hops ?? 0) >= 1);
  // The same pages at their own addresses, one following a room.
  await guest.goto(`${server.base}/rules/baduk`);
  await assertRules(guest, { sections: BADUK_SECTIONS });
  assert.match(await guest.getByTestId('rules-count').innerText(), /흑 \d+집, 백 \d+집에 덤 6.5/);
  await shots(guest, 'rules-baduk');
  await guest.goto(`${server.base}/rules/yut?room=${link.split('/').pop()}`);
  await assertRules(guest, { sections: YUT_SECTIONS.slice(0, 4), noBackdo: true });
  const r = await fetch(`${server.base}/rules/yut`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/html/);
});

/** The host starts once its page shows both seats (the join has reached it). */
async function startGame(host) {
  await host.getByTestId('seat').nth(1).waitFor();
  await host.getByTestId('start-game').click();
  await statusIs(host, 'playing');
}

async function pass(page, watchers) {
  const v = await version(page);
  await page.getByTestId('pass').click();
  await page.getByTestId('confirm-pass').click();
  for (const p of watchers) await versionAbove(p, v);
}

test('axe-core finds nothing serious on the 바둑 board, the scoring phase (with the group the opponent toggled) and the result', async () => {
  const black = await browser.player(PHONE);
  const white = await browser.player(DESKTOP);
  const link = await createRoom(black, server.base, { game: 'baduk', name: '흑', options: { boardSize: 9, colorAssignment: 'hostBlack' } });
  await joinRoom(white, link, '백');
  await startGame(black);
  await statusIs(white, 'playing');
  await axe(black, 'the 바둑 board');
  await black.getByTestId('open-rules').click();
  await assertRules(black, { sections: BADUK_SECTIONS });
  await black.getByTestId('rules-close').click();
  let v = await version(black);
  await black.locator('[data-testid="baduk-point"][data-x="4"][data-y="4"]').click();
  await versionAbove(white, v);
  await pass(white, [black, white]);
  await pass(black, [black, white]);
  await black.getByTestId('score-preview').waitFor();
  assert.equal(await black.getByTestId('toggled-stone').count(), 0, 'nothing toggled yet');
  // White marks black's stone dead: black's board rings it; white's own does not.
  v = await version(black);
  await white.locator('[data-testid="baduk-point"][data-x="4"][data-y="4"]').click();
  await versionAbove(black, v);
  await versionAbove(white, v);
  assert.equal(await black.getByTestId('toggled-stone').count(), 1, 'the group the opponent toggled stands out');
  assert.equal(await white.getByTestId('toggled-stone').count(), 0, 'not one’s own toggle');
  await axe(black, 'the scoring phase');
  v = await version(black);
  await white.locator('[data-testid="baduk-point"][data-x="4"][data-y="4"]').click();
  await versionAbove(black, v);
  v = await version(white);
  await white.getByTestId('agree-score').click();
  await versionAbove(black, v);
  v = await version(black);
  await black.getByTestId('agree-score').click();
  await statusIs(black, 'finished');
  await black.getByTestId('result').waitFor();
  await axe(black, 'the result screen');
});

test('초읽기: big numbers, a red border and the count said in Korean to the player on turn', async () => {
  const said = () => window.__said;
  const black = await browser.player(PHONE);
  const white = await browser.player(DESKTOP);
  for (const p of [black, white]) {
    // Records what the page asks the browser to say (the Web Speech API is real; this only listens).
    await p.addInitScript(() => {
      window.__said = [];
      const speak = window.speechSynthesis?.speak?.bind(window.speechSynthesis);
      if (speak) window.speechSynthesis.speak = (u) => { window.__said.push(u.text); speak(u); };
    });
  }
  const link = await createRoom(black, server.base, {
    game: 'baduk', name: '흑', options: { boardSize: 9, colorAssignment: 'hostBlack', 'timeControl.mainSec': 0, 'timeControl.periodSec': 10, 'timeControl.periods': 5 },
  });
  await joinRoom(white, link, '백');
  await startGame(black);
  await statusIs(white, 'playing');
  // No main time: black is in 초읽기 from the first move, with ten seconds a period.
  for (const p of [black, white]) {
    const count = p.getByTestId('byoyomi-count');
    await count.waitFor();
    const secs = Number(await count.getAttribute('data-seconds'));
    assert.ok(secs >= 1 && secs <= 10, `${secs}`);
    assert.match(await count.innerText(), /흑 초읽기/);
    assert.equal(await p.evaluate(() => document.body.classList.contains('byoyomi-alert')), true, 'the border turns red');
  }
  await black.waitForFunction(() => window.__said.length > 0);
  const heard = await black.evaluate(said);
  for (const word of heard) assert.ok(['열', '아홉', '여덟', '일곱', '여섯', '다섯', '넷', '셋', '둘', '하나'].includes(word), word);
  assert.deepEqual(await white.evaluate(said), [], 'only the player on turn hears the count');
  await shots(black, 'baduk-byoyomi');
  // Sound off: the count is shown but not said.
  await black.getByTestId('sound-toggle').click();
  const before = (await black.evaluate(said)).length;
  const v = await version(black);
  await black.locator('[data-testid="baduk-point"][data-x="2"][data-y="2"]').click();
  await versionAbove(white, v);
  await white.getByTestId('byoyomi-count').locator('text=백 초읽기').waitFor();
  await white.waitForFunction(() => window.__said.length > 0);
  assert.equal((await black.evaluate(said)).length, before, 'nothing said with the sound off');
});

test('19줄: the preview step shows a magnifier around the chosen point', async () => {
  const black = await browser.player(PHONE);
  const white = await browser.player(PHONE);
  const link = await createRoom(black, server.base, { game: 'baduk', name: '흑', options: { boardSize: 19, colorAssignment: 'hostBlack' } });
  await joinRoom(white, link, '백');
  await startGame(black);
  await statusIs(black, 'playing');
  assert.equal(await black.getByTestId('magnifier').count(), 0);
  // Both pages on the same version first: a newer view clears a preview (the screen's rule).
  await statusIs(white, 'playing');
  await versionAbove(black, (await version(white)) - 1);
  await black.locator('[data-testid="baduk-point"][data-x="15"][data-y="3"]').click();
  const lens = black.getByTestId('magnifier');
  await lens.waitFor();
  assert.equal(await lens.getAttribute('aria-label'), 'Q16 둘레 확대');
  assert.equal(await lens.locator('.stone.preview').count(), 1);
  await axe(black, 'the 19줄 board with the magnifier');
  await shots(black, 'baduk19-magnifier');
});
