//! The DynamoDB store, for production: one table, one item per room (layout in [`item`]).
//!
//! Every action is one strongly consistent `GetItem` and one conditional `UpdateItem`; never a
//! transaction, which would bill every unit twice. Safety under concurrency comes from one
//! condition, `v = :expected`, on every write but `create`: of two requests that loaded the same
//! version, exactly one write lands and the other gets the room as it now is.
//!
//! - [`item`]: the pure codec between [`StoredRoom`] and an item, and the plan of each save.
//! - [`capacity`]: an optional meter of the units the store consumes, for cost reports.
//! - [`ensure_table`]: creates the table (and its due index, and TTL) when missing.
//!
//! Throttling and transient network errors are retried inside the SDK (see [`sdk_config`]);
//! whatever still fails is [`StoreError::Unavailable`]. A write that timed out may still have
//! landed, and its retry then fails its own condition: the store recognises its own write by the
//! random write stamp it set (`w`) and reports success, so a lost answer never turns into a
//! conflict that would make the caller apply an action twice. The stamp, not the body, decides:
//! two clients acting on the same version can compute byte-identical rooms (the generator is
//! deterministic), and the second of them must still get its conflict.

pub mod capacity;
pub mod chat;
pub mod item;
mod table;

use std::sync::Arc;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, ConfigLoader};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use madang_core::Millis;
use madang_core::room::RoomId;
use tokio::task::JoinSet;

pub use capacity::{CapacityMeter, CapacityReport};
pub use chat::{chat_table_name, ensure_chat_table};

use capacity::Call;
use item::{DUE, DUE_INDEX, ID, IndexWrite, Item, SHARDS, SaveUpdate};

use crate::store::{KeptReview, REVIEW_CLAIM_STALE_MS, RoomStore, StoreError, StoredRoom};

/// Makes sure the rooms table `name` exists with the store's shape (hash key `id`, on-demand
/// billing, the sparse keys-only due index, TTL on `x`) and its chat table beside it, named
/// after it as [`DynamoStore::new`] names it ([`chat_table_name`]). Creates what is missing and
/// waits until every table and index is ACTIVE. Safe to call from several processes at once.
///
/// An existing table is taken as it is (its key schema is not compared).
pub async fn ensure_table(client: &Client, name: &str) -> Result<(), StoreError> {
    table::ensure_rooms_table(client, name).await?;
    ensure_chat_table(client, &chat_table_name(name)).await
}

/// The key prefix of a room's review item (`#review#{roomId}`), beside the room in its table.
pub const REVIEW_PREFIX: &str = "#review#";
/// The review item's JSON text (absent while it is being computed).
const REVIEW_BODY: &str = "r";
/// When the review was claimed, epoch ms.
const REVIEW_CLAIMED: &str = "c";

/// The key of room `id`'s review item.
pub fn review_key(id: &str) -> String {
    format!("{REVIEW_PREFIX}{id}")
}

/// How often a save retries when only its index guard failed (a `reindex` moved the entry
/// between our load and our save). Each retry knows the entry's current time, so one is nearly
/// always enough; past this the caller sees a conflict and reloads.
const INDEX_GUARD_RETRIES: usize = 3;

/// Long-poll re-read interval. A change is seen at most this long after it lands (plus one read
/// and the answer), which keeps the wake p99 under half a second; each re-read is an eventually
/// consistent read of an item under 4 KB, half a unit, so a waiting second costs
/// 1000 / 300 × 0.5 ≈ 1.67 read units ($0.21 × 10⁻⁶ on demand in us-east-1) — an eighth of what
/// the same second of a 128 MB Lambda costs.
pub const WAIT_STEP: Duration = Duration::from_millis(300);

/// The id of the item that keeps the deployment's Web Push VAPID private key (base64url of the
/// 32-byte P-256 scalar), made on first need ([`DynamoStore::kept_once`]). `#` is not in the
/// alphabet of room ids.
pub const VAPID_KEY_ID: &str = "#vapid";
/// The kept value's attribute in such an item.
const KEPT_VALUE: &str = "k";

/// The id of the dev clock's item (test support, `MADANG_DEV=1` only): `#` is not in the
/// alphabet of room ids, so it can never be a room.
pub const CLOCK_ID: &str = "#clock";
/// The dev clock item's offset attribute (ms the clock was advanced).
#[cfg(feature = "dev")]
const CLOCK_OFFSET: &str = "o";

