//! Group commit: every save goes through one writer thread, which commits all the saves that
//! queued while its last commit ran in one transaction.
//!
//! Why: an action's durable commit was about a third of its server CPU on the local server — the
//! WAL index's `fcntl` locks to begin, the WAL frames written at the end — and each commit paid
//! it whole. In one transaction those costs are paid once for the batch, and a page holding two
//! saved rooms is written once (BENCHMARKS.md, "The action path, profiled": 16 saves a commit ran
//! 26 % more actions, 2 gained nothing). So batches must be large under load, which a leader
//! taking turns on the two request threads cannot make (it batches at most the other thread's
//! save); a thread of its own can: while it commits, every request in flight queues its save.
//! Under no load a batch is one save, and the cost is a hand-off between threads.
//!
//! Creates go the same way (an insert refused when the id is taken): under the default
//! `synchronous=FULL` every commit waits for an `fsync`, and a create committed on its own paid
//! one each, on the request's worker thread (BENCHMARKS.md, "Durability: synchronous=FULL under
//! group commit").
//!
//! What does not change:
//! - Each `UPDATE` is still conditional on its version. Two saves of one room in a batch act as
//!   they would one after the other: the second finds the version moved and changes nothing (a
//!   conflict for its caller).
//! - An answer is sent only after the `COMMIT` returned: nothing answered can be lost (with
//!   the default `synchronous=FULL`, not even to a power cut: the batch's one `fsync` is part of
//!   its `COMMIT`; see [`super::Durability`]).
//! - If any statement or the `COMMIT` fails, the whole batch rolls back and every save in it is
//!   told the store is unavailable (503, retried; the exactly-once keys make the retry safe).
//!   None of them landed.
//! - The cache is updated under the writer lock right after the commit, in commit order.

use std::sync::Arc;

use madang_core::Millis;
use rusqlite::{Connection, params};
use tokio::sync::{mpsc, oneshot};

use super::{Shared, int, update_row};
use crate::embedded::purge::purge_after;
use crate::store::{StoreError, StoredRoom};

/// The most saves one transaction takes. A bound, not a target: a batch is what queued.
pub const BATCH_MAX: usize = 256;

/// How many saves may wait for the writer. A save that finds the queue full waits (without
/// holding its worker thread) until there is room, so memory stays bounded however many
/// connections the server admits.
const QUEUE: usize = 1024;

/// One save waiting for the writer: the room, the version it must replace, and where its result
/// goes (`Ok(true)` written, `Ok(false)` the version had moved on — or, for a create, the id is
/// taken).
pub(super) struct Save {
    pub room: StoredRoom,
    /// The version it must replace; `None`: a new room.
    pub expected: Option<u64>,
    pub done: oneshot::Sender<Result<bool, StoreError>>,
}

/// The sending side, held by the store; dropping it stops the thread.
#[derive(Debug, Clone)]
pub(super) struct Writer(mpsc::Sender<Save>);

impl Writer {
    /// Starts the writer thread over the store's shared writer connection.
    pub fn start(shared: Arc<Shared>) -> std::io::Result<Self> {
        let (send, mut receive) = mpsc::channel(QUEUE);
        std::thread::Builder::new()
            .name("madang-writer".into())
            .spawn(move || run(&shared, &mut receive))?;
        Ok(Writer(send))
    }

    /// Queues `save` (waiting for room when the queue is full); its result comes on its
    /// `done`.
    pub async fn submit(&self, save: Save) -> Result<(), StoreError> {
        self.0.send(save).await.map_err(|_| stopped())
    }
}

pub(super) fn stopped() -> StoreError {
    StoreError::Unavailable("the store's writer has stopped".into())
}

/// The thread: one batch after another, until the store is dropped.
fn run(shared: &Shared, receive: &mut mpsc::Receiver<Save>) {
    while let Some(first) = receive.blocking_recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH_MAX {
            match receive.try_recv() {
                Ok(save) => batch.push(save),
                Err(_) => break,
            }
        }
        commit(shared, batch);
    }
}

