//! gzip for JSON answers (issue 18), on every route and both servers: the local one and Lambda
//! (where `lambda_http` sends a body with `Content-Encoding` as binary, base64 in the event,
//! and API Gateway passes it through as the bytes it was).
//!
//! - Only `application/json` and `application/problem+json`, only when `Accept-Encoding`
//!   accepts gzip, and only bodies of at least [`MIN_BYTES`]. The web files are gzipped once
//!   at start-up by `web.rs`, and SGF is left as it is.
//! - Every JSON answer carries `Vary: Accept-Encoding`, compressed or not: a cache must not
//!   hand a gzipped answer to a client that did not ask for one, nor the other way round.
//! - ETags stay right. The plain and the gzipped bytes are two representations of one room
//!   version, so an answer to a request that accepts gzip carries the weak tag `W/"V"` (also
//!   when it is small, or a 304: one client always sees one tag per version), and a request
//!   without gzip keeps the strong `"V"` (the JS client builds `"V"` from the version itself).
//!   `If-None-Match` is compared weakly (RFC 9110 §13.1.2): [`negotiate`] drops the `W/` of
//!   the tags it names, so the handlers compare opaque tags as before.
//! - 304 has no body, so it is never compressed.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flate2::write::DeflateEncoder;
use flate2::{Compression, Crc};
use std::cell::RefCell;
use std::io::Write;

use crate::error::ApiError;

/// The smallest body compressed, in bytes. Below it gzip saves no packet: the whole answer
/// (about 400 bytes of headers with it) already fits in one 1,500-byte Ethernet frame, and the
/// 18 bytes of gzip framing and the deflate block eat most of what a short body would gain.
/// Problems (a few hundred bytes) and `{"seq":N}` stay plain; room views (2–30 KB) do not.
pub const MIN_BYTES: usize = 1024;

/// The deflate level. Level 1 keeps most of the gain at a fraction of the default's (6) time
/// on these bodies: figures in BENCHMARKS.md, "gzip of JSON answers".
const LEVEL: u32 = 1;

/// Whether the answer to `request` may be gzipped (its `If-None-Match`, which a gzipped
/// answer's weak ETag comes back in, is compared weakly by [`super::conditional`]).
pub fn negotiate(request: &Request) -> bool {
    super::web::accepts_gzip(request.headers())
}

/// Whether the answer is JSON (a view, a problem, a schema).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| {
            let t = t.trim();
            t.eq_ignore_ascii_case("application/json")
                || t.eq_ignore_ascii_case("application/problem+json")
        })
}

/// The answer as the client accepts it (see the module doc). `gzip` is what [`negotiate`]
/// returned for its request.
pub async fn json(gzip: bool, mut response: Response) -> Response {
    // An answer that negotiated its own coding (the web files) is left as it is.
    if response.headers().contains_key(header::VARY) {
        return response;
    }
    // A bare 304 answers a JSON read (a room, the chat): it varies, and is tagged, as its 200.
    let json = is_json(response.headers());
    let bare_304 = response.status() == StatusCode::NOT_MODIFIED
        && !response.headers().contains_key(header::CONTENT_TYPE);
    if !json && !bare_304 {
        return response;
    }
    let headers = response.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !gzip {
        return response;
    }
    weaken_etag(headers);
    if !json || headers.contains_key(header::CONTENT_ENCODING) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Views and problems are whole in memory already (never a stream), so this copies nothing
    // that was not there.
    let Ok(plain) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::from(crate::error::INTERNAL).into_response();
    };
    if plain.len() < MIN_BYTES {
        return Response::from_parts(parts, Body::from(plain));
    }
    let Some(packed) = gzipped(&plain) else {
        return Response::from_parts(parts, Body::from(plain));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    Response::from_parts(parts, Body::from(packed))
}

/// `ETag: "V"` → `W/"V"`.
fn weaken_etag(headers: &mut HeaderMap) {
    let Some(tag) = headers.get(header::ETAG) else {
        return;
    };
    if tag.as_bytes().starts_with(b"W/") {
        return;
    }
    let mut weak = b"W/".to_vec();
    weak.extend_from_slice(tag.as_bytes());
    if let Ok(value) = HeaderValue::from_bytes(&weak) {
        headers.insert(header::ETAG, value);
    }
}

/// The gzip member header (RFC 1952 §2.3): magic, deflate, no flags, no time, the "fastest"
/// level flag, an unknown OS. The trailer (CRC-32 and length) is written by [`gzipped`].
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255];

