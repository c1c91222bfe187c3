//! A metering proxy in front of dynalite, for the functions' processes: the real `api`, `live`
//! and `sweeper` binaries carry no [`madang_infra::dynamo::capacity::CapacityMeter`] (a
//! production build never asks DynamoDB for its consumed capacity), so the proxy asks for them.
//!
//! - Every call is forwarded with `ReturnConsumedCapacity: TOTAL` added (dynalite checks the
//!   shape of a request's signature, not the signature itself, so the changed body passes), and
//!   the `ConsumedCapacity` of the answer is added up as read or write units — dynalite computes
//!   it from the item's size, as DynamoDB does. The answer goes back to the function unchanged.
//! - **Index writes**, which dynalite does not report, are counted as the store's own meter
//!   counts them (`madang_infra::dynamo::item::index_write_units`): every write of a room item
//!   is bracketed by reads of its due time `d` (past the meter, serialised), and a put, delete or
//!   change of the entry costs one unit per index entry written.
//! - The dev clock (`#clock`, read by every request of a `MADANG_DEV=1` function and written by
//!   `POST /dev/clock`) is test machinery: its calls are forwarded and not counted.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use madang_infra::DynamoStore;
use madang_infra::dynamo::capacity::CapacityReport;
use madang_infra::dynamo::item::index_write_units;
use madang_tests::dynamo_proxy::{Call, pass_on};
use serde_json::{Value, json};

/// A running proxy.
pub struct MeterProxy {
    /// Where to point the functions' `AWS_ENDPOINT_URL_DYNAMODB`.
    pub url: String,
    meter: Arc<Mutex<Meters>>,
}

/// Everything, and the live registry's items (`#live#…`, `#conn#…`) alone.
#[derive(Clone, Copy, Default)]
struct Meters {
    all: CapacityReport,
    registry: CapacityReport,
}

impl MeterProxy {
    /// What the functions consumed so far.
    pub fn report(&self) -> CapacityReport {
        self.meter.lock().unwrap().all
    }

    /// What the functions consumed so far on the live registry's items.
    pub fn registry(&self) -> CapacityReport {
        self.meter.lock().unwrap().registry
    }
}

#[derive(Clone)]
struct Upstream {
    base: String,
    http: reqwest::Client,
    meter: Arc<Mutex<Meters>>,
    /// The table seen past the proxy (for the due time around a write).
    store: Arc<DynamoStore>,
    /// Writes of room items, one at a time, so the due time read around one is its own.
    writing: Arc<tokio::sync::Mutex<()>>,
}

/// Starts a proxy to `upstream` (dynalite) on a loopback port; `store` is the same table, seen
/// directly.
pub async fn start(upstream: &str, store: Arc<DynamoStore>) -> MeterProxy {
    let meter = Arc::new(Mutex::new(Meters::default()));
    let state = Upstream {
        base: upstream.trim_end_matches('/').to_owned(),
        http: reqwest::Client::new(),
        meter: meter.clone(),
        store,
        writing: Arc::new(tokio::sync::Mutex::new(())),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = Router::new().fallback(forward).with_state(state);
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    MeterProxy {
        url: format!("http://{addr}"),
        meter,
    }
}

const READS: [&str; 5] = [
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];

/// The `id` a single-item call names (`Key` or `Item`).
fn item_id(sent: &Value) -> Option<String> {
    sent["Key"]["id"]["S"]
        .as_str()
        .or_else(|| sent["Item"]["id"]["S"].as_str())
        .map(str::to_owned)
}

/// The indexed due time of room `id`, read past the proxy.
async fn due_of(store: &DynamoStore, id: &str) -> Option<u64> {
    let out = store
        .client()
        .get_item()
        .table_name(store.table())
        .key("id", AttributeValue::S(id.to_owned()))
        .projection_expression("d")
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item
        .and_then(|i| i.get("d").and_then(|d| d.as_n().ok()).cloned())
        .map(|d| d.parse().unwrap())
}

async fn forward(State(up): State<Upstream>, request: Request) -> Response {
    let call = Call::read(request).await;
    let op = call.operation().to_owned();
    let mut sent: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
    let id = item_id(&sent);
    let is_read = READS.contains(&op.as_str());
    let is_write = WRITES.contains(&op.as_str());
    let metered = (is_read || is_write) && id.as_deref() != Some("#clock");
    let room_write = is_write && id.as_deref().is_some_and(|id| !id.starts_with('#'));
    let body = if metered {
        sent["ReturnConsumedCapacity"] = json!("TOTAL");
        Bytes::from(sent.to_string())
    } else {
        call.body.clone()
    };
    // A room's write and the reads of its due time around it, one at a time.
    let _writing = if room_write {
        Some(up.writing.lock().await)
    } else {
        None
    };
    let due_before = match (&id, room_write) {
        (Some(id), true) => due_of(&up.store, id).await,
        _ => None,
    };
    let Some(answer) = pass_on(&up.http, &up.base, &call, body).await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let (status, bytes) = (answer.status, &answer.body);
    if metered {
        let index_units = match (&id, room_write && status == StatusCode::OK) {
            (Some(id), true) => index_write_units(due_before, due_of(&up.store, id).await),
            _ => 0,
        };
        let answered: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
        let units: f64 = match &answered["ConsumedCapacity"] {
            Value::Array(all) => all.iter().filter_map(|c| c["CapacityUnits"].as_f64()).sum(),
            one => one["CapacityUnits"].as_f64().unwrap_or(0.0),
        };
        let registry = id
            .as_deref()
            .is_some_and(|id| id.starts_with("#live#") || id.starts_with("#conn#"));
        let mut meters = up.meter.lock().unwrap();
        let meters = &mut *meters;
        let mut counted = vec![&mut meters.all];
        if registry {
            counted.push(&mut meters.registry);
        }
        for meter in counted {
            count(meter, status, is_read, units, index_units, bytes);
        }
    }
    answer.into_response()
}

/// Adds one answered call to `meter`.
fn count(
    meter: &mut CapacityReport,
    status: StatusCode,
    is_read: bool,
    units: f64,
    index_units: u64,
    answer: &[u8],
) {
    if status == StatusCode::OK {
        if is_read {
            meter.reads += 1;
            meter.read_units += units;
        } else {
            meter.writes += 1;
            meter.write_units += units;
            meter.index_write_units += index_units;
        }
    } else if String::from_utf8_lossy(answer).contains("ConditionalCheckFailedException") {
        meter.conditional_failures += 1;
    }
}
