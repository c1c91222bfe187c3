//! A table to JSON and back: the emulator-testable half of the restore procedure
//! (docs/operate.md). `export` scans every item of a table into DynamoDB JSON (one object per
//! item, `{"id": {"S": "…"}, "v": {"N": "7"}, …}`, as `aws dynamodb scan` prints them);
//! `import` puts them into another table (which must exist: `ensure_table` or the template).
//! The `table_json` binary wraps both for an operator; the Lambda suite restores a table with
//! live rooms through them and plays on.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

/// One attribute value as DynamoDB JSON.
pub fn to_json(value: &AttributeValue) -> Value {
    match value {
        AttributeValue::S(s) => json!({"S": s}),
        AttributeValue::N(n) => json!({"N": n}),
        AttributeValue::B(b) => json!({"B": BASE64.encode(b.as_ref())}),
        AttributeValue::Bool(b) => json!({"BOOL": b}),
        AttributeValue::Null(_) => json!({"NULL": true}),
        AttributeValue::Ss(v) => json!({"SS": v}),
        AttributeValue::Ns(v) => json!({"NS": v}),
        AttributeValue::Bs(v) => {
            json!({"BS": v.iter().map(|b| BASE64.encode(b.as_ref())).collect::<Vec<_>>()})
        }
        AttributeValue::L(v) => json!({"L": v.iter().map(to_json).collect::<Vec<_>>()}),
        AttributeValue::M(m) => {
            json!({"M": m.iter().map(|(k, v)| (k.clone(), to_json(v))).collect::<Map<_, _>>()})
        }
        other => panic!("an attribute type this tool does not know: {other:?}"),
    }
}

/// DynamoDB JSON back to an attribute value.
pub fn from_json(value: &Value) -> Result<AttributeValue, String> {
    let (kind, inner) = value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.iter().next())
        .ok_or_else(|| format!("not one typed attribute value: {value}"))?;
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{kind} needs a string: {value}"))
    };
    let texts = |v: &Value| -> Result<Vec<String>, String> {
        v.as_array()
            .ok_or_else(|| format!("{kind} needs an array: {value}"))?
            .iter()
            .map(text)
            .collect()
    };
    let blob = |s: String| {
        BASE64
            .decode(s)
            .map(Blob::new)
            .map_err(|e| format!("bad base64: {e}"))
    };
    Ok(match kind.as_str() {
        "S" => AttributeValue::S(text(inner)?),
        "N" => AttributeValue::N(text(inner)?),
        "B" => AttributeValue::B(blob(text(inner)?)?),
        "BOOL" => AttributeValue::Bool(inner.as_bool().ok_or("BOOL needs a boolean")?),
        "NULL" => AttributeValue::Null(true),
        "SS" => AttributeValue::Ss(texts(inner)?),
        "NS" => AttributeValue::Ns(texts(inner)?),
        "BS" => AttributeValue::Bs(
            texts(inner)?
                .into_iter()
                .map(blob)
                .collect::<Result<_, _>>()?,
        ),
        "L" => AttributeValue::L(
            inner
                .as_array()
                .ok_or("L needs an array")?
                .iter()
                .map(from_json)
                .collect::<Result<_, _>>()?,
        ),
        "M" => AttributeValue::M(
            inner
                .as_object()
                .ok_or("M needs an object")?
                .iter()
                .map(|(k, v)| Ok((k.clone(), from_json(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => return Err(format!("unknown attribute type {other}")),
    })
}

/// Every item of `table` (a strongly consistent scan, page by page), as DynamoDB JSON.
pub async fn export(client: &Client, table: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| format!("scan of {table}: {e:?}"))?;
        for item in page.items() {
            items.push(Value::Object(
                item.iter().map(|(k, v)| (k.clone(), to_json(v))).collect(),
            ));
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return Ok(items);
        }
    }
}

/// Puts every item into `table`, one `PutItem` each (a restore is rare; a write unit per item
/// under 1 KB), refusing to overwrite an item that is there already.
pub async fn import(client: &Client, table: &str, items: &[Value]) -> Result<usize, String> {
    for item in items {
        let fields = item
            .as_object()
            .ok_or_else(|| format!("an item is not an object: {item}"))?
            .iter()
            .map(|(k, v)| Ok((k.clone(), from_json(v)?)))
            .collect::<Result<_, String>>()?;
        client
            .put_item()
            .table_name(table)
            .set_item(Some(fields))
            .condition_expression("attribute_not_exists(id)")
            .send()
            .await
            .map_err(|e| format!("put into {table}: {e:?}"))?;
    }
    Ok(items.len())
}
