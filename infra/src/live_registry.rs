//! Who watches a room live on AWS: API Gateway WebSocket connections, registered in the rooms
//! table next to the rooms (`docs/cost.md`, "Live channel").
//!
//! Three kinds of small items, none with a due time (so never in the sweeper's index):
//!
//! - `#live#{room}`, the room's **registry**: one attribute `c:{connectionId}` per watching
//!   connection (its player id, `""` for a spectator), `n`, how many, and `g`, how many of them
//!   spectators. A change finds the room's connections with one eventually consistent `GetItem`
//!   of it — half a read unit while the item is under 4 KB, which [`MAX_PER_ROOM`] entries keep
//!   it well under. At most [`MAX_SPECTATORS_PER_ROOM`] entries are spectators', so the players
//!   always find places.
//! - `#conn#{connectionId}`, the **connection**: the registration it holds (`r`, the room; `p`,
//!   its player, `""` for a spectator; `u`, the stamp of the hello that wrote them), its client
//!   (`k`, with `t`, the stamp of the hello that counted it), the hellos it sent (`h`), and its
//!   frames in the current window (`w`, `f`). `$disconnect` — which names only the connection —
//!   finds what to release through it; hellos and frames are counted across Lambda environments
//!   ([`DynamoStore::live_frame`]).
//! - `#client#{key}`, a **client**'s registered connections (the key is a digest of its source
//!   address): one attribute `c:{connectionId}` each (the time it was added) and `n`, how
//!   many — at most
//!   [`MAX_PER_CLIENT`], so one client cannot hold many places and turn every change into many
//!   paid posts.
//!
//! All carry the table's TTL (`x`): API Gateway closes every connection within two hours, so an
//! entry whose `$disconnect` never ran goes by itself; a post that meets `410 Gone` removes it
//! at once ([`DynamoStore::live_forget`]).
//!
//! **Every write is safe to resend.** The SDK sends a call again when its answer is lost (a 5xx,
//! a cut connection, an attempt past its timeout) — and the first send may have been applied. So:
//!
//! - each count moves with an entry of its own, in the same item and the same write: an add
//!   (`#live#`, `#client#`) is conditional on the connection's entry being absent, a removal on
//!   its being present, so a resend changes no count twice. A resent add is refused by its own
//!   first attempt's entry; a refused add therefore reads the entry (one strongly consistent
//!   `GetItem`, only on that path) and counts it, found, as done;
//! - the connection item records what a hello is about to add **before** it adds it, written
//!   with `if_not_exists` under the hello's random stamp and read back whole (`ALL_NEW`): a
//!   resend reads the same record as its first attempt, and the stamp says whether this hello
//!   wrote it (the adds are its own to make) or an earlier one did (they are made). A move to
//!   another room releases the old entry before the record names the new one. So the record
//!   names everything that may be held — and at most entries that are not, which releasing
//!   leaves alone;
//! - `$disconnect` reads the record (strongly), releases what it names, and deletes it last: a
//!   lost answer anywhere is resent harmlessly, and a forget cut short leaves a record that the
//!   next one (a `410 Gone`) or the TTL finishes.
//!
//! Why not `TransactWriteItems` with a `ClientRequestToken` (a resend within ten minutes is a
//! no-op): a transactional write costs twice the units of a plain one, hellos and disconnects
//! are the registry's every-day writes, and dynalite — the tests' DynamoDB — has no
//! transactions. Not exact under a resend: the hello and frame counters (`h`, `f`) count a
//! resent hello or frame twice, so a connection whose answers are lost meets its bounds a little
//! sooner, never later (exact counts would cost a write per frame).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use madang_core::Millis;

use crate::dynamo::capacity::Call;
use crate::dynamo::{DynamoStore, item, string, unavailable};
use crate::store::StoreError;

