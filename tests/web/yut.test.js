// A 4-player 윷놀이 team game under the rules page's preset, played through the UI only by four
// browser contexts, with a spectator watching; screenshots of the lobby, the board mid-game and
// the result.
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
  while ((await host.getByTestId('room-status').getAttribute('data-status')) !== 'finished') {
    assert.ok(actions < 1500, 'the game ends');
    let acted = false;
    for (const page of pages) {
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
  // The commitment shown since the lobby is the one the result's reveal hashes to.
  const commitment = await host.getByTestId('rng-commitment').getAttribute('title');
  assert.match(commitment, /^[0-9a-f]{64}$/);
  await host.locator('[data-testid="rng-verdict"][data-ok="true"]').waitFor();
  assert.match(await host.getByTestId('rng-reveal').textContent(), new RegExp(commitment));
  await shots(guests[0], 'yut-result');
  for (const page of [...pages, spectator]) assert.deepEqual(page.errors, [], 'no page errors');
});
