//! Who watches a room live on AWS: API Gateway WebSocket connections, registered in the rooms
//! table next to the rooms (`docs/cost.md`, "Live channel").
//!
//! Two kinds of small items, neither with a due time (so never in the sweeper's index):
//!
//! - `#live#{room}`, the room's **registry**: one attribute `c:{connectionId}` per watching
//!   connection (its player id, `""` for a spectator) and `n`, how many. A change finds the
//!   room's connections with one eventually consistent `GetItem` of it — half a read unit while
//!   the item is under 4 KB, which [`MAX_PER_ROOM`] entries keep it well under.
//! - `#conn#{connectionId}`, the **connection**: the room it watches (`r`) and the hellos it
//!   sent (`h`), so `$disconnect` — which names only the connection — finds the registry entry
//!   to remove, and a connection's hellos are counted across Lambda environments.
//!
//! Both carry the table's TTL (`x`): API Gateway closes every connection within two hours, so an
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
/// How long an entry lives without being renewed: API Gateway's longest connection (2 h), and a
/// little more.
pub const ENTRY_TTL_MS: Millis = (2 * 60 + 5) * 60 * 1000;

const ROOM_PREFIX: &str = "#live#";
const CONN_PREFIX: &str = "#conn#";
const COUNT: &str = "n";
const ROOM: &str = "r";
const HELLOS: &str = "h";

/// One connection watching a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watcher {
    /// API Gateway's connection id.
    pub connection: String,
    /// The player it belongs to; `None`: a spectator.
    pub player: Option<String>,
}

/// Why a registration was refused.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// Over [`MAX_PER_ROOM`] connections in the room, or over the connection's hellos.
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
    /// Registers `connection` as watching `room` (a hello). Counts the connection's hello
    /// (refused past `max_hellos`); moves it out of the room it watched before, if another;
    /// and adds it to `room`'s registry (refused past [`MAX_PER_ROOM`]). Units: one write of
    /// the connection item, and one of the registry when the room is new to the connection
    /// (two more when it moves from another room).
    pub async fn live_register(
        &self,
        connection: &str,
        room: &str,
        player: Option<&str>,
        now: Millis,
        max_hellos: u64,
    ) -> Result<(), RegisterError> {
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, conn_key(connection))
            .update_expression("SET #r = :room, #x = :ttl ADD #h :one")
            .condition_expression("attribute_not_exists(#h) OR #h < :max")
            .expression_attribute_names("#r", ROOM)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#h", HELLOS)
            .expression_attribute_values(":room", string(room))
            .expression_attribute_values(":ttl", ttl(now))
            .expression_attribute_values(":one", item::number(1))
            .expression_attribute_values(":max", item::number(max_hellos))
            .return_values(ReturnValue::UpdatedOld)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        let before = match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                out.attributes()
                    .and_then(|a| a.get(ROOM))
                    .and_then(|r| r.as_s().ok())
                    .cloned()
            }
            Err(e) if condition_failed(&e) => {
                self.record_conditional_failure();
                return Err(RegisterError::Limited);
            }
            Err(e) => return Err(unavailable(e).into()),
        };
        if before.as_deref() == Some(room) {
            return Ok(());
        }
        if let Some(before) = before {
            self.live_unwatch(connection, &before).await?;
        }
        let name = entry_name(connection);
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, room_key(room))
            .update_expression("SET #c = :player, #x = :ttl ADD #n :one")
            .condition_expression(
                "(attribute_not_exists(#n) OR #n < :max) AND attribute_not_exists(#c)",
            )
            .expression_attribute_names("#c", &name)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":player", string(player.unwrap_or("")))
            .expression_attribute_values(":ttl", ttl(now))
            .expression_attribute_values(":one", item::number(1))
            .expression_attribute_values(":max", item::number(MAX_PER_ROOM))
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
    /// and its entry in the registry of the room it watched (the delete returns the room). Two
    /// writes.
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
        let room = out
            .attributes()
            .and_then(|a| a.get(ROOM))
            .and_then(|r| r.as_s().ok())
            .cloned();
        match room {
            Some(room) => self.live_unwatch(connection, &room).await,
            None => Ok(()),
        }
    }

    /// Removes `connection`'s entry from `room`'s registry, if it is there (one write).
    async fn live_unwatch(&self, connection: &str, room: &str) -> Result<(), StoreError> {
        let sent = self
            .client()
            .update_item()
            .table_name(self.table())
            .key(item::ID, room_key(room))
            .update_expression("REMOVE #c ADD #n :minus")
            .condition_expression("attribute_exists(#c)")
            .expression_attribute_names("#c", entry_name(connection))
            .expression_attribute_names("#n", COUNT)
            .expression_attribute_values(":minus", AttributeValue::N("-1".into()))
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
