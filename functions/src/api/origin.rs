//! The origin check behind a CDN (issue 18; `template.yaml` with `Cdn: CloudFront` and
//! `FrontDoor: HttpApi`; docs/deploy.md, "Behind CloudFront").
//!
//! CloudFront can sign its requests to a Function URL (origin access control, checked by Lambda
//! before the function runs), but not to API Gateway. Behind the CDN the HTTP API's default
//! `execute-api` endpoint is disabled and CloudFront reaches it through a custom domain, which is
//! itself public: so CloudFront adds a secret origin header ([`ORIGIN_HEADER`]) to every origin
//! request, and the function refuses any request that does not carry it — first thing, before
//! any other check, body read or store call — with 403 problem+json (`EDGE_ONLY`).
//!
//! The secret comes from [`ORIGIN_SECRET_ENV`], which the template sets only when a CDN is in
//! front (a value it generates in Secrets Manager, never typed by anyone); unset, nothing is
//! checked and nothing changes. While the secret is rotated, [`ORIGIN_SECRET_PREVIOUS_ENV`]
//! holds the one it replaces, and both are accepted: CloudFront's edges take minutes to all send
//! the new value, and a request that carries the old one meanwhile is still the edge's
//! (docs/operate.md, "Rotating the origin secret"). The secret is kept only as its SHA-256 digest, compared in
//! constant time ([`subtle`]) against the digest of what the request carries, so neither the
//! comparison's time nor the value's length tells a caller anything; it is never logged
//! (`Debug` shows no byte of it) and the header is removed from the request once checked, so no
//! handler or log line below this sees it.
//!
//! Behind the edge the viewer-request CloudFront Function has moved the player's `Authorization`
//! to `X-Madang-Authorization` (CloudFront drops `Authorization` from GET requests it does not
//! cache on, and does so for both front doors). A request that passed this check came through
//! that function, so its moved header is put back as `Authorization` for the handlers, by the
//! same rules: two moved tokens stay two (refused `DUPLICATE_HEADER`).

use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::extract::EDGE_AUTHORIZATION;
use crate::error::ApiError;

/// The header CloudFront adds to every origin request (the distribution's origin custom header;
/// a viewer's own header of that name is replaced by CloudFront's).
pub const ORIGIN_HEADER: &str = "x-madang-origin";

/// The environment variable that holds the secret, set only when a CDN is in front.
pub const ORIGIN_SECRET_ENV: &str = "MADANG_ORIGIN_SECRET";

/// The environment variable that holds the secret being replaced, during a rotation only.
pub const ORIGIN_SECRET_PREVIOUS_ENV: &str = "MADANG_ORIGIN_SECRET_PREVIOUS";

/// The shortest secret accepted: a guessable one would open the origin (the template generates
/// 48 letters and digits).
pub const MIN_SECRET_CHARS: usize = 32;

/// The stable code of the refusal.
pub const EDGE_ONLY: &str = crate::error::EDGE_ONLY.code;

/// The secret the edge's origin header must carry, as its SHA-256 digest (and, during a
/// rotation, the previous one's).
#[derive(Clone)]
pub struct OriginSecret {
    digest: [u8; 32],
    previous: Option<[u8; 32]>,
}

impl std::fmt::Debug for OriginSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not even the digest: a log line is no place for anything derived from the secret.
        f.write_str("OriginSecret(..)")
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&Sha256::digest(bytes));
    out
}

impl OriginSecret {
    /// A secret of at least [`MIN_SECRET_CHARS`] visible ASCII characters (what an HTTP header
    /// value carries unchanged). The error never quotes the value.
    pub fn new(secret: &str) -> Result<Self, String> {
        Ok(OriginSecret {
            digest: checked(ORIGIN_SECRET_ENV, secret)?,
            previous: None,
        })
    }

    /// The same, accepting `previous` too (a rotation's old secret, under the same rules).
    pub fn with_previous(self, previous: &str) -> Result<Self, String> {
        Ok(OriginSecret {
            previous: Some(checked(ORIGIN_SECRET_PREVIOUS_ENV, previous)?),
            ..self
        })
    }

    /// The secret of [`ORIGIN_SECRET_ENV`], with [`ORIGIN_SECRET_PREVIOUS_ENV`]'s accepted too
    /// when that is set; `None` when the secret is unset (no CDN in front: nothing is checked).
    /// Either set but empty or too short is an error, and so is a previous secret without a
    /// current one, so a broken deployment fails to start rather than opening its origin.
    pub fn from_env() -> Result<Option<Self>, String> {
        let current = var(ORIGIN_SECRET_ENV)?;
        let previous = var(ORIGIN_SECRET_PREVIOUS_ENV)?;
        match (current, previous) {
            (Some(current), None) => Self::new(&current).map(Some),
            (Some(current), Some(previous)) => {
                Self::new(&current)?.with_previous(&previous).map(Some)
            }
            (None, None) => Ok(None),
            (None, Some(_)) => Err(format!(
                "{ORIGIN_SECRET_PREVIOUS_ENV} is set without {ORIGIN_SECRET_ENV}: a rotation keeps \
                 the new secret in {ORIGIN_SECRET_ENV}"
            )),
        }
    }

