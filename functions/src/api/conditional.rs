//! Conditional requests: `If-None-Match` (RFC 9110 §13.1.2), read in this one place for every
//! route — the rooms' and chat's reads (ETag `"V"`, `W/"V"` once gzipped) and the web app's
//! files.

use axum::http::{HeaderMap, header};

/// Whether the request's `If-None-Match` names `etag`, or is `*`: weak comparison (a `W/`
/// prefix counts for nothing on either side), over every tag of every `If-None-Match` header.
pub fn names(headers: &HeaderMap, etag: &str) -> bool {
    let ours = strong(etag);
    tags(headers).any(|tag| tag == "*" || tag == ours)
}

/// The one tag the request's `If-None-Match` names, without its `W/`, when it names exactly one.
pub fn only_tag(headers: &HeaderMap) -> Option<&str> {
    let mut tags = tags(headers);
    let tag = tags.next()?;
    tags.next().is_none().then_some(tag)
}

/// Every tag of the request's `If-None-Match` headers, in order, each without its `W/`.
pub fn tags(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|tag| !tag.is_empty())
        .map(strong)
}

/// A tag without its weak prefix.
fn strong(tag: &str) -> &str {
    tag.strip_prefix("W/").unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn with(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(header::IF_NONE_MATCH, HeaderValue::from_static(v));
        }
        headers
    }

    #[test]
    fn tags_are_read_from_every_header_and_list_and_compared_weakly() {
        let headers = with(&["W/\"1\", \"2\"", "\"3\""]);
        assert_eq!(
            tags(&headers).collect::<Vec<_>>(),
            ["\"1\"", "\"2\"", "\"3\""]
        );
        assert!(names(&headers, "\"1\""));
        assert!(names(&headers, "W/\"3\""));
        assert!(!names(&headers, "\"4\""));
        assert_eq!(only_tag(&headers), None);
        assert_eq!(only_tag(&with(&["W/\"7\""])), Some("\"7\""));
        assert!(names(&with(&["*"]), "\"9\""));
        assert!(!names(&HeaderMap::new(), "\"9\""));
    }
}
