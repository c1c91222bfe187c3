//! What the suite's proxies in front of dynalite share (the store proxy, the metering proxy,
//! the fault proxies of `lambda::metrics` and `lambda::faults`): reading a DynamoDB call as the
//! functions sent it, passing it on unchanged, and handing dynalite's answer back.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

/// A DynamoDB call as a proxy received it.
pub struct Call {
    /// Its method, path and headers.
    pub parts: Parts,
    /// Its JSON body.
    pub body: Bytes,
}

impl Call {
    /// Reads `request` whole.
    pub async fn read(request: Request) -> Call {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, 16 * 1024 * 1024)
            .await
            .unwrap_or_default();
        Call { parts, body }
    }

    /// Its `X-Amz-Target` (`DynamoDB_20120810.GetItem`), or `""`.
    pub fn target(&self) -> &str {
        self.parts
            .headers
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Its operation (`GetItem`), or `""`.
    pub fn operation(&self) -> &str {
        self.target().rsplit('.').next().unwrap_or("")
    }
}

/// dynalite's answer to a call passed on.
pub struct Answer {
    /// Its status.
    pub status: StatusCode,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body.
    pub body: Bytes,
}

impl Answer {
    /// The answer as the proxy's own (without the hop-by-hop headers the server sets again).
    pub fn into_response(self) -> Response {
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() = self.status;
        for (name, value) in &self.headers {
            if !matches!(
                name.as_str(),
                "content-length" | "transfer-encoding" | "connection"
            ) {
                response.headers_mut().insert(name, value.clone());
            }
        }
        response
    }
}

/// Passes `call` on to dynalite at `base`, with `body` (the call's own, or one the proxy
/// rewrote); `None` when dynalite did not answer.
pub async fn pass_on(
    http: &reqwest::Client,
    base: &str,
    call: &Call,
    body: Bytes,
) -> Option<Answer> {
    let path = call.parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut request = http.request(call.parts.method.clone(), format!("{base}{path}"));
    for (name, value) in &call.parts.headers {
        if !matches!(name.as_str(), "host" | "content-length" | "connection") {
            request = request.header(name, value);
        }
    }
    let answer = request.body(body).send().await.ok()?;
    let status = answer.status();
    let headers = answer.headers().clone();
    let body = answer.bytes().await.unwrap_or_default();
    Some(Answer {
        status,
        headers,
        body,
    })
}