/// Connections one room's registry holds at most (players and spectators).
pub const MAX_PER_ROOM: u64 = 32;
/// Of [`MAX_PER_ROOM`], the most spectators' connections (no token); the rest are the players'.
pub const MAX_SPECTATORS_PER_ROOM: u64 = 8;
/// Connections one client (source address; IPv6 per /64) may have registered at once, over all
/// rooms.
pub const MAX_PER_CLIENT: u64 = 8;
/// The window frames are counted in, per connection.
pub const FRAME_WINDOW_MS: Millis = 60_000;
/// Frames one connection may send in a [`FRAME_WINDOW_MS`] window (an app sends a `hello` and a
/// `ping` as it connects, then a `ping` every 9 minutes; a connection's 16 hellos with their
/// pings fit); one more and it is closed.
pub const FRAMES_PER_WINDOW: u64 = 40;
/// How long an entry lives without being renewed: API Gateway's longest connection (2 h), and a
/// little more.
pub const ENTRY_TTL_MS: Millis = (2 * 60 + 5) * 60 * 1000;

const ROOM_PREFIX: &str = "#live#";
const CONN_PREFIX: &str = "#conn#";
const CLIENT_PREFIX: &str = "#client#";
const COUNT: &str = "n";
/// Not `s`: that name is the due index's key, of another type.
const SPECTATORS: &str = "g";
const ROOM: &str = "r";
const PLAYER: &str = "p";
const HELLOS: &str = "h";
const CLIENT: &str = "k";
const WINDOW: &str = "w";
const FRAMES: &str = "f";
/// The stamp of the hello that recorded the connection's client (`k`).
const CLIENT_STAMP: &str = "t";
/// The stamp of the hello that recorded the connection's registration (`r`, `p`).
const ENTRY_STAMP: &str = "u";

/// One connection watching a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watcher {
    /// API Gateway's connection id.
    pub connection: String,
    /// The player it belongs to; `None`: a spectator.
    pub player: Option<String>,
}

/// Why a registration (or a frame) was refused.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// Over one of the bounds: the connection's hellos or frames, the room's places (or its
    /// spectators'), the client's connections.
    #[error("over a live bound")]
    Limited,
    /// The table failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn entry_name(connection: &str) -> String {
    format!("c:{connection}")
}

fn conn_key(connection: &str) -> AttributeValue {
    string(&format!("{CONN_PREFIX}{connection}"))
}

fn room_key(room: &str) -> AttributeValue {
    string(&format!("{ROOM_PREFIX}{room}"))
}

fn client_key(client: &str) -> AttributeValue {
    string(&format!("{CLIENT_PREFIX}{client}"))
}

fn ttl(now: Millis) -> AttributeValue {
    item::number(item::ttl_seconds(now + ENTRY_TTL_MS))
}

fn condition_failed<E: aws_sdk_dynamodb::error::ProvideErrorMetadata, R>(
    e: &aws_sdk_dynamodb::error::SdkError<E, R>,
) -> bool {
    e.as_service_error()
        .and_then(|s| s.code())
        .is_some_and(|c| c == "ConditionalCheckFailedException")
}

