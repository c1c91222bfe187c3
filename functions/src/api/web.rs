//! The reference web client (issue 12): `GET /`, `GET /r/{id}` and `GET /rules/{kind}` (규칙 보기,
//! issue 21) serve the app's page (`/r/{id}` with the room's link card in its head, and
//! `GET /r/{id}/card.png` the card's image: [`crate::card`]), `GET /app/{file}` its stylesheet, modules and install icons,
//! `GET /manifest.webmanifest` the web app manifest, `GET /client/madang.js` the client library of
//! `clients/js/`. Every file is embedded in the binary, so any deployment (local server or
//! Lambda) serves the same app with nothing beside it. These routes are not part of the JSON API
//! and are left out of the OpenAPI document ([`PATHS`]).

use std::io::Write as _;
use std::sync::LazyLock;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use flate2::Compression;
use flate2::write::GzEncoder;
use madang_infra::RoomStore;
use sha2::{Digest, Sha256};

use super::RoomId;
use crate::app::App;
use crate::card;
use crate::error::ApiError;
use crate::live::LiveUrl;
use crate::service;

/// The paths of the web client's routes, which the OpenAPI document leaves out.
pub const PATHS: &[&str] = &[
    "/",
    "/r/{id}",
    "/r/{id}/card.png",
    "/rules/{kind}",
    "/manifest.webmanifest",
    "/app/{file}",
    "/client/madang.js",
    "/sw.js",
];

const INDEX_HTML: &str = include_str!("../../../web/index.html");
const CLIENT_JS: &str = include_str!("../../../clients/js/src/madang.js");
/// The Web Push service worker, served at the root so that its scope is the whole app.
const SW_JS: &str = include_str!("../../../web/sw.js");

/// The app's files under `/app/`, with their media types.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    ("app.js", JS, include_str!("../../../web/app.js")),
    ("lobby.js", JS, include_str!("../../../web/lobby.js")),
    ("yut.js", JS, include_str!("../../../web/yut.js")),
    ("baduk.js", JS, include_str!("../../../web/baduk.js")),
    ("ui.js", JS, include_str!("../../../web/ui.js")),
    ("invite.js", JS, include_str!("../../../web/invite.js")),
    ("rules.js", JS, include_str!("../../../web/rules.js")),
    ("sound.js", JS, include_str!("../../../web/sound.js")),
    ("motion.js", JS, include_str!("../../../web/motion.js")),
    ("push.js", JS, include_str!("../../../web/push.js")),
    (
        "qrcode.mjs",
        JS,
        include_str!("../../../web/vendor/qrcode.mjs"),
    ),
    ("chat.js", JS, include_str!("../../../web/chat.js")),
    ("replay.js", JS, include_str!("../../../web/replay.js")),
];

/// The app's images under `/app/` (the install icons, made by `web/icons/make-icons.py`).
const IMAGES: &[(&str, &str, &[u8])] = &[
    (
        "icon-192.png",
        PNG,
        include_bytes!("../../../web/icons/icon-192.png"),
    ),
    (
        "icon-512.png",
        PNG,
        include_bytes!("../../../web/icons/icon-512.png"),
    ),
];

const MANIFEST: &str = include_str!("../../../web/manifest.webmanifest");
const PNG: &str = "image/png";

const JS: &str = "text/javascript; charset=utf-8";
const MANIFEST_TYPE: &str = "application/manifest+json";
const HTML: &str = "text/html; charset=utf-8";

/// Only the API on the same origin, and the live channel where `liveUrl` puts it; nothing from
/// anywhere else. [`csp`] fills in `connect-src`.
const CSP_BEFORE_CONNECT: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'";
const CSP_AFTER_CONNECT: &str = "; frame-ancestors 'none'; base-uri 'none'";

