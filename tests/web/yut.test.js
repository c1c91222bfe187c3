// A 4-player 윷놀이 team game under the rules page's preset, played through the UI only by four
// browser contexts, with a spectator watching and a teammate's recommendation; screenshots of the
// lobby, the board mid-game, a recommendation and the result. And a game whose player on turn
// does nothing: the turn timer runs out on the server's dev clock and both pages show it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DESKTOP, PHONE, createRoom, shot, joinRoom, launch, shots, startServer, statusIs, version, versionAbove,
} from './harness.js';

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

/** Moves on which the page showed `state.hint` (each checked to be one of the legal moves). */
let hintsSeen = 0;

/** Whether `page` is on turn and must pick a move (its destinations are shown). */
async function picking(page) {
  const throwButton = page.getByTestId('throw');
  if ((await throwButton.count()) && (await throwButton.isEnabled())) return false;
  return (await page.getByTestId('yut-dest').count()) > 0;
}

/**
 * The rules page's 팀전: `mate` (on the team on turn, not on turn) sees the same destinations as
 * the player on turn and taps one; the player on turn (`mover`) sees "추천: name" where it stops,
 * in the list and on the ringed destination; the recommender's team sees it, nobody outside the
 * team does, and nothing moved. Then the player on turn plays it with [이대로 이동].
 */
async function recommendAndFollow(mover, mate, mateName, outsiders) {
  const v = await version(mover);
  if (v > (await version(mate))) await versionAbove(mate, v - 1);
  await mate.getByTestId('yut-recommend').first().waitFor();
  assert.deepEqual(
    await mate.getByTestId('yut-recommend').evaluateAll((els) => els.map((e) => e.dataset.node).sort()),
    await mover.getByTestId('yut-dest').evaluateAll((els) => els.map((e) => e.dataset.node).sort()),
    'the teammate chooses among the moves of the player on turn',
  );
  const chips = mate.getByTestId('yut-chip');
  if ((await chips.count()) > 1) {
    await chips.first().click();
    assert.equal(await chips.first().getAttribute('aria-pressed'), 'true', 'the teammate picked a result');
  }
  const target = mate.getByTestId('yut-recommend').first();
  const to = await target.getAttribute('data-node');
  await target.click();
  const choice = mate.getByTestId('yut-recommend-choice');
  if (await choice.count()) await choice.first().click();
  await versionAbove(mover, v);
  const rec = mover.getByTestId('yut-recommendation');
  await rec.waitFor();
  assert.equal(await rec.count(), 1);
  assert.match(await rec.innerText(), new RegExp(`추천: ${mateName}`));
  assert.equal(await rec.getAttribute('data-node'), to, 'recommended where the teammate tapped');
  if (to !== 'goal' && to !== 'home') {
    const mark = mover.locator(`[data-testid="yut-recommendation-mark"][data-node="${to}"]`);
    assert.match(await mark.textContent(), new RegExp(`추천: ${mateName}`), 'marked on the board where it stops');
    assert.equal(await mover.locator(`[data-testid="yut-dest"][data-node="${to}"].recommended`).count(), 1,
      'the recommended destination stands out among the choices');
  }
  await mate.getByTestId('yut-recommendation').waitFor();
  for (const page of outsiders) {
    await versionAbove(page, v);
    assert.equal(await page.getByTestId('yut-recommendation').count(), 0, 'not shown outside the team');
    assert.equal(await page.getByTestId('yut-recommendation-mark').count(), 0, 'not on their board either');
    assert.equal(await page.getByTestId('yut-recommend').count(), 0, 'they cannot recommend');
  }
  await shots(mover, 'yut-recommendation');
  await shots(mate, 'yut-recommending');
  const before = await version(mover);
  await mover.getByTestId('yut-follow').click();
  await versionAbove(mover, before);
  assert.equal(await mover.getByTestId('yut-recommendation').count(), 0, 'used up with the move');
}