/// The SDK configuration the store is built for, read from the environment the standard way
/// (credentials chain, region, and `AWS_ENDPOINT_URL_DYNAMODB` to point at an emulator), with an
/// explicit retry policy and timeouts.
///
/// Retries: the standard mode (token bucket, exponential backoff with jitter) retries throttling,
/// 5xx and transient I/O errors — never a conditional-check failure, which is an answer, not an
/// error. Four attempts from a 50 ms base keep a throttled request inside the API's time budget;
/// the SDK's default 1 s base would not. Per-attempt and per-call timeouts stop a stuck
/// connection from eating the Lambda's whole 29 s.
pub fn sdk_config() -> ConfigLoader {
    aws_config::defaults(BehaviorVersion::latest())
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(4)
                .with_initial_backoff(Duration::from_millis(50))
                .with_max_backoff(Duration::from_secs(1)),
        )
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(2))
                .operation_attempt_timeout(Duration::from_secs(3))
                .operation_timeout(Duration::from_secs(8))
                .build(),
        )
}

/// A DynamoDB client configured by [`sdk_config`] from the environment. Build it once per
/// process (in `main`, outside the Lambda handler) and share it.
pub async fn client_from_env() -> Client {
    Client::new(&sdk_config().load().await)
}

/// A [`RoomStore`] on one DynamoDB table. Cheap to clone (the client is shared).
#[derive(Clone, Debug)]
pub struct DynamoStore {
    client: Client,
    table: String,
    /// The chat table ([`chat`]): by default named after `table`.
    chat_table: String,
    meter: Option<Arc<CapacityMeter>>,
}

/// A failed call as [`StoreError::Unavailable`], with the SDK error kept as its source.
pub(crate) fn unavailable<E, R>(e: SdkError<E, R>) -> StoreError
where
    E: std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    StoreError::Unavailable(Box::new(e))
}

pub(crate) fn string(s: &str) -> AttributeValue {
    AttributeValue::S(s.to_owned())
}

/// A fresh write stamp.
pub(crate) fn new_stamp() -> Result<u64, StoreError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Unavailable(Box::new(e)))?;
    Ok(u64::from_le_bytes(bytes))
}

/// The conditional-check failure inside an `UpdateItem` error, if that is what it is.
fn condition_failed<R>(
    e: &SdkError<UpdateItemError, R>,
) -> Option<&aws_sdk_dynamodb::types::error::ConditionalCheckFailedException> {
    match e.as_service_error() {
        Some(UpdateItemError::ConditionalCheckFailedException(failed)) => Some(failed),
        _ => None,
    }
}