    /// Admits a request that carries the secret in exactly one [`ORIGIN_HEADER`], and makes it
    /// what the handlers read (the header removed, the moved token back in `Authorization`).
    /// Anything else is refused 403 `EDGE_ONLY`.
    pub fn admit(&self, headers: &mut HeaderMap) -> Result<(), ApiError> {
        let mut values = headers.get_all(ORIGIN_HEADER).iter();
        let carried = match (values.next(), values.next()) {
            (Some(value), None) => digest(value.as_bytes()),
            _ => return Err(refused()),
        };
        // Both compared, whichever matches: the time tells nothing of which one did.
        let previous = self
            .previous
            .map_or(subtle::Choice::from(0), |p| carried.ct_eq(&p));
        if !bool::from(carried.ct_eq(&self.digest) | previous) {
            return Err(refused());
        }
        headers.remove(ORIGIN_HEADER);
        if headers.contains_key(EDGE_AUTHORIZATION) {
            // Why no SigV4 test here (as `extract::bearer` makes on the Function URL path): on
            // this path nothing signs, and the check above already proved the request came
            // through the edge's function, which drops any such header a viewer sent itself.
            let moved: Vec<_> = headers
                .get_all(EDGE_AUTHORIZATION)
                .iter()
                .cloned()
                .collect();
            headers.remove(EDGE_AUTHORIZATION);
            headers.remove(header::AUTHORIZATION);
            for value in moved {
                headers.append(header::AUTHORIZATION, value);
            }
        }
        Ok(())
    }
}

/// `secret`'s digest, if it is at least [`MIN_SECRET_CHARS`] visible ASCII characters (what an
/// HTTP header value carries unchanged); the error names `var`, never the value.
fn checked(var: &str, secret: &str) -> Result<[u8; 32], String> {
    if secret.len() < MIN_SECRET_CHARS || !secret.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "{var} must be at least {MIN_SECRET_CHARS} visible ASCII characters (its value is not \
             shown)"
        ));
    }
    Ok(digest(secret.as_bytes()))
}

/// The variable `name`, if set (not UTF-8 is an error).
fn var(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not valid UTF-8")),
    }
}

fn refused() -> ApiError {
    ApiError::from(crate::error::EDGE_ONLY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const SECRET: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCD";

    fn code(result: Result<(), ApiError>) -> Option<&'static str> {
        result.err().map(|e| e.status_and_code().1)
    }

    #[test]
    fn a_short_or_invisible_secret_is_refused_without_being_quoted() {
        for bad in ["", "short", &format!("{SECRET} "), &"é".repeat(40)] {
            let e = OriginSecret::new(bad).unwrap_err();
            assert!(bad.is_empty() || !e.contains(bad), "{e}");
        }
        let secret = OriginSecret::new(SECRET).unwrap();
        assert_eq!(format!("{secret:?}"), "OriginSecret(..)");
    }

    #[test]
    fn during_a_rotation_the_previous_secret_is_admitted_too_and_nothing_else() {
        const NEW: &str = "ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210abcd";
        let rotating = OriginSecret::new(NEW)
            .unwrap()
            .with_previous(SECRET)
            .unwrap();
        let settled = OriginSecret::new(NEW).unwrap();
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(ORIGIN_HEADER, HeaderValue::from_static(value));
            headers
        };
        for value in [NEW, SECRET] {
            assert_eq!(code(rotating.admit(&mut with(value))), None, "{value}");
        }
        assert_eq!(code(rotating.admit(&mut with("wrong"))), Some(EDGE_ONLY));
        // Once settled, the old secret opens nothing.
        assert_eq!(code(settled.admit(&mut with(SECRET))), Some(EDGE_ONLY));
        assert_eq!(code(settled.admit(&mut with(NEW))), None);
        // A short previous secret is refused as the current one is, without being quoted.
        let e = OriginSecret::new(NEW)
            .unwrap()
            .with_previous("short")
            .unwrap_err();
        assert!(
            e.contains(ORIGIN_SECRET_PREVIOUS_ENV) && !e.contains("short"),
            "{e}"
        );
    }

    #[test]
    fn only_the_one_right_header_is_admitted_and_it_goes_no_further() {
        let secret = OriginSecret::new(SECRET).unwrap();
        let mut headers = HeaderMap::new();
        assert_eq!(code(secret.admit(&mut headers)), Some(EDGE_ONLY));
        headers.insert(ORIGIN_HEADER, HeaderValue::from_static("wrong"));
        assert_eq!(code(secret.admit(&mut headers)), Some(EDGE_ONLY));
        // The right value with one byte more, or twice, is not the right value.
        let longer = format!("{SECRET}x");
        headers.insert(ORIGIN_HEADER, HeaderValue::from_str(&longer).unwrap());
        assert_eq!(code(secret.admit(&mut headers)), Some(EDGE_ONLY));
        headers.insert(ORIGIN_HEADER, HeaderValue::from_static(SECRET));
        headers.append(ORIGIN_HEADER, HeaderValue::from_static(SECRET));
        assert_eq!(code(secret.admit(&mut headers)), Some(EDGE_ONLY));
        headers.insert(ORIGIN_HEADER, HeaderValue::from_static(SECRET));
        headers.insert(EDGE_AUTHORIZATION, HeaderValue::from_static("Bearer t"));
        assert_eq!(code(secret.admit(&mut headers)), None);
        assert!(!headers.contains_key(ORIGIN_HEADER));
        assert!(!headers.contains_key(EDGE_AUTHORIZATION));
        assert_eq!(headers[header::AUTHORIZATION], "Bearer t");
    }
}