/** Plays one action on `page` if it is that player's turn; returns whether it did. */
async function playIfMyTurn(page) {
  const throwButton = page.getByTestId('throw');
  const before = await version(page);
  if ((await throwButton.count()) && (await throwButton.isEnabled())) {
    await throwButton.click();
  } else {
    const dests = page.getByTestId('yut-dest');
    if ((await dests.count()) === 0) return false;
    const hint = page.getByTestId('yut-hint');
    if (await hint.count()) {
      const node = await hint.getAttribute('data-node');
      const legal = await dests.evaluateAll((els) => els.map((e) => e.dataset.node));
      assert.ok(legal.includes(node), `the hint (${node}) is a legal destination (${legal})`);
      hintsSeen++;
    }
    await dests.first().click();
    const choice = page.getByTestId('yut-choice');
    if (await choice.count()) await choice.first().click();
  }
  try {
    await versionAbove(page, before);
  } catch (e) {
    await shot(page, 'yut-stuck');
    throw new Error(`no new version after acting (toast: ${await page.locator('#toast').innerText()})`, { cause: e });
  }
  return true;
}

test('a 4-player team 윷놀이 game under the rules-page preset, through the UI', async () => {
  const [host, ...guests] = await Promise.all([
    browser.player(PHONE), browser.player(DESKTOP), browser.player(PHONE), browser.player(PHONE),
  ]);
  const pages = [host, ...guests];
  await host.goto(`${server.base}/`);
  await host.getByTestId('option-mode').waitFor();
  await shots(host, 'lobby');
  const link = await createRoom(host, server.base, {
    game: 'yut', name: '청1', seed: 7, preset: 'rulesPage', options: { mode: 'team', hints: true },
  });
  assert.match(link, /\/r\/[\w-]+$/);
  const names = ['홍1', '청2', '홍2'];
  for (const [i, page] of guests.entries()) await joinRoom(page, link, names[i]);
  // A spectator opens the link without joining.
  const spectator = await browser.player(PHONE);
  await spectator.goto(link);
  await spectator.getByTestId('join-room').waitFor();
  await host.locator('[data-testid="seat"]').nth(3).waitFor();
  await host.getByTestId('start-game').click();
  for (const page of [...pages, spectator]) await statusIs(page, 'playing');
  assert.equal(await spectator.getByTestId('throw').count(), 0, 'no buttons for spectators');

  let actions = 0;
  let shot = false;
  let recommended = 0;
  const everyone = ['청1', ...names];
  while ((await host.getByTestId('room-status').getAttribute('data-status')) !== 'finished') {
    assert.ok(actions < 1500, 'the game ends');
    let acted = false;
    for (const [i, page] of pages.entries()) {
      // Twice in the game, once the board has pieces: the teammate recommends, the mover follows.
      if (recommended < 2 && actions >= 8 * (recommended + 1) && (await picking(page))) {
        const outsiders = [pages[(i + 1) % 4], pages[(i + 3) % 4], spectator];
        await recommendAndFollow(page, pages[(i + 2) % 4], everyone[(i + 2) % 4], outsiders);
        recommended++;
        acted = true;
        actions++;
        break;
      }
      if (await playIfMyTurn(page)) {
        acted = true;
        actions++;
        break;
      }
    }
    if (!shot && actions >= 24 && (await host.getByTestId('yut-dest').count()) > 0) {
      await shots(host, 'yut-midgame');
      shot = true;
    }
    if (!acted) {
      // The next player's page is still waiting for its long-poll: wait for any newer version.
      const v = Math.max(...(await Promise.all(pages.map(version))));
      await Promise.any(pages.map((p) => versionAbove(p, v - 1, 5000))).catch(() => {});
    }
  }
  for (const page of [...pages, spectator]) {
    await statusIs(page, 'finished');
    await page.getByTestId('result').waitFor();
  }
  const summary = await host.getByTestId('result').innerText();
  assert.match(summary, /승리/);
  assert.ok(hintsSeen > 0, 'with hints on, the board showed the hint');
  assert.equal(recommended, 2, 'two recommendations were made and followed');
  // The commitment shown since the lobby is the one the result's reveal hashes to.
  const commitment = await host.getByTestId('rng-commitment').getAttribute('title');
  assert.match(commitment, /^[0-9a-f]{64}$/);
  await host.locator('[data-testid="rng-verdict"][data-ok="true"]').waitFor();
  assert.match(await host.getByTestId('rng-reveal').textContent(), new RegExp(commitment));
  await shots(guests[0], 'yut-result');
  for (const page of [...pages, spectator]) assert.deepEqual(page.errors, [], 'no page errors');
});