impl DynamoStore {
    /// Counts one frame of `connection` at `now` (any frame it sends), refused
    /// ([`RegisterError::Limited`]) past [`FRAMES_PER_WINDOW`] in the current window; returns
    /// the room the connection watches, if it said hello. One write of the connection item
    /// (two when a new window starts), which also renews its TTL.
    pub async fn live_frame(
        &self,
        connection: &str,
        now: Millis,
    ) -> Result<Option<String>, RegisterError> {
        let window = item::number(now / FRAME_WINDOW_MS);
        // In the current window: one more, while under the bound. Else a new window, unless a
        // racing frame just started it (then the first form again, once).
        for attempt in 0..3 {
            let counted = if attempt % 2 == 0 {
                self.client()
                    .update_item()
                    .update_expression("SET #x = :ttl ADD #f :one")
                    .condition_expression("#w = :w AND #f < :max")
            } else {
                self.client()
                    .update_item()
                    .update_expression("SET #w = :w, #f = :one, #x = :ttl")
                    .condition_expression("attribute_not_exists(#w) OR #w < :w")
            };
            let sent = counted
                .table_name(self.table())
                .key(item::ID, conn_key(connection))
                .expression_attribute_names("#x", item::EXPIRES)
                .expression_attribute_names("#f", FRAMES)
                .expression_attribute_names("#w", WINDOW)
                .set_expression_attribute_values(Some(if attempt % 2 == 0 {
                    HashMap::from([
                        (":ttl".to_owned(), ttl(now)),
                        (":one".to_owned(), item::number(1)),
                        (":w".to_owned(), window.clone()),
                        (":max".to_owned(), item::number(FRAMES_PER_WINDOW)),
                    ])
                } else {
                    HashMap::from([
                        (":ttl".to_owned(), ttl(now)),
                        (":one".to_owned(), item::number(1)),
                        (":w".to_owned(), window.clone()),
                    ])
                }))
                .return_values(ReturnValue::AllNew)
                .set_return_consumed_capacity(self.capacity())
                .send()
                .await;
            match sent {
                Ok(out) => {
                    self.record(Call::Write, out.consumed_capacity(), 0);
                    return Ok(out
                        .attributes()
                        .and_then(|a| a.get(ROOM))
                        .and_then(|r| r.as_s().ok())
                        .cloned());
                }
                Err(e) if condition_failed(&e) => self.record_conditional_failure(),
                Err(e) => return Err(unavailable(e).into()),
            }
        }
        Err(RegisterError::Limited)
    }