thread_local! {
    /// One deflate encoder per worker thread, reset for every answer. A new encoder allocates
    /// and zeroes about 300 KB of tables (miniz_oxide's dictionary and hash chains): made per
    /// answer, that cost (page faults, `memset`, and the TLB shootdowns of returning the
    /// memory) was most of gzip's price, a third of the action route's throughput
    /// (BENCHMARKS.md, "The action path, profiled"). Reset keeps the tables, clears the state.
    static DEFLATE: RefCell<DeflateEncoder<Vec<u8>>> =
        RefCell::new(DeflateEncoder::new(Vec::new(), Compression::new(LEVEL)));
}

/// `bytes` in gzip, or `None` if the encoder failed (it writes to memory, so it does not).
fn gzipped(bytes: &[u8]) -> Option<Vec<u8>> {
    let length = u32::try_from(bytes.len()).ok()?;
    let mut out = Vec::with_capacity(bytes.len() / 4 + 32);
    out.extend_from_slice(&GZIP_HEADER);
    let mut out = DEFLATE.with_borrow_mut(|encoder| {
        // Swapping this answer's buffer in ends the previous stream into the buffer it held
        // (an empty one, dropped); swapping it out again ends this answer's stream in it.
        encoder.reset(out).ok()?;
        encoder.write_all(bytes).ok()?;
        encoder.reset(Vec::new()).ok()
    })?;
    let mut crc = Crc::new();
    crc.update(bytes);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn answer(status: StatusCode, content_type: Option<&str>, body: String) -> Response {
        let mut r = (status, body).into_response();
        r.headers_mut().remove(header::CONTENT_TYPE);
        if let Some(t) = content_type {
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_str(t).unwrap());
        }
        r.headers_mut()
            .insert(header::ETAG, HeaderValue::from_static("\"7\""));
        r
    }

    async fn body(r: Response) -> Vec<u8> {
        axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec()
    }

    #[tokio::test]
    async fn a_large_json_answer_is_gzipped_with_a_weak_tag_and_vary() {
        let text = format!("{{\"moves\":[{}]}}", "{\"x\":3,\"y\":4},".repeat(200));
        let r = json(
            true,
            answer(StatusCode::OK, Some("application/json"), text.clone()),
        )
        .await;
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(r.headers()[header::VARY], "accept-encoding");
        assert_eq!(r.headers()[header::ETAG], "W/\"7\"");
        let packed = body(r).await;
        assert!(packed.len() < text.len() / 4);
        let mut plain = String::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_string(&mut plain)
            .unwrap();
        assert_eq!(plain, text);
    }

    #[test]
    fn answers_in_a_row_on_one_thread_each_decode_whole() {
        // The encoder is reused (reset) between answers: no answer may carry a byte of the one
        // before it, whatever their sizes.
        for n in [3000, 50, 9000, 1024, 20_000, 1] {
            let text = (0..n)
                .map(|i| char::from(b'a' + (i % 23) as u8))
                .collect::<String>();
            let packed = gzipped(text.as_bytes()).unwrap();
            let mut plain = String::new();
            flate2::read::GzDecoder::new(packed.as_slice())
                .read_to_string(&mut plain)
                .unwrap();
            assert_eq!(plain, text);
        }
    }

    #[tokio::test]
    async fn small_plain_and_not_modified_answers_are_left_uncompressed() {
        let big = "x".repeat(4 * MIN_BYTES);
        let small = json(
            true,
            answer(StatusCode::OK, Some("application/json"), "{}".into()),
        )
        .await;
        assert!(small.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(small.headers()[header::ETAG], "W/\"7\"");
        let unasked = json(
            false,
            answer(StatusCode::OK, Some("application/json"), big.clone()),
        )
        .await;
        assert!(unasked.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(unasked.headers()[header::VARY], "accept-encoding");
        assert_eq!(unasked.headers()[header::ETAG], "\"7\"");
        let not_modified = json(true, answer(StatusCode::NOT_MODIFIED, None, String::new())).await;
        assert!(
            not_modified
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
        assert_eq!(not_modified.headers()[header::ETAG], "W/\"7\"");
        let sgf = json(
            true,
            answer(StatusCode::OK, Some("application/x-go-sgf"), big),
        )
        .await;
        assert!(sgf.headers().get(header::CONTENT_ENCODING).is_none());
        assert!(sgf.headers().get(header::VARY).is_none());
    }

    #[test]
    fn if_none_match_is_compared_weakly() {
        use super::super::conditional::tags;
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static("W/\"12\""));
        assert_eq!(tags(&headers).collect::<Vec<_>>().join(", "), "\"12\"");
        headers.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("W/\"1\", \"2\""),
        );
        assert_eq!(
            tags(&headers).collect::<Vec<_>>().join(", "),
            "\"1\", \"2\""
        );
    }
}
