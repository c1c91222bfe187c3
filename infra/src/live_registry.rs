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
//! - `#conn#{connectionId}`, the **connection**: the room it watches (`r`), its player (`p`,
//!   absent for a spectator), the hellos it sent (`h`), its client (`k`), and its frames in the
//!   current window (`w`, `f`). `$disconnect` — which names only the connection — finds the
//!   registry entry to remove through it; hellos and frames are counted across Lambda
//!   environments ([`DynamoStore::live_frame`]).
//! - `#client#{key}`, a **client**'s registered connections (`n`; the key is a digest of its
//!   source address): at most [`MAX_PER_CLIENT`], so one client cannot hold many places and
//!   turn every change into many paid posts.
//!
//! All carry the table's TTL (`x`): API Gateway closes every connection within two hours, so an
//! entry whose `$disconnect` never ran goes by itself; a post that meets `410 Gone` removes it
//! at once ([`DynamoStore::live_forget`]).

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
    /// or for a spectator past [`MAX_SPECTATORS_PER_ROOM`]). Units: one write of the connection
    /// item, one of the client item on the first hello, and one of the registry when the room
    /// or role is new to the connection (two more when it moves from another room).
    pub async fn live_register(
        &self,
        connection: &str,
        room: &str,
        player: Option<&str>,
        client: &str,
        now: Millis,
        max_hellos: u64,
    ) -> Result<(), RegisterError> {
        let role = if player.is_some() {
            "SET #r = :room, #x = :ttl, #k = :client, #p = :player ADD #h :one"
        } else {
            "SET #r = :room, #x = :ttl, #k = :client ADD #h :one REMOVE #p"
        };
        let mut values = HashMap::from([
            (":room".to_owned(), string(room)),
            (":ttl".to_owned(), ttl(now)),
            (":client".to_owned(), string(client)),
            (":one".to_owned(), item::number(1)),
            (":max".to_owned(), item::number(max_hellos)),
        ]);
        if let Some(player) = player {
            values.insert(":player".to_owned(), string(player));
        }
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .update_expression(role)
            .condition_expression("attribute_not_exists(#h) OR #h < :max")
            .expression_attribute_names("#r", ROOM)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#h", HELLOS)
            .expression_attribute_names("#k", CLIENT)
            .expression_attribute_names("#p", PLAYER)
            .set_expression_attribute_values(Some(values))
            .return_values(ReturnValue::AllOld)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        let old = match sent {
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
        let text = |name: &str| old.get(name).and_then(|v| v.as_s().ok()).cloned();
        if text(CLIENT).is_none()
            && let Err(e) = self.client_count(client, 1, now).await
        {
            // Not counted: the connection must not be uncounted when it goes.
            self.forget_client(connection).await?;
            return Err(e);
        }
        let before = text(ROOM);
        let was_spectator = text(PLAYER).is_none();
        if before.as_deref() == Some(room) && was_spectator == player.is_none() {
            return Ok(());
        }
        if let Some(before) = before {
            self.live_unwatch(connection, &before, was_spectator)
                .await?;
        }
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
                Err(RegisterError::Limited)
            }
            Err(e) => Err(unavailable(e).into()),
        }
    }

    /// Adds `delta` (1 or -1) to `client`'s registered connections; an increment is refused
    /// past [`MAX_PER_CLIENT`] (one write).
    async fn client_count(
        &self,
        client: &str,
        delta: i64,
        now: Millis,
    ) -> Result<(), RegisterError> {
        let mut request = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, client_key(client))
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":delta", AttributeValue::N(delta.to_string()));
        request = if delta > 0 {
            request
                .update_expression("SET #x = :ttl ADD #n :delta")
                .condition_expression("attribute_not_exists(#n) OR #n < :max")
                .expression_attribute_names("#x", item::EXPIRES)
                .expression_attribute_values(":ttl", ttl(now))
                .expression_attribute_values(":max", item::number(MAX_PER_CLIENT))
        } else {
            request
                .update_expression("ADD #n :delta")
                .condition_expression("#n > :zero")
                .expression_attribute_values(":zero", item::number(0))
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
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                // Under zero already (the item went with its TTL): nothing to take back.
                if delta > 0 {
                    Err(RegisterError::Limited)
                } else {
                    Ok(())
                }
            }
            Err(e) => Err(unavailable(e).into()),
        }
    }

    /// Removes the client from `connection`'s item, after its count was refused (one write).
    async fn forget_client(&self, connection: &str) -> Result<(), RegisterError> {
        let out = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .update_expression("REMOVE #k")
            .expression_attribute_names("#k", CLIENT)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Write, out.consumed_capacity(), 0);
        Ok(())
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

    /// Forgets `connection` (its `$disconnect`, or a post that met `410 Gone`): deletes its item
    /// and its entry in the registry of the room it watched (the delete returns the room), and
    /// gives its place back to its client. Three writes (one for a connection that never said
    /// hello).
    pub async fn live_forget(&self, connection: &str) -> Result<(), StoreError> {
        let out = self
            .client()
            .delete_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .return_values(ReturnValue::AllOld)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Write, out.consumed_capacity(), 0);
        let old = out.attributes.unwrap_or_default();
        let text = |name: &str| old.get(name).and_then(|v| v.as_s().ok()).cloned();
        if let Some(room) = text(ROOM) {
            self.live_unwatch(connection, &room, text(PLAYER).is_none())
                .await?;
        }
        if let Some(client) = text(CLIENT) {
            match self.client_count(&client, -1, 0).await {
                Ok(()) | Err(RegisterError::Limited) => {}
                Err(RegisterError::Store(e)) => return Err(e),
            }
        }
        Ok(())
    }

    /// Removes `connection`'s entry from `room`'s registry, if it is there (one write); a
    /// `spectator`'s also leaves the spectators' count.
    async fn live_unwatch(
        &self,
        connection: &str,
        room: &str,
        spectator: bool,
    ) -> Result<(), StoreError> {
        let mut request = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, room_key(room))
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
            // Already gone (a 410 and a `$disconnect` both cleaned up): nothing to do.
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                Ok(())
            }
            Err(e) => Err(unavailable(e)),
        }
    }
}
