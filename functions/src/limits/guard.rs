//! The counters of one router, and the checks of a request's head that every route passes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::HttpBody;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};

use super::Client;
use super::polls::{PollCount, PollSlot};
use super::rate::RateTable;
use crate::api::extract::MAX_BODY_BYTES;
use crate::app::Limits;
use crate::error::ApiError;

/// The most header lines a request may carry (hyper's own default, answered here as
/// problem+json: the server lets hyper parse up to [`crate::serve::HYPER_MAX_HEADERS`]).
pub const MAX_HEADERS: usize = 100;

/// The limits of one router and the counters behind them.
#[derive(Debug)]
pub struct Guard {
    limits: Limits,
    creates: RateTable,
    joins: RateTable,
    polls: Arc<PollCount>,
}

fn refused(wait: Duration) -> ApiError {
    ApiError::RateLimited {
        retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
    }
}

impl Guard {
    /// Fresh counters for `limits`.
    pub fn new(limits: Limits) -> Self {
        Guard {
            limits,
            creates: RateTable::new(limits.creates_per_minute),
            joins: RateTable::new(limits.joins_per_minute),
            polls: Arc::new(PollCount::new(limits.polls_per_client, limits.polls_total)),
        }
    }

    /// `POST /rooms`: one room from `client`'s budget.
    pub fn create(&self, client: Client) -> Result<(), ApiError> {
        self.creates.take(client, Instant::now()).map_err(refused)
    }

    /// `POST /rooms/{id}/players`: one join from `client`'s budget.
    pub fn join(&self, client: Client) -> Result<(), ApiError> {
        self.joins.take(client, Instant::now()).map_err(refused)
    }

    /// A long-poll of `client` (a read that may be held open): its slot, held until the answer.
    pub fn poll(&self, client: Client) -> Result<PollSlot, ApiError> {
        self.polls.open(client).ok_or(ApiError::TooManyPolls)
    }

    /// The checks of a request's head, before any route: the header block's size and count, a
    /// declared body over the limit (413 at once, before a byte of it is read), and a body's
    /// content type (so a cross-site `text/plain` form post, which needs no CORS preflight, is
    /// refused). Refusals change nothing.
    pub fn admit_head(&self, request: &Request) -> Result<(), ApiError> {
        let headers = request.headers();
        if headers.len() > MAX_HEADERS || header_bytes(headers) > self.limits.max_header_bytes {
            return Err(ApiError::HeadersTooLarge);
        }
        if declared_length(headers).is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return Err(ApiError::TooLarge);
        }
        let has_body = request.body().size_hint().upper() != Some(0);
        if has_body && request.method() != Method::GET && !is_json(headers) {
            return Err(ApiError::UnsupportedMediaType);
        }
        Ok(())
    }
}

/// The body length a request declares (`Content-Length`), if it declares one.
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The size of a header block as it came over the wire: `name: value\r\n` per header.
pub fn header_bytes(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum()
}

/// Whether a body is declared as JSON: `application/json` or any `application/*+json`, with
/// parameters (`; charset=utf-8`) allowed.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("application")
        && (sub.eq_ignore_ascii_case("json")
            || sub.len() > 5 && sub[sub.len() - 5..].eq_ignore_ascii_case("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_bodies_pass() {
        let with = |ct: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, ct.parse().unwrap());
            is_json(&h)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(with("application/merge-patch+json"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!with("multipart/form-data; boundary=x"));
        assert!(!with("application/jsonx"));
        assert!(!is_json(&HeaderMap::new()));
    }
}
