//! The answers of the end-to-end suites against the OpenAPI document the server generates
//! (`madang_functions::api::openapi_document`, served at `GET /openapi.json`): every JSON answer
//! that goes through [`crate::TestApp::send`] is validated with a JSON Schema validator against
//! the schema its route and status declare, and an answer whose status the route does not
//! declare fails the test.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Value, json};

use crate::Reply;

/// The generated document.
pub static DOCUMENT: LazyLock<Value> = LazyLock::new(madang_functions::api::openapi_document);

type Validators = Mutex<HashMap<(String, String, u16), Arc<Option<jsonschema::Validator>>>>;

static VALIDATORS: LazyLock<Validators> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The documented path template `path` (with its query) falls under.
pub fn template_of(path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('/').collect();
    DOCUMENT["paths"]
        .as_object()?
        .keys()
        .find(|t| {
            let ts: Vec<&str> = t.split('/').collect();
            ts.len() == parts.len()
                && ts
                    .iter()
                    .zip(&parts)
                    .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}')))
        })
        .cloned()
}

/// A validator for a schema of the document (its `$ref`s resolve against the document's
/// components).
pub fn validator(schema: &Value) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": DOCUMENT["components"],
        "allOf": [schema],
    });
    jsonschema::validator_for(&root).expect("the document's schemas compile")
}

/// The validator of the answer to `method path` with `status`; `None` for an answer without a
/// JSON body. Panics when the route or the status is not in the document.
fn validator_for(method: &str, template: &str, status: u16) -> Arc<Option<jsonschema::Validator>> {
    let key = (method.to_owned(), template.to_owned(), status);
    if let Some(v) = VALIDATORS.lock().unwrap().get(&key) {
        return v.clone();
    }
    let operation = &DOCUMENT["paths"][template][method];
    assert!(
        operation.is_object(),
        "{method} {template} is not in the OpenAPI document"
    );
    let response = &operation["responses"][status.to_string()];
    assert!(
        response.is_object(),
        "{method} {template} answered {status}, which the OpenAPI document does not declare"
    );
    let schema = response["content"].as_object().and_then(|c| {
        c.iter()
            .find(|(kind, _)| kind.ends_with("json"))
            .map(|(_, media)| media["schema"].clone())
    });
    let compiled = Arc::new(schema.map(|s| validator(&s)));
    VALIDATORS.lock().unwrap().insert(key, compiled.clone());
    compiled
}

/// Checks a room view that came some other way than `GET /rooms/{id}` (a live `version`
/// frame's `room`) against the schema of that route's 200 answer: it must be the same view.
pub fn check_room_view(room: &Value) {
    let template = template_of("/rooms/x").expect("GET /rooms/{id} is documented");
    let compiled = validator_for("get", &template, 200);
    let v = compiled
        .as_ref()
        .as_ref()
        .expect("GET /rooms/{id} answers JSON");
    assert_valid(v, room, "live version frame: get", &template, 200);
}

/// Checks one answer against the document; panics with every violation.
pub fn check_answer(method: &str, path: &str, reply: &Reply) {
    let Some(template) = template_of(path) else {
        // Paths the API does not have answer with the fallback's problem (404 NO_SUCH_ROUTE).
        let problem = validator(&json!({"$ref": "#/components/schemas/Problem"}));
        if reply.body != Value::Null {
            assert_valid(&problem, &reply.body, method, path, reply.status.as_u16());
        }
        return;
    };
    let status = reply.status.as_u16();
    let compiled = validator_for(method, &template, status);
    if let Some(v) = compiled.as_ref() {
        assert_valid(v, &reply.body, method, path, status);
    }
}

fn assert_valid(v: &jsonschema::Validator, body: &Value, method: &str, path: &str, status: u16) {
    let errors: Vec<String> = v
        .iter_errors(body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(10)
        .collect();
    assert!(
        errors.is_empty(),
        "{method} {path} → {status} does not match the OpenAPI document:\n{}\nbody: {body}",
        errors.join("\n")
    );
}
