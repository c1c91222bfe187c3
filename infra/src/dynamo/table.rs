//! Creating the rooms table when it is missing: for the local server against an emulator, and
//! for the tests. In AWS the SAM template owns the table, with the same shape.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    Projection, ProjectionType, ScalarAttributeType, TableStatus, TimeToLiveSpecification,
    TimeToLiveStatus,
};

use super::item::{DUE, DUE_INDEX, EXPIRES, ID, SHARD};
use super::unavailable;
use crate::store::{BoxError, StoreError};

/// How long `ensure_table` waits for a new table to become usable. Real DynamoDB takes seconds.
const ACTIVE_WITHIN: Duration = Duration::from_secs(120);
const POLL_EVERY: Duration = Duration::from_millis(100);

/// Makes sure the rooms table `name` exists with the store's shape: hash key `id`, on-demand
/// billing, the sparse keys-only due index, and TTL on `x`. Creates what is missing and waits
/// until the table and its index are ACTIVE. Safe to call from several processes at once.
///
/// An existing table is taken as it is (its key schema is not compared).
pub(super) async fn ensure_rooms_table(client: &Client, name: &str) -> Result<(), StoreError> {
    match client.describe_table().table_name(name).send().await {
        Ok(_) => {}
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_resource_not_found_exception()) =>
        {
            create(client, name).await?;
        }
        Err(e) => return Err(unavailable(e)),
    }
    wait_until_active(client, name).await?;
    enable_ttl(client, name).await
}

/// One key of a table or index schema (shared with the chat table's creation).
pub(super) fn key(attribute: &str, key_type: KeyType) -> Result<KeySchemaElement, StoreError> {
    KeySchemaElement::builder()
        .attribute_name(attribute)
        .key_type(key_type)
        .build()
        .map_err(|e| StoreError::Unavailable(Box::new(e)))
}

/// One attribute definition of a table schema (shared with the chat table's creation).
pub(super) fn attribute(
    attribute: &str,
    kind: ScalarAttributeType,
) -> Result<AttributeDefinition, StoreError> {
    AttributeDefinition::builder()
        .attribute_name(attribute)
        .attribute_type(kind)
        .build()
        .map_err(|e| StoreError::Unavailable(Box::new(e)))
}

async fn create(client: &Client, name: &str) -> Result<(), StoreError> {
    let due_index = GlobalSecondaryIndex::builder()
        .index_name(DUE_INDEX)
        .key_schema(key(SHARD, KeyType::Hash)?)
        .key_schema(key(DUE, KeyType::Range)?)
        // The sweeper needs only the room id (the table key, always projected) and the due
        // time: keys only keeps every index write at one unit.
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
        )
        .build()
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
    let created = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(SHARD, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(DUE, ScalarAttributeType::N)?)
        .key_schema(key(ID, KeyType::Hash)?)
        .global_secondary_indexes(due_index)
        .send()
        .await;
    match created {
        Ok(_) => Ok(()),
        // Someone else created it between our describe and our create: fine, wait for it.
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_resource_in_use_exception()) =>
        {
            Ok(())
        }
        Err(e) => Err(unavailable(e)),
    }
}

pub(super) async fn wait_until_active(client: &Client, name: &str) -> Result<(), StoreError> {
    let deadline = tokio::time::Instant::now() + ACTIVE_WITHIN;
    loop {
        let described = client
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(unavailable)?;
        let active = described.table().is_some_and(|table| {
            table.table_status() == Some(&TableStatus::Active)
                && table
                    .global_secondary_indexes()
                    .iter()
                    .all(|index| index.index_status() == Some(&IndexStatus::Active))
        });
        if active {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(StoreError::Unavailable(BoxError::from(format!(
                "table {name} is not ACTIVE after {ACTIVE_WITHIN:?}"
            ))));
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

async fn enable_ttl(client: &Client, name: &str) -> Result<(), StoreError> {
    let spec = TimeToLiveSpecification::builder()
        .attribute_name(EXPIRES)
        .enabled(true)
        .build()
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
    enable_ttl_with(client, name, spec).await
}

/// Turns TTL on as `spec` says, unless it is on already.
pub(super) async fn enable_ttl_with(
    client: &Client,
    name: &str,
    spec: TimeToLiveSpecification,
) -> Result<(), StoreError> {
    let described = client
        .describe_time_to_live()
        .table_name(name)
        .send()
        .await
        .map_err(unavailable)?;
    let status = described
        .time_to_live_description()
        .and_then(|ttl| ttl.time_to_live_status());
    if matches!(
        status,
        Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
    ) {
        return Ok(());
    }
    match client
        .update_time_to_live()
        .table_name(name)
        .time_to_live_specification(spec)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        // dynalite does not implement UpdateTimeToLive (it never expires items either). Reads
        // treat expired rooms as gone whatever TTL does, so the store works the same without it.
        Err(e) if e.code() == Some("UnknownOperationException") => {
            tracing::warn!(table = name, "this DynamoDB does not support TTL; skipped");
            Ok(())
        }
        Err(e) => Err(unavailable(e)),
    }
}