impl DynamoStore {
    /// A store on `table` (which must exist; see [`ensure_table`]).
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        let table = table.into();
        DynamoStore {
            client,
            chat_table: chat_table_name(&table),
            table,
            meter: None,
        }
    }

    /// The same store, keeping chat in `table` instead of [`chat_table_name`]'s.
    pub fn with_chat_table(mut self, table: impl Into<String>) -> Self {
        self.chat_table = table.into();
        self
    }

    /// The table chat lives in.
    pub fn chat_table(&self) -> &str {
        &self.chat_table
    }

    /// The same store, asking DynamoDB for the consumed capacity of every call and adding it
    /// to `meter`.
    pub fn with_meter(mut self, meter: Arc<CapacityMeter>) -> Self {
        self.meter = Some(meter);
        self
    }

    /// The table this store uses.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The client this store uses.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The deployment's value kept in the item `id` of the rooms table (attribute `k`), made by
    /// `make` and put there the first time any process asks (the Web Push key, [`VAPID_KEY_ID`]).
    ///
    /// An eventually consistent read first (half a unit: what every later caller pays, once per
    /// execution environment); only when no item is seen, a put conditioned on there being none.
    /// Of processes racing to make it, exactly one put lands; the others fail their condition and
    /// read the winner's value strongly consistently, so all of them agree on one value. A put
    /// retried by the SDK after a lost answer fails its condition against its own item and reads
    /// back what it wrote. The item has no expiry (`x`) and no due time, so neither TTL nor the
    /// sweeper ever sees it.
    pub async fn kept_once(
        &self,
        id: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, StoreError> {
        if let Some(value) = self.kept_value(id, false).await? {
            return Ok(value);
        }
        let value = make();
        let sent = self
            .client
            .put_item()
            .table_name(&self.table)
            .item(ID, string(id))
            .item(KEPT_VALUE, string(&value))
            .condition_expression("attribute_not_exists(id)")
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(value)
            }
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(PutItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                self.record_conditional_failure();
                self.kept_value(id, true).await?.ok_or(StoreError::NotFound)
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    /// The value of [`DynamoStore::kept_once`]'s item `id`, if it exists.
    async fn kept_value(&self, id: &str, consistent: bool) -> Result<Option<String>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(ID, string(id))
            .consistent_read(consistent)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        match out.item.as_ref().and_then(|item| item.get(KEPT_VALUE)) {
            Some(AttributeValue::S(value)) => Ok(Some(value.clone())),
            Some(_) => Err(StoreError::Corrupt(
                format!("{id}: `{KEPT_VALUE}` is not a string").into(),
            )),
            None => Ok(None),
        }
    }

    /// What to ask DynamoDB for: nothing unless metering (the answer is free, but not needed).
    pub(crate) fn capacity(&self) -> Option<ReturnConsumedCapacity> {
        self.meter.as_ref().map(|_| ReturnConsumedCapacity::Indexes)
    }

    pub(crate) fn record(
        &self,
        call: Call,
        consumed: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>,
        index_write_units: u64,
    ) {
        if let Some(meter) = &self.meter {
            meter.record(call, consumed, index_write_units);
        }
    }

    pub(crate) fn record_conditional_failure(&self) {
        if let Some(meter) = &self.meter {
            meter.record_conditional_failure();
        }
    }

    /// The room's item, expired or not. `consistent`: a strongly consistent read (one unit per
    /// 4 KB) rather than an eventually consistent one (half).
    /// [`RoomStore::create`] with a given write stamp. Sending the same stamp twice is what the
    /// SDK does when it retries a request whose answer was lost; tests use it to play that.
    #[doc(hidden)]
    pub async fn create_stamped(&self, room: &StoredRoom, stamp: u64) -> Result<(), StoreError> {
        let mut new_item = item::to_item(room);
        item::stamp(&mut new_item, stamp);
        let put = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(new_item))
            // Ids are random, but a collision must fail rather than overwrite someone's room.
            .condition_expression("attribute_not_exists(id)")
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        let e = match put {
            Ok(out) => {
                let index_units = item::index_write_units(None, room.due);
                self.record(Call::Write, out.consumed_capacity(), index_units);
                return Ok(());
            }
            Err(e) => e,
        };
        let Some(PutItemError::ConditionalCheckFailedException(failed)) = e.as_service_error()
        else {
            return Err(unavailable(e));
        };
        self.record_conditional_failure();
        // The id is taken — perhaps by this very create, if its answer was lost and the SDK
        // sent it again. The stored item tells (dynalite returns none with the error: read it).
        let existing = match failed.item() {
            Some(old) => Some(old.clone()),
            None => self.read_item(&room.id, true).await?,
        };
        match existing {
            Some(existing) if item::stamp_of(&existing) == Some(stamp) => Ok(()),
            _ => Err(StoreError::AlreadyExists),
        }
    }

    /// [`RoomStore::save_if_version`] with a given write stamp (see [`Self::create_stamped`]).
    #[doc(hidden)]
    pub async fn save_stamped(
        &self,
        room: &StoredRoom,
        expected: u64,
        stamp: u64,
    ) -> Result<(), StoreError> {
        let mut indexed = room.indexed_due;
        for _ in 0..=INDEX_GUARD_RETRIES {
            let save = SaveUpdate::new(room, expected, indexed).stamped(stamp);
            let sent = self
                .client
                .update_item()
                .table_name(&self.table)
                .key(ID, string(&room.id))
                .update_expression(&save.update)
                .condition_expression(&save.condition)
                .set_expression_attribute_values(Some(save.values))
                .set_expression_attribute_names((!save.names.is_empty()).then_some(save.names))
                // A refused save hands back the item as it is, so the conflict carries the
                // current room without a second (billed) read.
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .set_return_consumed_capacity(self.capacity())
                .send()
                .await;
            let e = match sent {
                Ok(out) => {
                    let index_units = item::index_write_units(indexed, save.index.after(indexed));
                    self.record(Call::Write, out.consumed_capacity(), index_units);
                    return Ok(());
                }
                Err(e) => e,
            };
            let Some(failed) = condition_failed(&e) else {
                return Err(unavailable(e));
            };
            self.record_conditional_failure();
            // Real DynamoDB (and moto) return the old item; dynalite ignores the request, and
            // there is no item when the room is gone. Only then is a read needed to tell a
            // conflict from a missing room.
            let current = match failed.item() {
                Some(old) => Some(old.clone()),
                None => self.read_item(&room.id, true).await?,
            };
            let own = current
                .as_ref()
                .is_some_and(|c| item::stamp_of(c) == Some(stamp));
            let current = current.map(item::from_item).transpose()?;
            match current {
                None => return Err(StoreError::NotFound),
                Some(current) if own && current.version == room.version => return Ok(()),
                // Still our version: only the index guard failed (a reindex moved the entry
                // later than our new due time). Plan again from the entry as it is now.
                Some(current)
                    if current.version == expected
                        && matches!(save.index, IndexWrite::KeepEarlier(_)) =>
                {
                    indexed = current.indexed_due;
                }
                Some(current) => {
                    return Err(StoreError::VersionConflict {
                        current: Some(Box::new(current)),
                    });
                }
            }
        }
        Err(StoreError::VersionConflict { current: None })
    }

    async fn read(&self, id: &str, consistent: bool) -> Result<Option<StoredRoom>, StoreError> {
        self.read_item(id, consistent)
            .await?
            .map(item::from_item)
            .transpose()
    }

    /// The raw item of a room, if there is one.
    async fn read_item(&self, id: &str, consistent: bool) -> Result<Option<Item>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(ID, string(id))
            .consistent_read(consistent)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        Ok(out.item)
    }

    /// The overdue entries of one index shard, earliest first, at most `limit`.
    async fn due_in_shard(
        &self,
        shard: u64,
        now: Millis,
        limit: usize,
    ) -> Result<Vec<(Millis, String)>, StoreError> {
        let mut found = Vec::new();
        let mut start = None;
        loop {
            let page_limit = i32::try_from(limit - found.len()).unwrap_or(i32::MAX);
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(DUE_INDEX)
                .key_condition_expression("s = :s AND d <= :now")
                .expression_attribute_values(":s", AttributeValue::S(shard.to_string()))
                .expression_attribute_values(":now", item::number(now))
                .limit(page_limit)
                .set_exclusive_start_key(start)
                .set_return_consumed_capacity(self.capacity())
                .send()
                .await
                .map_err(unavailable)?;
            self.record(Call::Read, out.consumed_capacity(), 0);
            for entry in out.items() {
                found.push(item::due_entry(entry)?);
            }
            start = out.last_evaluated_key;
            if start.is_none() || found.len() >= limit {
                return Ok(found);
            }
        }
    }
}