/// The page's Content-Security-Policy for a deployment whose live channel is `live`:
/// `connect-src` is `'self'` (the API, and the local server's own `/live`), plus the live
/// channel's origin when it is another (on AWS the WebSocket API's `wss://{api}.execute-api…`,
/// which the browser would otherwise refuse, leaving the app to poll) — that origin exactly,
/// never a wildcard or a scheme.
pub fn csp(live: &LiveUrl) -> HeaderValue {
    let policy = match live.foreign_origin() {
        Some(origin) => format!("{CSP_BEFORE_CONNECT} {origin}{CSP_AFTER_CONNECT}"),
        None => format!("{CSP_BEFORE_CONNECT}{CSP_AFTER_CONNECT}"),
    };
    // The origin is letters, digits and `.-:[]` only (`LiveUrl::foreign_origin`); should the
    // value still not be a header value, the policy without it is served.
    HeaderValue::from_str(&policy).unwrap_or_else(|_| {
        HeaderValue::from_static(concat!(
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; ",
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
        ))
    })
}

/// One embedded file in both of the forms it is served in.
struct File {
    media_type: &'static str,
    plain: &'static [u8],
    /// The gzip form, made once: the files are fixed for the life of the binary.
    gzip: Vec<u8>,
    /// Strong validators, one per form: two content codings of a file are two representations
    /// (RFC 9110 §8.8.3), so they must not share a strong `ETag`.
    etag: HeaderValue,
    gzip_etag: HeaderValue,
}

impl File {
    fn new(media_type: &'static str, plain: &'static [u8]) -> File {
        let digest = Sha256::digest(plain);
        let tag = hex::encode(&digest[..12]);
        // A PNG is compressed already: gzip would only cost time.
        let gzip = if media_type == PNG {
            Vec::new()
        } else {
            gzip(plain)
        };
        File {
            media_type,
            plain,
            gzip,
            etag: etag(&format!("\"{tag}\"")),
            gzip_etag: etag(&format!("\"{tag}-gz\"")),
        }
    }
}

/// Hex digits and quotes only, so the value is always a valid header value.
fn etag(quoted: &str) -> HeaderValue {
    HeaderValue::from_str(quoted).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// Best compression: it runs once per process, and every first load downloads the result.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 3), Compression::best());
    // Writing into a Vec cannot fail; should it ever, the plain form is served instead (an
    // empty gzip form is never chosen, see `respond`).
    if encoder.write_all(bytes).is_err() {
        return Vec::new();
    }
    encoder.finish().unwrap_or_default()
}

/// The page, the client library and the app's files, by request path, compressed on first use.
static FILES: LazyLock<Vec<(&'static str, File)>> = LazyLock::new(|| {
    let mut files = vec![
        ("/", File::new(HTML, INDEX_HTML.as_bytes())),
        ("/client/madang.js", File::new(JS, CLIENT_JS.as_bytes())),
        ("/sw.js", File::new(JS, SW_JS.as_bytes())),
        (
            "/manifest.webmanifest",
            File::new(MANIFEST_TYPE, MANIFEST.as_bytes()),
        ),
    ];
    files.extend(
        ASSETS
            .iter()
            .map(|(name, media_type, body)| (*name, File::new(media_type, body.as_bytes()))),
    );
    files.extend(
        IMAGES
            .iter()
            .map(|(name, media_type, body)| (*name, File::new(media_type, body))),
    );
    files
});

fn lookup(key: &str) -> Option<&'static File> {
    FILES.iter().find(|(k, _)| *k == key).map(|(_, f)| f)
}

/// Whether `Accept-Encoding` accepts gzip: listed (or `*` listed, gzip not) with a q-value
/// above zero (RFC 9110 §12.5.3).
pub(super) fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                gzip = Some(q > 0.0);
            } else if coding == "*" {
                any = Some(q > 0.0);
            }
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Whether `If-None-Match` names `etag` (or is `*`), compared weakly as RFC 9110 §13.1.2 says.
fn not_modified(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    etag.to_str()
        .is_ok_and(|ours| super::conditional::names(headers, ours))
}

