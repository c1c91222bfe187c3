// Starts the real `madang` binary on a free loopback port (MADANG_ADDR=127.0.0.1:0) with a
// fresh data directory and test support on, and finds its address in the line it prints.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The binary: $MADANG_BIN, else the debug build `cargo build --bin madang` leaves. */
export function madangBinary() {
  const bin = process.env.MADANG_BIN ?? join(repo, 'target/debug/madang');
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run \`cargo build --bin madang\` (or set MADANG_BIN)`);
  }
  return bin;
}

/** A running server: `{base, stop(), advanceClock(ms)}`. */
export async function startServer() {
  const data = mkdtempSync(join(tmpdir(), 'madang-js-'));
  const child = spawn(madangBinary(), [], {
    env: {
      ...process.env,
      MADANG_ADDR: '127.0.0.1:0',
      MADANG_DATA: data,
      MADANG_DEV: '1',
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error('madang did not start in 30 s')), 30000);
    child.once('exit', (code) => reject(new Error(`madang exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = line.match(/madang listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    });
  });
  return {
    base,
    async advanceClock(ms) {
      const r = await fetch(`${base}/dev/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: ms }),
      });
      if (!r.ok) throw new Error(`POST /dev/clock: ${r.status} ${await r.text()}`);
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode != null ? r() : child.once('exit', r)));
      rmSync(data, { recursive: true, force: true });
    },
  };
}