/** Whether `page`'s player is on turn (throwing or picking a move). */
async function onTurn(page) {
  return (await page.getByTestId('turn').innerText()).startsWith('내 차례');
}

test('윷놀이 timeouts fire on the server clock and both pages show them: auto throw and move, away, auto play, 직접 하기', async () => {
  const a = await browser.player(PHONE);
  const b = await browser.player(DESKTOP);
  // The rules page: 20 s per throw or move, auto play after 3 idle turns.
  const link = await createRoom(a, server.base, { game: 'yut', name: '가', seed: 11, preset: 'rulesPage' });
  await joinRoom(b, link, '나');
  await a.getByTestId('start-game').click();
  for (const p of [a, b]) await statusIs(p, 'playing');
  for (const p of [a, b]) await p.getByTestId('turn').waitFor();
  // The first player is drawn; they are the one who does nothing.
  const [idler, other] = (await onTurn(a)) ? [a, b] : [b, a];
  assert.match(await idler.getByTestId('timer').innerText(), /남은 시간 0:(1\d|2[01])/);
  assert.equal(await other.getByTestId('last-throw').count(), 0, 'nothing thrown yet');

  /** Moves the server clock past the turn timer and waits until both pages show what fired. */
  const timeOut = async () => {
    const v = Math.max(await version(a), await version(b));
    await server.advanceClock(21_000);
    for (const p of [a, b]) await versionAbove(p, v);
  };
  await timeOut();
  // The sticks were thrown for the idler: both pages show the throw, nobody reloaded.
  for (const p of [a, b]) await p.getByTestId('last-throw').waitFor();
  // The countdowns follow the server's clock, which the test moved on: the next deadline is at
  // most 20 s away on both pages, not 20 s plus the jump.
  for (const p of [a, b]) {
    assert.match(await p.getByTestId('timer').innerText(), /남은 시간 0:(0\d|1\d|20)/);
  }

  let awaySeen = false;
  let steps = 0;
  while ((await other.getByTestId('auto-badge').count()) === 0) {
    assert.ok(steps++ < 300, 'the idle seat switches to auto play');
    if (await other.getByTestId('away-badge').count()) awaySeen = true;
    if (await onTurn(idler)) {
      await timeOut();
    } else if (!(await playIfMyTurn(other))) {
      const v = Math.max(await version(a), await version(b));
      await Promise.any([a, b].map((p) => versionAbove(p, v - 1, 5000))).catch(() => {});
    }
  }
  assert.ok(awaySeen, 'three timeouts in a row: 자리 비움 shown to the other player');
  // Auto play: both pages say so, and only the idler gets [직접 하기].
  await idler.getByTestId('auto-badge').waitFor();
  await shots(other, 'yut-timeout');
  assert.equal(await other.getByTestId('take-control').count(), 0);
  const v = await version(idler);
  await idler.getByTestId('take-control').click();
  for (const p of [a, b]) {
    await versionAbove(p, v);
    await p.waitForFunction(() => !document.querySelector('[data-testid="auto-badge"]'));
  }
  for (const p of [a, b]) assert.deepEqual(p.errors, [], 'no page errors');
});