    /// Registers `connection` of `client` (a digest of its source address) as watching `room`
    /// for `player` (`None`: a spectator) — a hello. Counts the connection's hello (refused past
    /// `max_hellos`); on its first hello counts it against its client (refused past
    /// [`MAX_PER_CLIENT`]); moves it out of the room it watched before, if another (or the same
    /// room in another role); and adds it to `room`'s registry (refused past [`MAX_PER_ROOM`],
    /// or for a spectator past [`MAX_SPECTATORS_PER_ROOM`]). Every step is safe to resend (see
    /// the module). A refused or failed hello closes the connection; its `$disconnect` releases
    /// whatever the record names.
    ///
    /// Units: the first hello, three writes (the connection item, the client's, the registry);
    /// a hello again for the same room and role, one; a move, four (the connection item, the
    /// old registry, the record, the new registry). An add refused by its condition (a full
    /// room or client, or a resend meeting its own entry) reads one unit more.
    pub async fn live_register(
        &self,
        connection: &str,
        room: &str,
        player: Option<&str>,
        client: &str,
        now: Millis,
        max_hellos: u64,
    ) -> Result<(), RegisterError> {
        let stamp = crate::dynamo::new_stamp()?.to_string();
        let role = player.unwrap_or("");
        // The hello counted and, where the item has none yet, the client and the registration
        // recorded under this hello's stamp; read back whole, so that a resend reads what its
        // first attempt wrote.
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .update_expression(
                "SET #x = :ttl, #k = if_not_exists(#k, :client), #t = if_not_exists(#t, :stamp), \
                 #r = if_not_exists(#r, :room), #p = if_not_exists(#p, :player), \
                 #u = if_not_exists(#u, :stamp) ADD #h :one",
            )
            .condition_expression("attribute_not_exists(#h) OR #h < :max")
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#k", CLIENT)
            .expression_attribute_names("#t", CLIENT_STAMP)
            .expression_attribute_names("#r", ROOM)
            .expression_attribute_names("#p", PLAYER)
            .expression_attribute_names("#u", ENTRY_STAMP)
            .expression_attribute_names("#h", HELLOS)
            .set_expression_attribute_values(Some(HashMap::from([
                (":ttl".to_owned(), ttl(now)),
                (":client".to_owned(), string(client)),
                (":stamp".to_owned(), AttributeValue::N(stamp.clone())),
                (":room".to_owned(), string(room)),
                (":player".to_owned(), string(role)),
                (":one".to_owned(), item::number(1)),
                (":max".to_owned(), item::number(max_hellos)),
            ])))
            .return_values(ReturnValue::AllNew)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        let record = match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                out.attributes.unwrap_or_default()
            }
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                return Err(RegisterError::Limited);
            }
            Err(e) => return Err(unavailable(e).into()),
        };
        let text = |name: &str| record.get(name).and_then(|v| v.as_s().ok()).cloned();
        let number = |name: &str| record.get(name).and_then(|v| v.as_n().ok()).cloned();
        // This hello recorded the client: counting the connection is its to do.
        if number(CLIENT_STAMP).as_deref() == Some(&stamp) {
            self.client_add(client, connection, now).await?;
        }
        let recorded_stamp = number(ENTRY_STAMP);
        if recorded_stamp.as_deref() != Some(&stamp) {
            // (Always there: the write above sets it where it was not.)
            let (Some(before), before_role) = (text(ROOM), text(PLAYER).unwrap_or_default()) else {
                return Err(RegisterError::Limited);
            };
            if before == room && before_role == role {
                // An earlier hello made this registration.
                return Ok(());
            }
            // A move: the old entry released first, then the record names the new one.
            self.live_unwatch(connection, &before, before_role.is_empty())
                .await?;
            self.record_move(connection, room, role, recorded_stamp, &stamp)
                .await?;
        }
        self.live_watch(connection, room, player, now).await
    }

    /// Points `connection`'s record at `room` and `role` under `stamp`, if it still holds the
    /// registration stamped `before` (or already this one: a resend) — one write.
    async fn record_move(
        &self,
        connection: &str,
        room: &str,
        role: &str,
        before: Option<String>,
        stamp: &str,
    ) -> Result<(), RegisterError> {
        let mut request = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .update_expression("SET #r = :room, #p = :player, #u = :stamp")
            .expression_attribute_names("#r", ROOM)
            .expression_attribute_names("#p", PLAYER)
            .expression_attribute_names("#u", ENTRY_STAMP)
            .expression_attribute_values(":room", string(room))
            .expression_attribute_values(":player", string(role))
            .expression_attribute_values(":stamp", AttributeValue::N(stamp.to_owned()));
        request = match before {
            Some(before) => request
                .condition_expression("#u = :before OR #u = :stamp")
                .expression_attribute_values(":before", AttributeValue::N(before)),
            None => request.condition_expression("attribute_not_exists(#u) OR #u = :stamp"),
        };
        match request
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
        {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            // Another hello of the same connection moved it meanwhile.
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                Err(RegisterError::Limited)
            }
            Err(e) => Err(unavailable(e).into()),
        }
    }

    /// Adds `connection` to `room`'s registry for `player` (`None`: a spectator), refused past
    /// the room's bounds — one write; a refusal reads the entry (one unit): found, it is this
    /// add's own, resent.
    async fn live_watch(
        &self,
        connection: &str,
        room: &str,
        player: Option<&str>,
        now: Millis,
    ) -> Result<(), RegisterError> {
        let name = entry_name(connection);
        let (update, condition) = if player.is_some() {
            (
                "SET #c = :player, #x = :ttl ADD #n :one",
                "(attribute_not_exists(#n) OR #n < :max) AND attribute_not_exists(#c)",
            )
        } else {
            (
                "SET #c = :player, #x = :ttl ADD #n :one, #s :one",
                "(attribute_not_exists(#n) OR #n < :max) \
                 AND (attribute_not_exists(#s) OR #s < :spectators) AND attribute_not_exists(#c)",
            )
        };
        let mut values = HashMap::from([
            (":player".to_owned(), string(player.unwrap_or(""))),
            (":ttl".to_owned(), ttl(now)),
            (":one".to_owned(), item::number(1)),
            (":max".to_owned(), item::number(MAX_PER_ROOM)),
        ]);
        let mut request = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, room_key(room))
            .update_expression(update)
            .condition_expression(condition)
            .expression_attribute_names("#c", &name)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#n", COUNT);
        if player.is_none() {
            request = request.expression_attribute_names("#s", SPECTATORS);
            values.insert(
                ":spectators".to_owned(),
                item::number(MAX_SPECTATORS_PER_ROOM),
            );
        }
        let sent = request
            .set_expression_attribute_values(Some(values))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                self.own_entry(room_key(room), connection).await
            }
            Err(e) => Err(unavailable(e).into()),
        }
    }

    /// After an add refused by its condition: `Ok` if `connection`'s entry is in the item
    /// (the add's own first attempt put it there), else [`RegisterError::Limited`]. One strongly
    /// consistent read (one unit under 4 KB).
    async fn own_entry(&self, key: AttributeValue, connection: &str) -> Result<(), RegisterError> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key(item::ID, key)
            .consistent_read(true)
            .projection_expression("#c")
            .expression_attribute_names("#c", entry_name(connection))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        if out
            .item
            .is_some_and(|i| i.contains_key(&entry_name(connection)))
        {
            Ok(())
        } else {
            Err(RegisterError::Limited)
        }
    }

    /// Counts `connection` against `client`, refused past [`MAX_PER_CLIENT`] — one write, and a
    /// read when refused ([`DynamoStore::own_entry`]).
    async fn client_add(
        &self,
        client: &str,
        connection: &str,
        now: Millis,
    ) -> Result<(), RegisterError> {
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, client_key(client))
            .update_expression("SET #c = :now, #x = :ttl ADD #n :one")
            .condition_expression(
                "attribute_not_exists(#c) AND (attribute_not_exists(#n) OR #n < :max)",
            )
            .expression_attribute_names("#c", entry_name(connection))
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_values(":now", item::number(now))
            .expression_attribute_values(":one", item::number(1))
            .expression_attribute_values(":ttl", ttl(now))
            .expression_attribute_values(":max", item::number(MAX_PER_CLIENT))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                self.own_entry(client_key(client), connection).await
            }
            Err(e) => Err(unavailable(e).into()),
        }
    }

    /// Gives `connection`'s place back to `client`, if it holds one (one write).
    async fn client_release(&self, client: &str, connection: &str) -> Result<(), StoreError> {
        self.remove_entry(client_key(client), connection, false)
            .await
    }

    /// The connections watching `room`: one eventually consistent read of its registry (half
    /// a unit). A connection registered a moment ago may be missing from it; its hello already
    /// told it the version it needed.
    pub async fn live_watchers(&self, room: &str) -> Result<Vec<Watcher>, StoreError> {
        let Some(found) = self.registry_item(room_key(room)).await? else {
            return Ok(Vec::new());
        };
        Ok(found
            .iter()
            .filter_map(|(name, value)| {
                let connection = name.strip_prefix("c:")?;
                let player = value.as_s().ok().filter(|p| !p.is_empty()).cloned();
                Some(Watcher {
                    connection: connection.to_owned(),
                    player,
                })
            })
            .collect())
    }

    /// The room `connection` watches, if it said hello (one eventually consistent read).
    pub async fn live_room_of(&self, connection: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .registry_item(conn_key(connection))
            .await?
            .and_then(|i| i.get(ROOM).and_then(|r| r.as_s().ok()).cloned()))
    }

    /// One registry item by its key: an eventually consistent read (half a unit under 4 KB),
    /// metered like every other read of the table.
    async fn registry_item(
        &self,
        key: AttributeValue,
    ) -> Result<Option<HashMap<String, AttributeValue>>, StoreError> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key(item::ID, key)
            .consistent_read(false)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        Ok(out.item)
    }

    /// Forgets `connection` (its `$disconnect`, or a post that met `410 Gone` in `watched`, the
    /// room it was posted from, with whether it watched as a spectator): reads its record,
    /// gives its place back to its client, removes its entry from the registry the record names
    /// (and from `watched`'s, if another: the record may have gone first), and deletes the
    /// record last — each step safe to resend (see the module).
    ///
    /// Units: one strongly consistent read (one unit; the cheaper way to learn the record
    /// again after a lost answer — a write that returned it would cost a write unit) and three
    /// writes; a connection that never said hello, one read and one write; one that never sent
    /// a frame, the read.
    pub async fn live_forget(
        &self,
        connection: &str,
        watched: Option<(&str, bool)>,
    ) -> Result<(), StoreError> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .consistent_read(true)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        let record = out.item;
        let text = |name: &str| {
            record
                .as_ref()
                .and_then(|r| r.get(name))
                .and_then(|v| v.as_s().ok())
                .cloned()
        };
        // The client's place first, the registry entry after it: a forget cut short leaves the
        // entry, whose next post meets `410 Gone` and forgets again, on the record kept until
        // the end.
        if let Some(client) = text(CLIENT) {
            if record
                .as_ref()
                .is_some_and(|r| r.contains_key(CLIENT_STAMP))
            {
                self.client_release(&client, connection).await?;
            } else {
                self.legacy_client_release(&client).await?;
            }
        }
        let recorded = text(ROOM);
        if let Some(room) = &recorded {
            let spectator = text(PLAYER).unwrap_or_default().is_empty();
            self.live_unwatch(connection, room, spectator).await?;
        }
        if let Some((room, spectator)) = watched
            && recorded.as_deref() != Some(room)
        {
            self.live_unwatch(connection, room, spectator).await?;
        }
        if record.is_some() {
            let out = self
                .client()
                .delete_item()
                .table_name(self.table())
                .key(item::ID, conn_key(connection))
                .set_return_consumed_capacity(self.capacity())
                .send()
                .await
                .map_err(unavailable)?;
            self.record(Call::Write, out.consumed_capacity(), 0);
        }
        Ok(())
    }

    /// Takes one place off `client`'s count without an entry: for a connection counted before
    /// the counts had entries (an item at most [`ENTRY_TTL_MS`] old after that deploy; this can
    /// go after it). One write.
    async fn legacy_client_release(&self, client: &str) -> Result<(), StoreError> {
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, client_key(client))
            .update_expression("ADD #n :minus")
            .condition_expression("#n > :zero")
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":minus", AttributeValue::N("-1".into()))
            .expression_attribute_values(":zero", item::number(0))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                Ok(())
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Removes `connection`'s entry from `room`'s registry, if it is there (one write); a
    /// `spectator`'s also leaves the spectators' count.
    async fn live_unwatch(
        &self,
        connection: &str,
        room: &str,
        spectator: bool,
    ) -> Result<(), StoreError> {
        self.remove_entry(room_key(room), connection, spectator)
            .await
    }

    /// Removes `connection`'s entry from the item at `key` and takes it off the item's count
    /// `n` (and off `g` for a `spectator`), if the entry is there — so a resend, or a second
    /// forget (a `410 Gone` and a `$disconnect`), takes nothing more (one write).
    async fn remove_entry(
        &self,
        key: AttributeValue,
        connection: &str,
        spectator: bool,
    ) -> Result<(), StoreError> {
        let mut request = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, key)
            .condition_expression("attribute_exists(#c)")
            .expression_attribute_names("#c", entry_name(connection))
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":minus", AttributeValue::N("-1".into()));
        request = if spectator {
            request
                .update_expression("REMOVE #c ADD #n :minus, #s :minus")
                .expression_attribute_names("#s", SPECTATORS)
        } else {
            request.update_expression("REMOVE #c ADD #n :minus")
        };
        let sent = request
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            // Not there (never added, or already removed): nothing to do.
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                Ok(())
            }
            Err(e) => Err(unavailable(e)),
        }
    }
}
