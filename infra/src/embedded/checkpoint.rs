//! The embedded store's WAL checkpoints (module docs of [`super`]: why they run on a thread of
//! their own, and how a busy WAL is made to start over), and the background thread that runs
//! them and the periodic purge ([`super::purge`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use madang_core::Millis;
use rusqlite::Connection;

use super::Shared;
use super::purge::{PURGE_BATCH, PURGE_EVERY};

/// How often the background thread runs a PASSIVE checkpoint. At the local server's top speed
/// (about 10,000 actions a second, one 4 KiB frame each) the WAL grows by 4 MiB in this time.
const WAL_CHECK_EVERY: Duration = Duration::from_millis(100);

/// Past this many frames (about 16 MiB of 4 KiB pages) the WAL is made to start over. Each
/// start-over holds the writer lock for one short checkpoint, most of it the `fsync`s: at
/// 10,000 actions a second that was a median 3.0 ms (at most 4.6 ms), about twice a second,
/// logged at debug as "WAL starts over".
const WAL_RESET_FRAMES: i64 = 4_000;

/// The unlocked catch-up stops once at most this many frames are left for the locked step.
const WAL_TAIL_FRAMES: i64 = 64;

/// Unlocked catch-up rounds before the locked step, at most.
const WAL_CATCH_UP_ROUNDS: usize = 8;

/// What the WAL file is trimmed to when it starts over after a spike. Above the usual high-water
/// mark ([`WAL_RESET_FRAMES`] plus a check's worth of writes), so that a WAL that starts over is
/// reused in place instead of truncated and grown again under the writer lock.
pub(super) const WAL_SIZE_LIMIT: u64 = 32 * 1024 * 1024;

/// The safety net: past this file size (a long reader kept the WAL from starting over) the WAL
/// is emptied by a TRUNCATE checkpoint under the writer lock, which stalls writes for its length.
pub const WAL_TRUNCATE_AT: u64 = 48 * 1024 * 1024;

/// What `PRAGMA wal_checkpoint` reports: frames in the WAL, and how many of them are copied back.
fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<(i64, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
        Ok((r.get(1)?, r.get(2)?))
    })
}

/// One round of checkpointing (see the module docs): PASSIVE without the writer lock, and once
/// the WAL holds more than [`WAL_RESET_FRAMES`], the short tail under it so the WAL starts over.
fn checkpoint_round(
    shared: &Shared,
    checkpointer: &Connection,
    wal: &Path,
) -> rusqlite::Result<()> {
    if std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0) > WAL_TRUNCATE_AT {
        // The safety net (a reader kept the WAL from starting over): empty it outright.
        let conn = shared.conn();
        return conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    }
    let (mut frames, mut copied) = checkpoint(checkpointer, "PASSIVE")?;
    if frames < WAL_RESET_FRAMES {
        return Ok(());
    }
    // Catch up with the writer without stopping it, so what is left for the locked step is
    // what a few milliseconds of writes add.
    for _ in 0..WAL_CATCH_UP_ROUNDS {
        if frames - copied <= WAL_TAIL_FRAMES {
            break;
        }
        (frames, copied) = checkpoint(checkpointer, "PASSIVE")?;
    }
    // Under the writer lock the checkpoint copies the last frames and completes; the next write
    // then starts the WAL over from its beginning (and trims the file to `journal_size_limit`).
    // Every request that writes waits for this, so its length is logged.
    let writer = shared.conn();
    let locked = Instant::now();
    let (tail, _) = checkpoint(checkpointer, "PASSIVE")?;
    drop(writer);
    tracing::debug!(
        frames = tail,
        held_us = locked.elapsed().as_micros() as u64,
        "WAL starts over"
    );
    Ok(())
}

fn system_now() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// The background thread: checkpoints and the periodic purge of expired rooms.
pub(super) fn background(
    shared: Arc<Shared>,
    checkpointer: Connection,
    wal: PathBuf,
    stop: Arc<AtomicBool>,
) {
    let mut last_purge = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(WAL_CHECK_EVERY);
        if let Err(e) = checkpoint_round(&shared, &checkpointer, &wal) {
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
        if last_purge.elapsed() >= PURGE_EVERY {
            last_purge = Instant::now();
            let now = system_now();
            loop {
                match shared.purge_batch(now) {
                    Ok(n) if n == PURGE_BATCH && !stop.load(Ordering::Relaxed) => continue,
                    Ok(_) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "purging expired rooms failed");
                        break;
                    }
                }
            }
        }
    }
}
