//! The contract between the request path and the database.
//!
//! A store keeps one record per room: the encoded room (opaque bytes), its version, a few
//! attributes the store itself needs (the due time for the sweeper, the expiry for TTL), and
//! at most one kept plan (a computer player's searched move for the stored version, opaque). Every
//! write but `create` is conditional on the version the writer loaded: that single condition is
//! what makes concurrent requests safe without locks or transactions.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use madang_core::Millis;
use madang_core::room::RoomId;

/// One room as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    /// Room id.
    pub id: String,
    /// The room's version; `save_if_version` writes only over the version it was given.
    pub version: u64,
    /// The compactly encoded room. Opaque to the store.
    pub body: Vec<u8>,
    /// When the room's next timeout fires (`None`: nothing to sweep).
    pub due: Option<Millis>,
    /// When the store may forget the room (epoch ms). Reads treat an expired room as gone.
    pub expires_at: Millis,
    /// When each player was last seen (player id → epoch ms). Filled by `load`; written whole
    /// only by `create`, and one entry at a time by `touch` and by [`StoredRoom::seen`], so
    /// polling costs no versioned write.
    pub presence: BTreeMap<String, Millis>,
    /// One presence entry `save_if_version` sets in the same write: the player whose request
    /// made this change, seen at its time. A request that both changes the room and owes a
    /// presence write (one every 15 s a player) then writes once, not a save and a `touch`
    /// (on DynamoDB two write units instead of one: most 바둑 moves owed both). Unlike `touch`,
    /// the entry is set, not moved forward only: a touch of the same player that landed
    /// between this save's load and its write is at most that long newer. Never one of
    /// [`StoredRoom::departed`]. `None` from `load`; ignored by `create`.
    pub seen: Option<(String, Millis)>,
    /// Presence entries `save_if_version` must drop in the same write: players in the loaded
    /// presence whom the saved room no longer seats (they left or were kicked), which keeps
    /// presence bounded by the seats. The service knows who is seated, so the store never decodes
    /// the body for it. Empty from `load`; ignored by `create`.
    pub departed: Vec<String>,
    /// What the store's due index held when the room was loaded. Stores that index lazily (to
    /// keep index writes rare) use it to decide whether the index must move; others ignore it.
    pub indexed_due: Option<Millis>,
    /// The computer player's move kept with this version of the room ([`RoomStore::keep_plan`]),
    /// opaque to the store: filled by `load` (and `peek`, and the rooms `wait_for_change` and a
    /// conflict hand back); ignored by `create` and `save_if_version`, which drop any plan kept
    /// (a new version makes it stale).
    pub plan: Option<Vec<u8>>,
}

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No such room (or it expired).
    #[error("room not found")]
    NotFound,
    /// `create` found a room with this id.
    #[error("room already exists")]
    AlreadyExists,
    /// The room changed since it was loaded. `current` is the room as it is now, when the store
    /// got it for free with the failed write.
    #[error("room version changed")]
    VersionConflict {
        /// The room as stored now, if known.
        current: Option<Box<StoredRoom>>,
    },
    /// The database could not be reached or refused for a retryable reason (503). A write that
    /// failed this way may still have landed.
    #[error("store unavailable")]
    Unavailable(#[source] BoxError),
    /// Stored data that cannot be read back.
    #[error("stored data is corrupt")]
    Corrupt(#[source] BoxError),
}

/// The cause of a store failure, kept whole (its own sources included) for the logs.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where rooms live. Implementations: [`crate::EmbeddedStore`] (local), [`crate::DynamoStore`]
/// (production). All of them pass the suite in `contract`.
///
/// Storage only: who watches a room live is told by the service's announcer after a save lands
/// (`madang_functions::announce`), never by the store. Both stores keep the rooms' chat too,
/// beside the room records ([`crate::ChatStore`], a trait of its own).
pub trait RoomStore: Send + Sync + 'static {
    /// Stores a new room; fails with `AlreadyExists` if the id is taken.
    fn create(&self, room: &StoredRoom) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The room as last saved (strongly consistent). Expired rooms are `NotFound`.
    fn load(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> impl Future<Output = Result<StoredRoom, StoreError>> + Send;

    /// Replaces the room if its stored version is still `expected`; otherwise `VersionConflict`.
    /// Presence is left as stored, except that the entries named in [`StoredRoom::departed`] go
    /// and the one of [`StoredRoom::seen`] is set, in the same write (a departed entry that is
    /// not there is no error).
    fn save_if_version(
        &self,
        room: &StoredRoom,
        expected: u64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Keeps `plan` (opaque bytes: a computer player's searched move) with the room, if its
    /// stored version is still `expected`; otherwise `VersionConflict` (`current: None`), and
    /// `NotFound` when the room is gone. Neither the version, the body, the due index nor
    /// presence changes: the plan is read back by `load` until the room's next save drops it.
    fn keep_plan(
        &self,
        id: &RoomId,
        expected: u64,
        plan: &[u8],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Ids of rooms whose due time is at or before `now`, earliest first, at most `limit`.
    fn due_rooms(
        &self,
        now: Millis,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<RoomId>, StoreError>> + Send;

    /// Moves a room's due time without a new version (the sweeper found nothing to fire yet),
    /// if the room is still at `expected`.
    fn reindex(
        &self,
        id: &RoomId,
        expected: u64,
        due: Option<Millis>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Waits until the room's version is greater than `after` and returns it, or returns `None`
    /// once `timeout` has passed without a change.
    fn wait_for_change(
        &self,
        id: &RoomId,
        after: u64,
        timeout: Duration,
    ) -> impl Future<Output = Result<Option<StoredRoom>, StoreError>> + Send;

    /// Records that `player` was seen at `now`, without touching the version. Never moves an
    /// entry back: a `now` older than the stored one changes nothing (and is not an error).
    /// A missing room is `NotFound`.
    fn touch(
        &self,
        id: &RoomId,
        player: &str,
        now: Millis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The review of room `id`'s finished 바둑 game as kept ([`KeptReview`]), or `None` when
    /// nobody has asked for it yet (or it expired with the room, `expires_at` ≤ `now`).
    fn load_review(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> impl Future<Output = Result<Option<KeptReview>, StoreError>> + Send;

    /// Claims the computation of room `id`'s review at `now`: `true` when this caller is the
    /// one to compute it (nothing kept, or a claim older than [`REVIEW_CLAIM_STALE_MS`] whose
    /// computation never finished), `false` when the review is kept or another claim is fresh.
    /// A conditional write, so of concurrent claims exactly one wins. The record expires with
    /// the room (`expires_at`).
    fn claim_review(
        &self,
        id: &RoomId,
        now: Millis,
        expires_at: Millis,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Keeps room `id`'s computed review, `review` (its JSON text), until `expires_at`.
    fn save_review(
        &self,
        id: &RoomId,
        review: &str,
        expires_at: Millis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The room as last saved, or a moment older: the cheapest read the store has (DynamoDB: an
    /// eventually consistent read, half a unit). For answers that may be a little stale, such as
    /// a short poll's 304. Stores whose reads cost nothing keep this default, [`Self::load`].
    fn peek(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> impl Future<Output = Result<StoredRoom, StoreError>> + Send {
        self.load(id, now)
    }

    /// Test support (`MADANG_DEV=1`): how far the dev clock has been advanced, as shared by every
    /// process on this store, or `None` when the store keeps no shared clock (then each process
    /// keeps its own offset in memory, which is right for a single process). Only with the `dev`
    /// feature: a release build has no dev clock.
    #[cfg(feature = "dev")]
    fn clock_offset(&self) -> impl Future<Output = Result<Option<Millis>, StoreError>> + Send {
        async { Ok(None) }
    }

    /// Test support (`MADANG_DEV=1`): advances the shared dev clock by `ms` and returns the new
    /// offset, or `None` when the store keeps no shared clock. Only with the `dev` feature.
    #[cfg(feature = "dev")]
    fn advance_clock(
        &self,
        ms: Millis,
    ) -> impl Future<Output = Result<Option<Millis>, StoreError>> + Send {
        let _ = ms;
        async { Ok(None) }
    }
}

/// A claim on a review older than this (2 minutes) is taken for dead: its computation never
/// finished, and the next request may claim it again ([`RoomStore::claim_review`]).
pub const REVIEW_CLAIM_STALE_MS: Millis = 120_000;

/// A room's review as the store keeps it ([`RoomStore::load_review`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeptReview {
    /// Claimed at `since` and being computed (or its computation died; see
    /// [`REVIEW_CLAIM_STALE_MS`]).
    Computing {
        /// When it was claimed.
        since: Millis,
    },
    /// Computed: its JSON text.
    Done(String),
}
