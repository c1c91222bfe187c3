//! The chat store: table talk kept apart from the room record.
//!
//! Chat never touches the room: no message changes the room's version, goes through a game
//! action's conditional write, or costs a write on the room's record (so it can never make a
//! pinned action 409). A room's chat is a short log of records numbered 1, 2, 3, …; each record is
//! opaque bytes to the store (the service encodes a message together with the room's chat
//! bookkeeping, `madang_core::chat::ChatRecord`, in it).
//!
//! The log's only write is [`ChatStore::chat_append`], conditional on the number being free: the
//! writer reads the newest record ([`ChatStore::chat_latest`]), builds the next one from it and
//! appends it at the next number. Of two writers that read the same newest record exactly one
//! lands; the other gets [`StoreError::VersionConflict`] and starts over from the read. A record
//! is thus whole or absent, and numbers have no holes a reader could skip past: record `n + 1` is
//! written only after its writer read record `n`, so every strongly consistent read that sees
//! `n + 1` sees `n` too.
//!
//! Only the newest [`KEPT_RECORDS`] records of a room are kept: an append deletes the one that
//! falls out. Every record carries the expiry its writer gave it (`expires_at`: a TTL on
//! DynamoDB, which deletes it some time after; the embedded store deletes a room's chat with the
//! room) and reads return it, so the reader can tell a record that expired but is still stored
//! from a live one. The writer (`madang_functions::service::chat`) gives each record its room's
//! expiry plus a short grace, never less than the record before it: a log expires from its oldest
//! end, and a record that expired means every older one did too.

use madang_core::room::RoomId;
use std::future::Future;

use crate::store::StoreError;

/// Records kept per room (`madang_core::chat::KEPT_MESSAGES`).
pub const KEPT_RECORDS: u64 = madang_core::chat::KEPT_MESSAGES;

/// One record of a room's chat log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChat {
    /// Its number in the room; each record's is one more than the record's before it.
    pub seq: u64,
    /// The encoded record. Opaque to the store.
    pub body: Vec<u8>,
    /// When the store may delete it (epoch ms; DynamoDB keeps whole seconds, so a read returns
    /// it rounded up to the second).
    pub expires_at: madang_core::Millis,
}

/// Where chat lives. Implemented by [`crate::EmbeddedStore`] (a table in the same SQLite file)
/// and [`crate::DynamoStore`] (a table of its own); both pass the suite in `chat_contract`.
pub trait ChatStore: Send + Sync + 'static {
    /// The room's newest record, strongly consistent (`None`: nobody chatted yet).
    fn chat_latest(
        &self,
        room: &RoomId,
    ) -> impl Future<Output = Result<Option<StoredChat>, StoreError>> + Send;

    /// Stores `record` at `record.seq` if that number is still free (otherwise
    /// [`StoreError::VersionConflict`], and nothing changed), to expire at `record.expires_at`,
    /// and deletes the record [`KEPT_RECORDS`] below it.
    fn chat_append(
        &self,
        room: &RoomId,
        record: &StoredChat,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The newest `limit` records numbered above `after` (at most [`KEPT_RECORDS`] exist),
    /// oldest first, strongly consistent.
    fn chat_after(
        &self,
        room: &RoomId,
        after: u64,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<StoredChat>, StoreError>> + Send;
}