/// The file in the form the request accepts, or `304 Not Modified` when it already has it.
fn respond(file: &'static File, request: &HeaderMap) -> Response {
    let gzip = accepts_gzip(request) && !file.gzip.is_empty();
    let etag = if gzip { &file.gzip_etag } else { &file.etag };
    let (status, body) = if not_modified(request, etag) {
        (StatusCode::NOT_MODIFIED, Body::empty())
    } else if gzip {
        (StatusCode::OK, Body::from(file.gzip.as_slice()))
    } else {
        (StatusCode::OK, Body::from(file.plain))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(file.media_type),
    );
    if gzip {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(header::ETAG, etag.clone());
    // Revalidate every load: the files change with a deployment; an unchanged file costs a
    // 304 without a body.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The page, with the deployment's CSP.
fn page<S>(app: &App<S>, request: &HeaderMap) -> Result<Response, ApiError> {
    let mut response = lookup("/")
        .map(|file| respond(file, request))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))?;
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, csp(&app.live.url));
    Ok(response)
}

/// `GET /`: the lobby.
pub async fn index<S: RoomStore>(
    State(app): State<App<S>>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    page(&app, &request)
}

/// `GET /r/{id}`: a room's share link; the app reads the id from the address. The page's head
/// carries the room's link card (Open Graph and Twitter tags, [`crate::card`]), for the link
/// previews of chat apps, which run no script: the game, the seats or the result, and the board
/// as `/r/{id}/card.png`. A room that is not there (or an id that is not one) gets the app's
/// own card, and the page as ever (the app says the room is gone).
pub async fn room<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    let base = public_base(&request);
    let room = match RoomId::parse(&id) {
        Some(id) => {
            tracing::Span::current().record("room", id.digest().as_str());
            match service::read::spectate(&app, &id).await {
                Ok((loaded, now)) => Some((
                    id,
                    loaded.room.version(),
                    card::summary(&loaded.room, &loaded.presence, now),
                )),
                Err(ApiError::RoomNotFound) => None,
                Err(e) => return Err(e),
            }
        }
        None => None,
    };
    let head = match &room {
        Some((id, version, summary)) => card_tags(base.as_deref(), Some((id, *version)), summary),
        None => card_tags(
            base.as_deref(),
            None,
            &card::Summary {
                title: card::APP_TITLE.into(),
                description: card::APP_DESCRIPTION.into(),
            },
        ),
    };
    let html = INDEX_HTML.replacen("</head>", &format!("{head}</head>"), 1);
    // Gzipped as the app's own page is, when the client takes it (a few KB: microseconds).
    let zipped = accepts_gzip(&request)
        .then(|| gzip(html.as_bytes()))
        .filter(|z| !z.is_empty());
    let gzipped = zipped.is_some();
    let mut response = Response::new(match zipped {
        Some(bytes) => Body::from(bytes),
        None => Body::from(html),
    });
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(HTML));
    if gzipped {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    // The tags change with the room: revalidate every load (there is no validator to revalidate
    // with, so it is a fresh page each time, like the room's own reads).
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONTENT_SECURITY_POLICY, csp(&app.live.url));
    Ok(response)
}

/// How long a shared cache may keep a card image. The image's address carries the room's
/// version (`?v=`), and a new version is a new `ETag`: a few minutes is only a bound on a stale
/// copy of an address shared without it.
const CARD_MAX_AGE: &str = "public, max-age=300";

/// `GET /r/{id}/card.png`: the board of the room as a spectator sees it, 1200×630
/// ([`crate::card::png`]). Its strong `ETag` is derived from the room's id and version (and the
/// drawing's [`crate::card::STYLE`]): `If-None-Match` with it is answered `304`.
pub async fn card_png<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    let (loaded, now) = service::read::spectate(&app, &id).await?;
    let etag = card_etag(&id, loaded.room.version());
    let (status, body) = if not_modified(&request, &etag) {
        (StatusCode::NOT_MODIFIED, Body::empty())
    } else {
        let png = card::png(&loaded.room, &loaded.presence, now);
        if png.is_empty() {
            return Err(ApiError::NotAvailable("카드를 그리지 못했어요."));
        }
        (StatusCode::OK, Body::from(png))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PNG));
    headers.insert(header::ETAG, etag);
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CARD_MAX_AGE),
    );
    Ok(response)
}

