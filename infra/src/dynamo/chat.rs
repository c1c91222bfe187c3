//! Chat on DynamoDB: a table of its own beside the rooms table, so a message never writes the
//! room's item (its version, its units, its conditional writes stay the game's alone).
//!
//! Layout: hash key `r` (room id, S), range key `q` (the record's number, N); the record's bytes
//! in `b` (B) and its expiry in `x` (N, epoch seconds rounded up, the table's TTL attribute;
//! reads return it as milliseconds), and the random write stamp of the post that wrote it in `w`
//! (N), as on the rooms table. A record is one item well under 1 KB, so:
//!
//! - an append is one conditional `PutItem` (`attribute_not_exists(q)`: the number is free), one
//!   write unit, plus one `DeleteItem` of the record that falls out of the newest
//!   [`KEPT_RECORDS`] (one more unit, from the 101st message of a room on);
//! - the newest record is one strongly consistent `Query` (`ScanIndexForward = false`,
//!   `Limit = 1`): one read unit;
//! - a poll is one strongly consistent `Query` on `q > :after`: one unit per 4 KB of what it
//!   returns, one unit when nothing is new. Strong, not eventual: an eventually consistent read
//!   could return record `n + 1` without `n`, and a client that then asks for what follows
//!   `n + 1` would never see `n`.
//!
//! The figures measured on dynalite's meter are in docs/cost.md ("Chat").

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeValue, BillingMode, KeyType, ScalarAttributeType, TimeToLiveSpecification,
};
use madang_core::room::RoomId;

use super::capacity::Call;
use super::item::{Item, number, ttl_seconds};
use super::{DynamoStore, unavailable};
use crate::chat::{ChatStore, KEPT_RECORDS, StoredChat};
use crate::store::{BoxError, StoreError};

/// The chat table's hash key: the room id.
pub const ROOM: &str = "r";
/// The chat table's range key: the record's number.
pub const SEQ: &str = "q";
/// The record's bytes.
const BODY: &str = "b";
/// The TTL attribute (epoch seconds), as on the rooms table.
const EXPIRES: &str = "x";
/// The write stamp: how an append recognises its own record when the SDK resent it after its
/// answer was lost (the resent put then fails its condition on the record it wrote itself).
const STAMP: &str = "w";

/// The chat table of a rooms table, unless configured otherwise (`MADANG_CHAT_TABLE`).
pub fn chat_table_name(rooms_table: &str) -> String {
    format!("{rooms_table}-chat")
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(BoxError::from(format!("chat item without a valid {what}")))
}

fn record_of(item: &Item) -> Result<StoredChat, StoreError> {
    let seq = item
        .get(SEQ)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| corrupt(SEQ))?;
    let body = item
        .get(BODY)
        .and_then(|v| v.as_b().ok())
        .map(|b| b.as_ref().to_vec())
        .ok_or_else(|| corrupt(BODY))?;
    let expires_at = item
        .get(EXPIRES)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| corrupt(EXPIRES))?
        .saturating_mul(1000);
    Ok(StoredChat {
        seq,
        body,
        expires_at,
    })
}

impl DynamoStore {
    /// The records of `room` numbered above `after`, newest first, at most `limit`.
    async fn query_chat(
        &self,
        room: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StoredChat>, StoreError> {
        let out = self
            .client
            .query()
            .table_name(&self.chat_table)
            .key_condition_expression("r = :r AND q > :after")
            .expression_attribute_values(":r", AttributeValue::S(room.to_owned()))
            .expression_attribute_values(":after", number(after))
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX).max(1))
            .consistent_read(true)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        out.items().iter().map(record_of).collect()
    }
}

impl DynamoStore {
    /// The write stamp of record `seq` of `room`, if it is there (a strongly consistent read).
    async fn chat_stamp(&self, room: &str, seq: u64) -> Result<Option<u64>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.chat_table)
            .key(ROOM, AttributeValue::S(room.to_owned()))
            .key(SEQ, number(seq))
            .projection_expression(STAMP)
            .consistent_read(true)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        Ok(out
            .item
            .as_ref()
            .and_then(|i| i.get(STAMP))
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok()))
    }
}