/// Writes `batch` in one transaction and answers every save in it.
fn commit(shared: &Shared, mut batch: Vec<Save>) {
    let mut conn = shared.conn();
    let outcome = write(shared, &mut conn, &batch);
    let written = match outcome {
        Ok(written) => written,
        Err(e) => {
            let why = e.to_string();
            drop(conn);
            for save in batch {
                let _ = save.done.send(Err(StoreError::Unavailable(
                    format!("the batch's transaction failed: {why}").into(),
                )));
            }
            return;
        }
    };
    // Committed: the cache follows, in commit order, before the lock goes.
    {
        let mut cache = shared.cache();
        for (save, &landed) in batch.iter_mut().zip(&written) {
            if landed && save.expected.is_none() {
                // Never cached before it exists; a stale miss of this id is impossible.
                let mut created = save.room.clone();
                created.indexed_due = created.due;
                created.plan = None;
                cache.insert(created);
            } else if landed {
                let room = &mut save.room;
                let seen = seen_of(room).map(|(player, at)| (player.to_owned(), at));
                cache.update(&room.id, |cached| {
                    cached.version = room.version;
                    // The save is done with its body: the cache takes it.
                    cached.body = std::mem::take(&mut room.body);
                    cached.due = room.due;
                    cached.indexed_due = room.due;
                    cached.expires_at = room.expires_at;
                    // A new version: the plan kept for the old one went with the write.
                    cached.plan = None;
                    for player in &room.departed {
                        cached.presence.remove(player);
                    }
                    if let Some((player, at)) = seen {
                        let entry = cached.presence.entry(player).or_insert(at);
                        *entry = (*entry).max(at);
                    }
                });
            }
        }
    }
    drop(conn);
    for (save, landed) in batch.into_iter().zip(written) {
        // A caller that went away (its request dropped) no longer needs the answer; the save
        // stands, as a save whose answer was lost does.
        let _ = save.done.send(Ok(landed));
    }
}

/// The transaction: each save's conditional `UPDATE` (and the presence it drops), then one
/// `COMMIT`. Which saves landed, in order; on any error nothing did (the transaction rolls back
/// when dropped).
fn write(shared: &Shared, conn: &mut Connection, batch: &[Save]) -> rusqlite::Result<Vec<bool>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let mut written = Vec::with_capacity(batch.len());
    // The expiry each room has in the file as this transaction goes: the cache's (current under
    // the writer lock) until a save of the batch moves it.
    let mut stored_expiry: Vec<(&str, Millis)> = Vec::new();
    for save in batch {
        let room = &save.room;
        let before = stored_expiry
            .iter()
            .rev()
            .find(|(id, _)| *id == room.id)
            .map(|&(_, at)| at)
            .or_else(|| shared.cache().expires_at(&room.id));
        // `purge_after` is indexed, so it is set only when its grain changes (a miss writes it
        // to be safe).
        let grain_moves =
            before.is_none_or(|stored| purge_after(stored) != purge_after(room.expires_at));
        let landed = match save.expected {
            Some(expected) => update_row(&tx, room, expected, grain_moves).map_err(into_sqlite)?,
            None => insert_row(&tx, room)?,
        } == 1;
        if landed && save.expected.is_none() {
            for (player, seen) in &room.presence {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO presence (room, player, seen) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![room.id, player, int(*seen)])?;
            }
            stored_expiry.push((&room.id, room.expires_at));
        } else if landed {
            for player in &room.departed {
                tx.prepare_cached("DELETE FROM presence WHERE room = ?1 AND player = ?2")?
                    .execute(params![room.id, player])?;
            }
            if let Some((player, at)) = seen_of(room) {
                // Forward only, as a touch: SQLite can, in the same statement.
                tx.prepare_cached(
                    "INSERT INTO presence (room, player, seen) VALUES (?1, ?2, ?3)
                     ON CONFLICT (room, player) DO UPDATE SET seen = max(seen, excluded.seen)",
                )?
                .execute(params![room.id, player, int(at)])?;
            }
            stored_expiry.push((&room.id, room.expires_at));
        }
        written.push(landed);
    }
    tx.commit()?;
    Ok(written)
}

/// The presence entry a save sets ([`StoredRoom::seen`]), unless that player departed in it.
fn seen_of(room: &StoredRoom) -> Option<(&str, Millis)> {
    room.seen
        .as_ref()
        .filter(|(player, _)| !room.departed.contains(player))
        .map(|(player, at)| (player.as_str(), *at))
}

/// The insert of a create: how many rows it added (0 when the id is taken).
fn insert_row(tx: &Connection, room: &StoredRoom) -> rusqlite::Result<usize> {
    tx.prepare_cached(
        "INSERT INTO rooms (id, version, body, due, expires_at, purge_after)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (id) DO NOTHING",
    )?
    .execute(params![
        room.id,
        int(room.version),
        room.body,
        room.due.map(int),
        int(room.expires_at),
        int(purge_after(room.expires_at))
    ])
}

/// `update_row` reports store errors; inside the transaction only SQLite's own can occur.
fn into_sqlite(e: StoreError) -> rusqlite::Error {
    match e {
        StoreError::Unavailable(inner) => match inner.downcast::<rusqlite::Error>() {
            Ok(sqlite) => *sqlite,
            Err(other) => rusqlite::Error::ToSqlConversionFailure(other),
        },
        other => rusqlite::Error::ToSqlConversionFailure(Box::new(other)),
    }
}