/// The card's strong validator: the first 16 bytes of SHA-256 over the room's id, its version
/// and the drawing's style, as hex.
fn card_etag(id: &RoomId, version: u64) -> HeaderValue {
    let digest = Sha256::digest(format!("{}\n{version}\n{}", id.as_str(), card::STYLE));
    etag(&format!("\"card-{}\"", hex::encode(&digest[..16])))
}

/// Where the deployment is reached from outside, for the absolute URLs of a link card
/// (`og:url`, `og:image`): the deployment's own origin when it is configured
/// ([`crate::live::APP_ORIGIN_VAR`]), else the request's `Host`, over `https` when a proxy says
/// the client came that way (`X-Forwarded-Proto`, as `liveUrl` is built). `None` when neither
/// is a plain origin: the card then goes without the tags that need one.
///
/// The `Host` header is the client's to write; it is used for nothing but these two links of
/// the answer to that very client, and only as a plain authority (no user info, no path), which
/// is escaped like every other value put into the page.
fn public_base(request: &HeaderMap) -> Option<String> {
    static CONFIGURED: LazyLock<Option<String>> = LazyLock::new(|| {
        std::env::var(crate::live::APP_ORIGIN_VAR)
            .ok()
            .and_then(|origin| web_origin(&origin))
    });
    if let Some(origin) = CONFIGURED.as_ref() {
        return Some(origin.clone());
    }
    // The header is an authority and nothing more (no path, no user info: `web_origin`).
    let host: axum::http::uri::Authority =
        request.get(header::HOST)?.to_str().ok()?.parse().ok()?;
    let https = request
        .get("x-forwarded-proto")
        .is_some_and(|p| p.as_bytes().eq_ignore_ascii_case(b"https"));
    web_origin(&format!(
        "{}://{host}",
        if https { "https" } else { "http" }
    ))
}

/// The origin of an absolute `http://` or `https://` URL ([`crate::origin::origin`]).
fn web_origin(url: &str) -> Option<String> {
    crate::origin::origin(url, &["http", "https"])
}

/// `text` safe inside a double-quoted HTML attribute (and as element text).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The link card's tags: for a room (its id and version) `summary_large_image` with the board,
/// else the app's own card with its icon. Every value is escaped.
fn card_tags(base: Option<&str>, room: Option<(&RoomId, u64)>, summary: &card::Summary) -> String {
    let mut tags: Vec<(&str, &str, String)> = vec![
        ("property", "og:type", "website".into()),
        ("property", "og:site_name", "마당".into()),
        ("property", "og:locale", "ko_KR".into()),
        ("property", "og:title", summary.title.clone()),
        ("property", "og:description", summary.description.clone()),
        ("name", "description", summary.description.clone()),
    ];
    match (base, room) {
        (Some(base), Some((id, version))) => {
            tags.push(("property", "og:url", format!("{base}/r/{id}")));
            tags.push((
                "property",
                "og:image",
                format!("{base}/r/{id}/card.png?v={version}"),
            ));
            tags.push(("property", "og:image:type", PNG.into()));
            tags.push(("property", "og:image:width", card::WIDTH.to_string()));
            tags.push(("property", "og:image:height", card::HEIGHT.to_string()));
        }
        (Some(base), None) => {
            tags.push(("property", "og:url", format!("{base}/")));
            tags.push(("property", "og:image", format!("{base}/app/icon-512.png")));
        }
        (None, _) => {}
    }
    let twitter = if room.is_some() {
        "summary_large_image"
    } else {
        "summary"
    };
    tags.push(("name", "twitter:card", twitter.into()));
    tags.push(("name", "twitter:title", summary.title.clone()));
    tags.push(("name", "twitter:description", summary.description.clone()));
    tags.iter()
        .map(|(attr, key, value)| {
            format!("<meta {attr}=\"{key}\" content=\"{}\">\n", escape(value))
        })
        .collect()
}