impl ChatStore for DynamoStore {
    async fn chat_latest(&self, room: &RoomId) -> Result<Option<StoredChat>, StoreError> {
        let room = room.as_str();
        Ok(self.query_chat(room, 0, 1).await?.pop())
    }

    async fn chat_append(&self, room: &RoomId, record: &StoredChat) -> Result<(), StoreError> {
        let room = room.as_str();
        let stamp = super::new_stamp()?;
        let put = self
            .client
            .put_item()
            .table_name(&self.chat_table)
            .item(ROOM, AttributeValue::S(room.to_owned()))
            .item(SEQ, number(record.seq))
            .item(BODY, AttributeValue::B(Blob::new(record.body.clone())))
            .item(EXPIRES, number(ttl_seconds(record.expires_at)))
            .item(STAMP, number(stamp))
            // The number is this writer's only if nobody took it first.
            .condition_expression("attribute_not_exists(q)")
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match put {
            Ok(out) => self.record(Call::Write, out.consumed_capacity(), 0),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), PutItemError::ConditionalCheckFailedException(_)) =>
            {
                self.record_conditional_failure();
                // Taken — perhaps by this very put, landed before its answer was lost and sent
                // again by the SDK. Then it is appended (once): building on it again would
                // post the message twice.
                if self.chat_stamp(room, record.seq).await? != Some(stamp) {
                    return Err(StoreError::VersionConflict { current: None });
                }
            }
            Err(e) => return Err(unavailable(e)),
        }
        if record.seq > KEPT_RECORDS {
            // Keeps a room's chat at the newest KEPT_RECORDS. A delete that fails leaves one
            // record too many, which TTL removes with the room; the next poll never returns it
            // (polls ask for the newest records only), so the failure is logged, not reported.
            // The line names no room: an id is the room's capability, and the request's span
            // already carries its digest.
            let deleted = self
                .client
                .delete_item()
                .table_name(&self.chat_table)
                .key(ROOM, AttributeValue::S(room.to_owned()))
                .key(SEQ, number(record.seq - KEPT_RECORDS))
                .set_return_consumed_capacity(self.capacity())
                .send()
                .await;
            match deleted {
                Ok(out) => self.record(Call::Write, out.consumed_capacity(), 0),
                Err(e) => tracing::warn!(error = %e, "deleting an old chat record failed"),
            }
        }
        Ok(())
    }

    async fn chat_after(
        &self,
        room: &RoomId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StoredChat>, StoreError> {
        let room = room.as_str();
        let mut records = self.query_chat(room, after, limit).await?;
        records.reverse();
        Ok(records)
    }
}

/// Creates the chat table `name` when missing (hash `r`, range `q`, on demand, TTL on `x`) and
/// waits until it is ACTIVE. In AWS the SAM template owns it (`ChatTable`).
pub async fn ensure_chat_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::table::{attribute, key};
    match client.describe_table().table_name(name).send().await {
        Ok(_) => {}
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_resource_not_found_exception()) =>
        {
            let created = client
                .create_table()
                .table_name(name)
                .billing_mode(BillingMode::PayPerRequest)
                .attribute_definitions(attribute(ROOM, ScalarAttributeType::S)?)
                .attribute_definitions(attribute(SEQ, ScalarAttributeType::N)?)
                .key_schema(key(ROOM, KeyType::Hash)?)
                .key_schema(key(SEQ, KeyType::Range)?)
                .send()
                .await;
            match created {
                Ok(_) => {}
                Err(e)
                    if e.as_service_error()
                        .is_some_and(|e| e.is_resource_in_use_exception()) => {}
                Err(e) => return Err(unavailable(e)),
            }
        }
        Err(e) => return Err(unavailable(e)),
    }
    super::table::wait_until_active(client, name).await?;
    let spec = TimeToLiveSpecification::builder()
        .attribute_name(EXPIRES)
        .enabled(true)
        .build()
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
    super::table::enable_ttl_with(client, name, spec).await
}