impl RoomStore for DynamoStore {
    async fn create(&self, room: &StoredRoom) -> Result<(), StoreError> {
        self.create_stamped(room, new_stamp()?).await
    }

    async fn load(&self, id: &RoomId, now: Millis) -> Result<StoredRoom, StoreError> {
        let id = id.as_str();
        // TTL deletes expired items only eventually (up to days later), so expiry is enforced
        // here on every read.
        match self.read(id, true).await? {
            Some(room) if room.expires_at > now => Ok(room),
            _ => Err(StoreError::NotFound),
        }
    }

    async fn save_if_version(&self, room: &StoredRoom, expected: u64) -> Result<(), StoreError> {
        self.save_stamped(room, expected, new_stamp()?).await
    }

    async fn due_rooms(&self, now: Millis, limit: usize) -> Result<Vec<RoomId>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // One query per shard, all at once; each returns at most `limit`, so a sweep's work is
        // bounded by SHARDS × limit entries however many rooms are overdue.
        let mut queries = JoinSet::new();
        for shard in 0..SHARDS {
            let store = self.clone();
            queries.spawn(async move { store.due_in_shard(shard, now, limit).await });
        }
        let mut due = Vec::new();
        while let Some(joined) = queries.join_next().await {
            let entries = joined.map_err(|e| StoreError::Unavailable(Box::new(e)))??;
            due.extend(entries);
        }
        due.sort_unstable();
        due.truncate(limit);
        // Every stored id went in as a `RoomId`.
        Ok(due
            .into_iter()
            .filter_map(|(_, id)| RoomId::parse(&id))
            .collect())
    }

    async fn load_review(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> Result<Option<KeptReview>, StoreError> {
        let id = id.as_str();
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(ID, string(&review_key(id)))
            .consistent_read(true)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Read, out.consumed_capacity(), 0);
        let Some(found) = out.item else {
            return Ok(None);
        };
        let expires = item::optional_number(&found, item::EXPIRES)?.unwrap_or(0);
        if expires * 1000 <= now {
            return Ok(None);
        }
        Ok(Some(match found.get(REVIEW_BODY) {
            Some(AttributeValue::S(body)) => KeptReview::Done(body.clone()),
            _ => KeptReview::Computing {
                since: item::optional_number(&found, REVIEW_CLAIMED)?.unwrap_or(0),
            },
        }))
    }

    async fn claim_review(
        &self,
        id: &RoomId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<bool, StoreError> {
        let id = id.as_str();
        // One conditional put: no item, an expired one, or a stale claim without a review.
        let sent = self
            .client
            .put_item()
            .table_name(&self.table)
            .item(ID, string(&review_key(id)))
            .item(REVIEW_CLAIMED, item::number(now))
            .item(item::EXPIRES, item::number(item::ttl_seconds(expires_at)))
            .condition_expression(
                "attribute_not_exists(#id) OR #x <= :now_s \
                 OR (attribute_not_exists(#r) AND #c <= :stale)",
            )
            .expression_attribute_names("#id", ID)
            .expression_attribute_names("#x", item::EXPIRES)
            .expression_attribute_names("#r", REVIEW_BODY)
            .expression_attribute_names("#c", REVIEW_CLAIMED)
            .expression_attribute_values(":now_s", item::number(now / 1000))
            .expression_attribute_values(
                ":stale",
                item::number(now.saturating_sub(REVIEW_CLAIM_STALE_MS)),
            )
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.as_service_error(),
                    Some(PutItemError::ConditionalCheckFailedException(_))
                ) =>
            {
                self.record_conditional_failure();
                Ok(false)
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn save_review(
        &self,
        id: &RoomId,
        review: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError> {
        let id = id.as_str();
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .item(ID, string(&review_key(id)))
            .item(REVIEW_BODY, string(review))
            .item(REVIEW_CLAIMED, item::number(0))
            .item(item::EXPIRES, item::number(item::ttl_seconds(expires_at)))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await
            .map_err(unavailable)?;
        self.record(Call::Write, out.consumed_capacity(), 0);
        Ok(())
    }

    async fn reindex(
        &self,
        id: &RoomId,
        expected: u64,
        due: Option<Millis>,
    ) -> Result<(), StoreError> {
        let id = id.as_str();
        // The exact time, earlier or later: only the sweeper calls this, after finding that the
        // room at `expected` has nothing to fire yet. The version stays; the condition on it
        // keeps a stale sweeper from undoing a save's index write.
        let mut values =
            std::collections::HashMap::from([(":expected".to_owned(), item::number(expected))]);
        let update = match due {
            Some(due) => {
                values.insert(":d".to_owned(), item::number(due));
                values.insert(":s".to_owned(), AttributeValue::S(item::shard_of(id)));
                "SET d = :d, s = :s"
            }
            None => "REMOVE d, s",
        };
        let sent = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(ID, string(id))
            .update_expression(update)
            .condition_expression("v = :expected")
            .set_expression_attribute_values(Some(values))
            // For the meter, the old `d`: did the entry really move? (All of the old item, as
            // moto leaves unchanged attributes out of UPDATED_OLD; the values cost no units.)
            .set_return_values(self.meter.as_ref().map(|_| ReturnValue::AllOld))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                let before = match out.attributes() {
                    Some(old) => item::optional_number(old, DUE)?,
                    None => None,
                };
                let index_units = item::index_write_units(before, due);
                self.record(Call::Write, out.consumed_capacity(), index_units);
                Ok(())
            }
            Err(e) if condition_failed(&e).is_some() => {
                self.record_conditional_failure();
                Err(StoreError::VersionConflict { current: None })
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn keep_plan(&self, id: &RoomId, expected: u64, plan: &[u8]) -> Result<(), StoreError> {
        let id = id.as_str();
        // One attribute set, conditional on the version: the body, the index and presence stay.
        let values = std::collections::HashMap::from([
            (":expected".to_owned(), item::number(expected)),
            (
                ":k".to_owned(),
                AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(plan.to_vec())),
            ),
        ]);
        let sent = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(ID, string(id))
            .update_expression(format!("SET {} = :k", item::PLAN))
            .condition_expression("v = :expected")
            .set_expression_attribute_values(Some(values))
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            Err(e) if condition_failed(&e).is_some() => {
                self.record_conditional_failure();
                // No item at all fails the condition too: tell a gone room from a moved one.
                match self.read_item(id, true).await? {
                    Some(_) => Err(StoreError::VersionConflict { current: None }),
                    None => Err(StoreError::NotFound),
                }
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn wait_for_change(
        &self,
        id: &RoomId,
        after: u64,
        timeout: Duration,
    ) -> Result<Option<StoredRoom>, StoreError> {
        let id = id.as_str();
        // No notifications from DynamoDB short of streams, so poll with eventually consistent
        // reads (half price) at a fixed step; a read that lags a save is caught by the next one.
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match self.read(id, false).await? {
                Some(room) if room.version > after => return Ok(Some(room)),
                Some(_) => {}
                None => return Err(StoreError::NotFound),
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            // The last sleep ends at the deadline, for one final read.
            tokio::time::sleep(WAIT_STEP.min(deadline - now)).await;
        }
    }

    async fn touch(&self, id: &RoomId, player: &str, now: Millis) -> Result<(), StoreError> {
        let id = id.as_str();
        // Only this player's entry of `p`: no version, no body, so a touch never conflicts with
        // a save, and a save (which never writes `p`) never undoes a touch. The player id is a
        // name placeholder because ids may hold characters a document path cannot. The entry
        // only moves forward: two requests of one player can finish out of order, and the
        // older must not make the player look disconnected earlier than they were.
        let sent = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(ID, string(id))
            .update_expression("SET p.#player = :now")
            .condition_expression(
                "attribute_exists(id) AND (attribute_not_exists(p.#player) OR p.#player < :now)",
            )
            .expression_attribute_names("#player", player)
            .expression_attribute_values(":now", item::number(now))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .set_return_consumed_capacity(self.capacity())
            .send()
            .await;
        match sent {
            Ok(out) => {
                self.record(Call::Write, out.consumed_capacity(), 0);
                Ok(())
            }
            // The room is there: the entry already holds this time or a later one.
            Err(e) if condition_failed(&e).is_some_and(|f| f.item().is_some()) => {
                self.record_conditional_failure();
                Ok(())
            }
            // No item came back: the room is missing (without the condition the update would
            // create a stray item) — or the emulator does not return items with a failed
            // condition (dynalite), and only a read tells. Rare: a touch is due every 15 s.
            Err(e) if condition_failed(&e).is_some() => {
                self.record_conditional_failure();
                match self.read_item(id, true).await? {
                    Some(_) => Ok(()),
                    None => Err(StoreError::NotFound),
                }
            }
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn peek(&self, id: &RoomId, now: Millis) -> Result<StoredRoom, StoreError> {
        let id = id.as_str();
        match self.read(id, false).await? {
            Some(room) if room.expires_at > now => Ok(room),
            _ => Err(StoreError::NotFound),
        }
    }

    #[cfg(feature = "dev")]
    async fn clock_offset(&self) -> Result<Option<Millis>, StoreError> {
        // Strongly consistent: an advance made through one process must be seen by the next
        // request, whichever process serves it. Only `MADANG_DEV=1` servers ever read this.
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(ID, string(CLOCK_ID))
            .projection_expression(CLOCK_OFFSET)
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        match out.item {
            Some(item) => Ok(Some(
                item::optional_number(&item, CLOCK_OFFSET)?.unwrap_or(0),
            )),
            None => Ok(Some(0)),
        }
    }

    #[cfg(feature = "dev")]
    async fn advance_clock(&self, ms: Millis) -> Result<Option<Millis>, StoreError> {
        // ADD is atomic: two processes advancing at once both count.
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(ID, string(CLOCK_ID))
            .update_expression("ADD o :ms")
            .expression_attribute_values(":ms", item::number(ms))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(unavailable)?;
        let offset = match out.attributes() {
            Some(new) => item::optional_number(new, CLOCK_OFFSET)?,
            None => None,
        };
        Ok(Some(offset.unwrap_or(ms)))
    }
}