/// `GET /rules/{kind}`: the rules of a game (규칙 보기), drawn by the app; `kind` is checked
/// there, as the room id of `/r/{id}` is.
pub async fn rules<S: RoomStore>(
    State(app): State<App<S>>,
    Path(_kind): Path<String>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    page(&app, &request)
}

/// `GET /manifest.webmanifest`: what a phone needs to install the app to its home screen.
pub async fn manifest<S: RoomStore>(
    State(_app): State<App<S>>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    lookup("/manifest.webmanifest")
        .map(|file| respond(file, &request))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))
}

/// `GET /client/madang.js`: the client library, as `clients/js/src/madang.js`.
pub async fn client<S: RoomStore>(
    State(_app): State<App<S>>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    lookup("/client/madang.js")
        .map(|file| respond(file, &request))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))
}

/// `GET /sw.js`: the Web Push service worker (at the root: its scope is the whole app).
pub async fn service_worker<S: RoomStore>(
    State(_app): State<App<S>>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    lookup("/sw.js")
        .map(|file| respond(file, &request))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))
}

/// `GET /app/{file}`: the app's stylesheet and modules.
pub async fn asset<S: RoomStore>(
    State(_app): State<App<S>>,
    Path(name): Path<String>,
    request: HeaderMap,
) -> Result<Response, ApiError> {
    // Only the names of `ASSETS` and `IMAGES`: "/" and the client library are not files under
    // /app/.
    (ASSETS.iter().any(|(n, _, _)| *n == name) || IMAGES.iter().any(|(n, _, _)| *n == name))
        .then(|| lookup(&name))
        .flatten()
        .map(|file| respond(file, &request))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_only_embedded_modules() {
        for (name, _, _) in ASSETS {
            assert!(
                INDEX_HTML.contains(&format!("/app/{name}"))
                    || ASSETS
                        .iter()
                        .any(|(_, _, b)| b.contains(&format!("./{name}"))),
                "{name} is embedded but nothing loads it"
            );
        }
        assert!(
            !INDEX_HTML.contains("https://"),
            "no CDN: the page loads only its own files"
        );
        assert!(INDEX_HTML.contains("/manifest.webmanifest"));
        for (name, _, _) in IMAGES {
            assert!(MANIFEST.contains(&format!("/app/{name}")), "{name}");
        }
    }

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn the_csp_names_the_live_channels_origin_exactly_and_nothing_wider() {
        let policy = |live: &LiveUrl| csp(live).to_str().unwrap().to_owned();
        let connect = |live: &LiveUrl| {
            policy(live)
                .split(';')
                .map(str::trim)
                .find_map(|d| d.strip_prefix("connect-src "))
                .unwrap()
                .to_owned()
        };
        assert_eq!(connect(&LiveUrl::FromHost), "'self'");
        assert_eq!(connect(&LiveUrl::Off), "'self'");
        let aws =
            LiveUrl::Fixed("wss://a1b2c3.execute-api.ap-northeast-2.amazonaws.com/live".into());
        assert_eq!(
            connect(&aws),
            "'self' wss://a1b2c3.execute-api.ap-northeast-2.amazonaws.com"
        );
        let emulator = LiveUrl::Fixed("ws://127.0.0.1:4321/live".into());
        assert_eq!(connect(&emulator), "'self' ws://127.0.0.1:4321");
        // Nothing but a ws/wss origin with a plain host gets in: no scheme source, no extra
        // directive, no wildcard.
        for bad in [
            "https://x.example/live",
            "ws://x.example; script-src *",
            "ws://*.example/live",
            "ws://user@x.example/live",
            "/live",
            "",
        ] {
            assert_eq!(connect(&LiveUrl::Fixed(bad.into())), "'self'", "{bad}");
            assert!(LiveUrl::fixed(bad).is_err(), "{bad}");
        }
        for live in [LiveUrl::FromHost, aws] {
            let policy = policy(&live);
            assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
            assert!(policy.starts_with("default-src 'self';"), "{policy}");
        }
    }

    #[test]
    fn a_link_cards_base_is_a_plain_origin_or_nothing() {
        for (url, origin) in [
            ("https://Madang.example", Some("https://madang.example")),
            ("http://127.0.0.1:8080", Some("http://127.0.0.1:8080")),
            ("http://[::1]:8080", Some("http://[::1]:8080")),
            ("https://app.example/some/path", Some("https://app.example")),
            ("ftp://app.example", None),
            ("https://user@app.example", None),
            ("http://x.example\"><script>", None),
            ("/relative", None),
        ] {
            assert_eq!(web_origin(url).as_deref(), origin, "{url}");
        }
        let host = |value: &str, proto: Option<&str>| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_str(value).unwrap());
            if let Some(proto) = proto {
                headers.insert("x-forwarded-proto", HeaderValue::from_str(proto).unwrap());
            }
            public_base(&headers)
        };
        // (MADANG_APP_ORIGIN is not set in unit tests.)
        assert_eq!(
            host("h.example:3000", None).as_deref(),
            Some("http://h.example:3000")
        );
        assert_eq!(
            host("h.example", Some("HTTPS")).as_deref(),
            Some("https://h.example")
        );
        assert_eq!(host("h.example/evil", None), None);
        assert_eq!(public_base(&HeaderMap::new()), None);
    }

    #[test]
    fn card_values_are_escaped_for_attributes() {
        assert_eq!(
            escape(r#"<b>"a" & 'b'</b>"#),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
        let summary = card::Summary {
            title: "\"><script>".into(),
            description: "x".into(),
        };
        let tags = card_tags(None, None, &summary);
        assert!(
            !tags.contains("<script>") && !tags.contains("og:url"),
            "{tags}"
        );
    }

    #[test]
    fn gzip_is_chosen_only_where_accept_encoding_allows_it() {
        for yes in [
            "gzip",
            "gzip, deflate, br, zstd",
            "br;q=1.0, GZIP;q=0.5",
            "*",
            "identity, *;q=0.1",
        ] {
            assert!(accepts_gzip(&accept(yes)), "{yes}");
        }
        for no in [
            "",
            "br",
            "identity",
            "gzip;q=0",
            "gzip;q=0.0, *",
            "*;q=0",
            "br, *;q=0",
        ] {
            assert!(!accepts_gzip(&accept(no)), "{no}");
        }
        assert!(!accepts_gzip(&HeaderMap::new()), "no header: identity");
    }

    #[test]
    fn if_none_match_is_compared_weakly_and_star_matches() {
        let ours = HeaderValue::from_static("\"abc-gz\"");
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
            not_modified(&headers, &ours)
        };
        for yes in ["\"abc-gz\"", "W/\"abc-gz\"", "\"x\", \"abc-gz\"", "*"] {
            assert!(with(yes), "{yes}");
        }
        for no in ["\"abc\"", "\"abc-gz", "abc-gz", "\"ABC-GZ\""] {
            assert!(!with(no), "{no}");
        }
        assert!(!not_modified(&HeaderMap::new(), &ours));
    }

    #[test]
    fn every_file_has_a_gzip_form_that_inflates_to_it_and_is_smaller() {
        use std::io::Read as _;
        for (key, file) in FILES.iter() {
            if file.media_type == PNG {
                assert!(file.gzip.is_empty(), "{key}: served as it is");
                continue;
            }
            let mut out = String::new();
            flate2::read::GzDecoder::new(file.gzip.as_slice())
                .read_to_string(&mut out)
                .unwrap();
            assert_eq!(out.as_bytes(), file.plain, "{key}");
            assert!(file.gzip.len() < file.plain.len(), "{key}: gzip is smaller");
            assert_ne!(file.etag, file.gzip_etag, "{key}: one validator per form");
        }
    }
}
