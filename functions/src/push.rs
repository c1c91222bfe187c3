//! Web Push: "your turn" on the lock screen (DESIGN "Slow 바둑 and 'your turn' notifications").
//!
//! - **Keys.** The deployment's VAPID key pair (RFC 8292, ES256 on P-256): locally generated once
//!   into the data directory ([`Push::load_or_create`]); on AWS generated once, by the first
//!   function that needs it, into an item of the rooms table (`MADANG_PUSH=on`,
//!   [`Push::from_env_or_table`]: no secret store, nothing for the operator to do). Either way
//!   `MADANG_VAPID_PRIVATE_KEY` wins when set ([`Push::from_env`]). Without a key there is no
//!   push (`GET /push` answers 404 `PUSH_OFF`).
//! - **Encryption.** Every payload is encrypted for the browser per RFC 8291 (`aes128gcm`) by
//!   `web-push-native` (RustCrypto: no OpenSSL). The VAPID JWT is signed here with the same key
//!   type, its `aud` the push resource's origin (port included: the crate's own signer drops it),
//!   `exp` 12 hours ahead.
//! - **Where to.** Only hosts on the allow list ([`AllowList`], `MADANG_PUSH_HOSTS`: host
//!   suffixes; default the push services of the major browsers), over https, and never a
//!   private, loopback or link-local address — whether the endpoint names it or a name resolves
//!   to it (the client's resolver refuses it) — unless the list names that host exactly (the
//!   tests name `127.0.0.1`). No redirects are followed.
//! - **Which games.** Only 바둑 under the correspondence clock: a push takes seconds to arrive
//!   and is read minutes later, so for a 20-second 윷놀이 turn or a clock of minutes it comes
//!   after the move was due (and players of those games have the page open anyway).
//! - **When** ([`notices`]): a seat becomes awaited (its turn, or an answer it owes) with no open
//!   connection (no request within the presence window), and when the game ends. A push service
//!   answering `404` or `410` has dropped the subscription: the room forgets it.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use madang_core::room::{AnyRoom, MAX_ENDPOINT_LEN, Presence, PushSubscription};
use madang_core::{Millis, PlayerId, with_room};
use serde::Serialize;
use web_push_native::jwt_simple::prelude::{
    Claims, ECDSAP256KeyPairLike, ECDSAP256PublicKeyLike, ES256KeyPair,
};
use web_push_native::{Auth, WebPushBuilder};

/// The push services of the major browsers (Chrome and Android, Firefox, Edge and Windows,
/// Safari on macOS and iOS): the default of `MADANG_PUSH_HOSTS`.
pub const DEFAULT_PUSH_HOSTS: &str =
    "fcm.googleapis.com,push.services.mozilla.com,notify.windows.com,push.apple.com";

/// The file the local server keeps its VAPID private key in, inside the data directory.
pub const KEY_FILE: &str = "vapid.key";

/// How long a push request may take, connection included.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the pushes one save owes may hold its answer, all of them together: they are sent
/// at once ([`crate::service::push::deliver`]), and the ones still unanswered then are given up
/// (counted `PushFailures`; the next push to that seat tries again).
pub const PUSH_BOUND: Duration = Duration::from_secs(5);

/// The largest payload sent (DESIGN: at most 3 KB; push services take 4 KB).
pub const MAX_PAYLOAD_BYTES: usize = 3 * 1024;

/// Why a push key could not be read or made.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// Not 32 bytes of base64url, or not a P-256 scalar.
    #[error("the VAPID private key is not a base64url P-256 private key (32 bytes)")]
    Malformed,
    /// The key file could not be read or written.
    #[error("the VAPID key file: {0}")]
    Io(#[from] std::io::Error),
    /// The key's item in the rooms table could not be read or put.
    #[error("the VAPID key's item in the table: {0}")]
    Store(#[source] madang_infra::StoreError),
}

/// The hosts pushes may go to: host suffixes (`fcm.googleapis.com` allows that host and every
/// host under it). A host the list names exactly may also be at a private address, and then
/// reached over plain http — only tests and a private deployment's own push service do that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowList {
    suffixes: Vec<String>,
}

impl AllowList {
    /// A comma-separated list of host suffixes.
    pub fn parse(list: &str) -> Self {
        AllowList {
            suffixes: list
                .split(',')
                .map(|s| s.trim().trim_start_matches('.').to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }

    /// `MADANG_PUSH_HOSTS`, or [`DEFAULT_PUSH_HOSTS`].
    pub fn from_env() -> Self {
        Self::parse(
            &std::env::var("MADANG_PUSH_HOSTS").unwrap_or_else(|_| DEFAULT_PUSH_HOSTS.to_owned()),
        )
    }

    /// Whether the list names `host` exactly.
    pub fn names(&self, host: &str) -> bool {
        let host = bare(host);
        self.suffixes.iter().any(|s| s == &host)
    }

    fn allows(&self, host: &str) -> bool {
        let host = bare(host);
        self.suffixes
            .iter()
            .any(|s| host == *s || host.ends_with(&format!(".{s}")))
    }

    /// Checks an endpoint before it is kept or called: an absolute URL on an allowed host, https
    /// (http only for a host the list names), and no private address unless named.
    pub fn check(&self, endpoint: &str) -> Result<axum::http::Uri, &'static str> {
        if endpoint.len() > MAX_ENDPOINT_LEN {
            return Err("알림 주소가 너무 길어요.");
        }
        let uri: axum::http::Uri = endpoint
            .parse()
            .map_err(|_| "알림 주소를 읽을 수 없어요.")?;
        let host = uri.host().ok_or("알림 주소에 호스트가 없어요.")?;
        if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
            return Err("알림 주소를 읽을 수 없어요.");
        }
        if !self.allows(host) {
            return Err("이 알림 서비스로는 보낼 수 없어요.");
        }
        let named = self.names(host);
        let private = match bare(host).parse::<IpAddr>() {
            Ok(ip) => is_private(ip),
            Err(_) => bare(host) == "localhost",
        };
        if private && !named {
            return Err("이 알림 서비스로는 보낼 수 없어요.");
        }
        // Plain http only inside the operator's own network: a private host the list names.
        match uri.scheme_str() {
            Some("https") => {}
            Some("http") if private => {}
            _ => return Err("알림 주소는 https여야 해요."),
        }
        Ok(uri)
    }
}

/// A host without IPv6 brackets, lowercased.
fn bare(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Addresses a push must never reach unless named: loopback, private, link-local, unique-local,
/// shared (CGNAT), unspecified, broadcast, multicast, documentation, and IPv4 inside IPv6.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || o[0] == 0
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_private(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8
                || first == 0x0064
        }
    }
}

/// The push client's resolver: a name resolving to a private address is refused unless the
/// allow list names it, so a subscription can never make the server call into its own network.
struct Guarded {
    hosts: AllowList,
}

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        let named = self.hosts.names(&host);
        Box::pin(async move {
            let found = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let kept: Vec<SocketAddr> = found.filter(|a| named || !is_private(a.ip())).collect();
            if kept.is_empty() {
                return Err("the push host resolves to no public address".into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The deployment's push sender.
pub struct Push {
    key: ES256KeyPair,
    public_key: String,
    contact: String,
    hosts: AllowList,
    http: reqwest::Client,
}

impl std::fmt::Debug for Push {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Push")
            .field("public_key", &self.public_key)
            .field("hosts", &self.hosts)
            .finish_non_exhaustive()
    }
}

/// Where the deployment's push sender is kept: one handle shared by the [`crate::App`] and its
/// thinker (which is made before the app is told its key, [`crate::App::with_push`]), so a
/// computer player's move pushes "your turn" as a person's does. Empty: push is off.
#[derive(Clone, Debug, Default)]
pub struct PushSlot(Arc<std::sync::RwLock<Option<Arc<Push>>>>);

impl PushSlot {
    /// The sender, if push is on.
    pub fn get(&self) -> Option<Arc<Push>> {
        self.0.read().ok().and_then(|held| held.clone())
    }

    /// Puts `push` in the slot (`None`: push off) for every holder of the handle.
    pub fn set(&self, push: Option<Arc<Push>>) {
        if let Ok(mut held) = self.0.write() {
            *held = push;
        }
    }
}

/// How one push went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The push service took it (2xx).
    Sent,
    /// The push service no longer knows the subscription (404, 410): forget it.
    Gone,
    /// Not sent: the endpoint or its keys are refused.
    Refused(&'static str),
    /// The push service failed or could not be reached (kept; the next push tries again).
    Failed(String),
}

impl Push {
    /// A sender signing with the P-256 private key `secret` (32 bytes), posting to `hosts`,
    /// naming `contact` (a `mailto:` or `https:` URL) in its VAPID JWT.
    pub fn new(secret: &[u8], hosts: AllowList, contact: String) -> Result<Push, KeyError> {
        let key = ES256KeyPair::from_bytes(secret).map_err(|_| KeyError::Malformed)?;
        let public_key =
            URL_SAFE_NO_PAD.encode(key.public_key().public_key().to_bytes_uncompressed());
        let http = reqwest::Client::builder()
            .dns_resolver(Arc::new(Guarded {
                hosts: hosts.clone(),
            }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(SEND_TIMEOUT)
            .connect_timeout(SEND_TIMEOUT)
            .build()
            .map_err(|e| KeyError::Io(std::io::Error::other(e)))?;
        Ok(Push {
            key,
            public_key,
            contact,
            hosts,
            http,
        })
    }

    /// A sender with a fresh key pair (tests; a deployment keeps its key, [`Push::load_or_create`]).
    pub fn generate(hosts: AllowList, contact: String) -> Result<Push, KeyError> {
        Push::new(&ES256KeyPair::generate().to_bytes(), hosts, contact)
    }

    /// From `MADANG_VAPID_PRIVATE_KEY` (base64url of the 32-byte private key), with
    /// `MADANG_PUSH_HOSTS` and `MADANG_PUSH_CONTACT`; `None` when the key is not set (push off).
    pub fn from_env() -> Result<Option<Push>, KeyError> {
        match std::env::var("MADANG_VAPID_PRIVATE_KEY") {
            Ok(text) if !text.trim().is_empty() => {
                let secret = secret_of(text.trim())?;
                Push::new(&secret, AllowList::from_env(), contact_from_env()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// On Lambda: `MADANG_VAPID_PRIVATE_KEY` when set; otherwise, with `MADANG_PUSH=on` (the
    /// template's `WebPush: On`), the deployment's key kept in the rooms table's
    /// [`VAPID_KEY_ID`](madang_infra::dynamo::VAPID_KEY_ID) item, generated by whichever
    /// function needs it first ([`DynamoStore::kept_once`](madang_infra::dynamo::DynamoStore::kept_once):
    /// a put-if-absent, so racing cold starts agree on one key). Called once per execution
    /// environment, at init: half a read unit. `None`: push is off.
    pub async fn from_env_or_table(
        store: &madang_infra::dynamo::DynamoStore,
    ) -> Result<Option<Push>, KeyError> {
        if let Some(push) = Push::from_env()? {
            return Ok(Some(push));
        }
        if !Push::kept_in_table() {
            return Ok(None);
        }
        Push::from_table(store).await.map(Some)
    }

    /// The deployment's key kept in the table's [`VAPID_KEY_ID`](madang_infra::dynamo::VAPID_KEY_ID)
    /// item, generated and put there (if absent) when there is none yet, with `MADANG_PUSH_HOSTS`
    /// and `MADANG_PUSH_CONTACT`.
    pub async fn from_table(store: &madang_infra::dynamo::DynamoStore) -> Result<Push, KeyError> {
        let text = store
            .kept_once(madang_infra::dynamo::VAPID_KEY_ID, || {
                URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes())
            })
            .await
            .map_err(KeyError::Store)?;
        let secret = URL_SAFE_NO_PAD
            .decode(text.trim())
            .map_err(|_| KeyError::Malformed)?;
        Push::new(&secret, AllowList::from_env(), contact_from_env())
    }

    /// Whether [`Push::from_env_or_table`] reads the table: `MADANG_PUSH` is `on` and
    /// `MADANG_VAPID_PRIVATE_KEY` is not set.
    pub fn kept_in_table() -> bool {
        std::env::var("MADANG_PUSH").is_ok_and(|v| v.trim().eq_ignore_ascii_case("on"))
            && !std::env::var("MADANG_VAPID_PRIVATE_KEY").is_ok_and(|v| !v.trim().is_empty())
    }

    /// The key in `dir`/[`KEY_FILE`], made (and written, readable by the owner only) the first
    /// time; `MADANG_VAPID_PRIVATE_KEY` wins when set.
    pub fn load_or_create(dir: &Path) -> Result<Push, KeyError> {
        if let Some(push) = Push::from_env()? {
            return Ok(push);
        }
        let path = dir.join(KEY_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let text = URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes());
                write_private(&path, &text)?;
                // Two servers starting at once: the first file written is the key.
                std::fs::read_to_string(&path)?
            }
            Err(e) => return Err(e.into()),
        };
        let secret = URL_SAFE_NO_PAD
            .decode(text.trim())
            .map_err(|_| KeyError::Malformed)?;
        Push::new(&secret, AllowList::from_env(), contact_from_env())
    }

    /// The VAPID public key clients subscribe with (`applicationServerKey`), base64url of the
    /// uncompressed point.
    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// The allow list.
    pub fn hosts(&self) -> &AllowList {
        &self.hosts
    }

    /// Encrypts `payload` for `sub` and posts it, `ttl` seconds to live at the push service,
    /// with `urgency` (`normal`, `high`).
    pub async fn send(
        &self,
        sub: &PushSubscription,
        payload: &[u8],
        ttl: u64,
        urgency: &str,
    ) -> Delivery {
        let uri = match self.hosts.check(&sub.endpoint) {
            Ok(uri) => uri,
            Err(why) => return Delivery::Refused(why),
        };
        let Some((public, auth)) = keys_of(sub) else {
            return Delivery::Refused("알림 키를 읽을 수 없어요.");
        };
        let request = match WebPushBuilder::new(uri.clone(), public, auth)
            .with_valid_duration(Duration::from_secs(ttl))
            .build(payload.to_vec())
        {
            Ok(request) => request,
            Err(e) => return Delivery::Failed(format!("encrypt: {e}")),
        };
        let token = match self.vapid_token(&uri) {
            Ok(token) => token,
            Err(e) => return Delivery::Failed(format!("vapid: {e}")),
        };
        let (parts, body) = request.into_parts();
        let mut post = self
            .http
            .post(&sub.endpoint)
            .header(
                "authorization",
                format!("vapid t={token}, k={}", self.public_key),
            )
            .header("urgency", urgency)
            .body(body);
        for (name, value) in &parts.headers {
            if name != axum::http::header::CONTENT_LENGTH {
                post = post.header(name.as_str(), value.as_bytes());
            }
        }
        match post.send().await {
            Ok(answer) => match answer.status().as_u16() {
                200..=299 => Delivery::Sent,
                404 | 410 => Delivery::Gone,
                other => Delivery::Failed(format!("status {other}")),
            },
            Err(e) => Delivery::Failed(crate::error::chain(&e)),
        }
    }

    /// The VAPID JWT for the push resource `uri`: ES256, `aud` its origin, `exp` in 12 hours,
    /// `sub` the contact.
    fn vapid_token(&self, uri: &axum::http::Uri) -> Result<String, String> {
        let claims = Claims::create(web_push_native::jwt_simple::prelude::Duration::from_hours(
            12,
        ))
        .with_audience(origin_of(uri))
        .with_subject(&self.contact);
        self.key.sign(claims).map_err(|e| e.to_string())
    }
}

/// The private key a configured text stands for: base64url of the 32-byte scalar, or any other
/// text of at least 32 characters (the template's generated secret), whose SHA-256 is the key.
fn secret_of(text: &str) -> Result<Vec<u8>, KeyError> {
    match URL_SAFE_NO_PAD.decode(text) {
        Ok(bytes) if bytes.len() == 32 => Ok(bytes),
        _ if text.len() >= 32 => {
            use sha2::Digest as _;
            Ok(sha2::Sha256::digest(text.as_bytes()).to_vec())
        }
        _ => Err(KeyError::Malformed),
    }
}

/// `MADANG_PUSH_CONTACT`, the VAPID `sub` (push services write to it about problems); a
/// placeholder that names no one when unset.
fn contact_from_env() -> String {
    std::env::var("MADANG_PUSH_CONTACT").unwrap_or_else(|_| "mailto:push@madang.invalid".into())
}

/// The origin of a push resource: scheme, host and the port when it is not the scheme's.
fn origin_of(uri: &axum::http::Uri) -> String {
    let scheme = uri.scheme_str().unwrap_or("https");
    let host = uri.host().unwrap_or_default();
    match (scheme, uri.port_u16()) {
        ("https", Some(443)) | ("http", Some(80)) | (_, None) => format!("{scheme}://{host}"),
        (_, Some(port)) => format!("{scheme}://{host}:{port}"),
    }
}

/// The browser's keys of a subscription, if they are a P-256 point and a 16-byte secret.
fn keys_of(sub: &PushSubscription) -> Option<(web_push_native::p256::PublicKey, Auth)> {
    let public = URL_SAFE_NO_PAD
        .decode(sub.p256dh.trim_end_matches('='))
        .ok()?;
    let auth = URL_SAFE_NO_PAD
        .decode(sub.auth.trim_end_matches('='))
        .ok()?;
    if auth.len() != 16 {
        return None;
    }
    let public = web_push_native::p256::PublicKey::from_sec1_bytes(&public).ok()?;
    Some((public, Auth::clone_from_slice(&auth)))
}

/// Checks a subscription a client sends, before the room keeps it.
pub fn check_subscription(hosts: &AllowList, sub: &PushSubscription) -> Result<(), &'static str> {
    hosts.check(&sub.endpoint)?;
    keys_of(sub).ok_or("알림 키를 읽을 수 없어요.")?;
    Ok(())
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// What a push says: DESIGN's payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// `yourTurn`, `timeLow` or `gameOver`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The room.
    pub room_id: String,
    /// `yut` or `baduk`.
    pub game: &'static str,
    /// The room's version the push is about.
    pub version: u64,
    /// Korean title.
    pub title: String,
    /// Korean body.
    pub body: String,
    /// Where a tap opens: `/r/{roomId}`.
    pub url: String,
}

/// One push to make: a payload for one seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The seat.
    pub player: PlayerId,
    /// What to say.
    pub payload: Payload,
    /// Seconds the push service keeps it for an offline device.
    pub ttl: u64,
    /// `normal` or `high`.
    pub urgency: &'static str,
}

/// "2일 3시간", "5시간", "12분": time left as players say it.
pub fn days_hours(ms: Millis) -> String {
    let minutes = ms.div_ceil(60_000);
    let (d, h, m) = (minutes / 1440, (minutes % 1440) / 60, minutes % 60);
    match (d, h) {
        (0, 0) => format!("{}분", m.max(1)),
        (0, h) => format!("{h}시간"),
        (d, 0) => format!("{d}일"),
        (d, h) => format!("{d}일 {h}시간"),
    }
}

/// How long before a deadline the "time is low" push goes: a tenth of a move's time, or one
/// hour, whichever is less (so one hour for every correspondence clock); `None` for a room whose
/// games do not push.
pub fn time_low_before(room: &AnyRoom) -> Option<Millis> {
    match room {
        AnyRoom::Baduk(r) if r.options.is_correspondence() => {
            Some((r.options.per_move_ms() / 10).min(3_600_000))
        }
        _ => None,
    }
}

/// The room's "time is low" push, if one is to come: the deadline it is about and when it is
/// due. Only while a person with a subscription is awaited, once per deadline.
pub fn reminder(
    room: &AnyRoom,
    presence: &madang_core::room::Presence,
) -> Option<(Millis, Millis)> {
    let before = time_low_before(room)?;
    with_room!(room, r => {
        let deadline = r.due_at(presence)?;
        if r.reminded == Some(deadline) {
            return None;
        }
        let awaited = r.awaited_people();
        if !awaited.iter().any(|p| r.subscriptions_of(p).next().is_some()) {
            return None;
        }
        Some((deadline, deadline.saturating_sub(before)))
    })
}

/// The `timeLow` pushes of `room` (with its `presence`) whose reminder is due: to each awaited,
/// away seat with a subscription, `Urgency: high`.
pub fn time_low_notices(
    room: &AnyRoom,
    presence: &Presence,
    deadline: Millis,
    now: Millis,
) -> Vec<Notice> {
    with_room!(room, r => {
        let left = deadline.saturating_sub(now);
        r.awaited_people()
            .into_iter()
            .filter(|p| r.subscriptions_of(p).next().is_some() && r.is_away(p, presence, now))
            .map(|p| Notice {
                player: p,
                payload: Payload {
                    kind: "timeLow",
                    room_id: r.id.clone(),
                    game: "baduk",
                    version: r.version,
                    title: "바둑 · 시간이 얼마 남지 않았어요".into(),
                    body: format!("남은 시간 {}. 두지 않으면 시간패가 돼요.", days_hours(left)),
                    url: format!("/r/{}", r.id),
                },
                ttl: (left / 1000).max(60),
                urgency: "high",
            })
            .collect()
    })
}

/// Whether a room's games push at all: 바둑 under the correspondence clock (see the module's
/// "Which games").
pub fn pushes(room: &AnyRoom) -> bool {
    matches!(room, AnyRoom::Baduk(r) if r.options.is_correspondence())
}

/// What a room awaited when a request loaded it, before any catch-up or work
/// (`service::save::Loaded::at_load`): what [`notices`] compares the saved room with.
#[derive(Clone, Debug, Default)]
pub struct AtLoad {
    /// The people whose action the game awaited.
    pub awaited: Vec<PlayerId>,
    /// Whether the game was over (a room not stored yet counts as over: nothing to announce).
    pub over: bool,
}

impl AtLoad {
    /// What `room` awaits now.
    pub fn of(room: &AnyRoom) -> Self {
        with_room!(room, r => AtLoad {
            awaited: r.awaited_people(),
            over: r.status() == madang_core::room::Status::Finished,
        })
    }
}

/// The pushes a saved change calls for, comparing `room` (with its `presence`) as saved with
/// what it awaited when loaded (`at_load`): `gameOver` to every away seat when the game just
/// ended; `yourTurn` to each away seat that just became awaited. Only seats with a subscription
/// are named.
pub fn notices(room: &AnyRoom, presence: &Presence, at_load: &AtLoad, now: Millis) -> Vec<Notice> {
    if !pushes(room) || at_load.over {
        return Vec::new();
    }
    with_room!(room, r => {
        let payload = |kind: &'static str, title: String, body: String| Payload {
            kind,
            room_id: r.id.clone(),
            game: "baduk",
            version: r.version,
            title,
            body,
            url: format!("/r/{}", r.id),
        };
        let subscribed = |p: &PlayerId| r.subscriptions_of(p).next().is_some();
        let mut out = Vec::new();
        if r.status() == madang_core::room::Status::Finished {
            let summary = match room {
                AnyRoom::Baduk(b) => b
                    .game
                    .as_ref()
                    .and_then(|s| s.result())
                    .map(|res| res.summary_ko.clone()),
                AnyRoom::Yut(_) => None,
            }
            .unwrap_or_else(|| "결과를 확인해 보세요.".to_owned());
            for p in r.present_ids().filter(|p| subscribed(p) && r.is_away(p, presence, now)) {
                out.push(Notice {
                    player: p.clone(),
                    payload: payload("gameOver", "바둑 · 대국이 끝났어요".into(), summary.clone()),
                    ttl: 7 * 24 * 3600,
                    urgency: "normal",
                });
            }
            return out;
        }
        let left = r
            .deadline_at(presence, now)
            .map(|d| d.saturating_sub(now));
        for p in r.awaited_people() {
            if at_load.awaited.contains(&p) || !subscribed(&p) || !r.is_away(&p, presence, now) {
                continue;
            }
            let body = match left {
                Some(ms) => format!("상대가 기다려요. 남은 시간 {}", days_hours(ms)),
                None => "상대가 기다려요.".to_owned(),
            };
            out.push(Notice {
                player: p.clone(),
                payload: payload("yourTurn", "바둑 · 내 차례예요".into(), body),
                ttl: left.map_or(24 * 3600, |ms| (ms / 1000).clamp(60, 28 * 24 * 3600)),
                urgency: "normal",
            });
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_takes_suffixes_and_names_exact_hosts() {
        let list = AllowList::parse(" fcm.googleapis.com, .push.apple.com ,127.0.0.1");
        assert!(list.check("https://fcm.googleapis.com/fcm/send/x").is_ok());
        assert!(list.check("https://web.push.apple.com/abc").is_ok());
        assert!(
            list.check("https://evilfcm.googleapis.com.example/x")
                .is_err()
        );
        assert!(list.check("https://example.com/x").is_err());
        assert!(
            list.check("http://fcm.googleapis.com/x").is_err(),
            "https only"
        );
        assert!(
            list.check("http://127.0.0.1:9/x").is_ok(),
            "named: http and loopback"
        );
        assert!(list.check("https://user@fcm.googleapis.com/x").is_err());
        let default = AllowList::parse(DEFAULT_PUSH_HOSTS);
        for bad in [
            "https://127.0.0.1/x",
            "https://10.0.0.1/x",
            "https://169.254.169.254/latest",
            "https://[::1]/x",
            "https://[fe80::1]/x",
            "not a url",
        ] {
            assert!(default.check(bad).is_err(), "{bad}");
        }
        let private = AllowList::parse("internal");
        assert!(
            private.check("https://10.1.2.3/x").is_err(),
            "an IP is not a suffix"
        );
    }

    #[test]
    fn private_loopback_and_link_local_addresses_are_private() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["142.250.1.1", "2607:f8b0::1"] {
            assert!(!is_private(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn the_vapid_origin_keeps_a_port_that_is_not_the_schemes() {
        let at = |s: &str| origin_of(&s.parse().unwrap());
        assert_eq!(
            at("https://fcm.googleapis.com/fcm/send/x"),
            "https://fcm.googleapis.com"
        );
        assert_eq!(at("https://a.example:443/x"), "https://a.example");
        assert_eq!(at("http://127.0.0.1:8123/p"), "http://127.0.0.1:8123");
    }

    #[test]
    fn a_key_round_trips_and_the_public_key_is_an_uncompressed_point() {
        let dir = std::env::temp_dir().join(format!("madang-vapid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join(KEY_FILE));
        let first = Push::load_or_create(&dir).unwrap();
        let again = Push::load_or_create(&dir).unwrap();
        assert_eq!(first.public_key(), again.public_key(), "generated once");
        let point = URL_SAFE_NO_PAD.decode(first.public_key()).unwrap();
        assert_eq!((point.len(), point[0]), (65, 4));
        assert!(Push::new(&[0; 32], AllowList::parse(""), String::new()).is_err());
        // The template's generated secret: 64 letters and digits, hashed to the key.
        let generated = "a".repeat(64);
        assert_eq!(secret_of(&generated).unwrap().len(), 32);
        assert_eq!(
            secret_of(&URL_SAFE_NO_PAD.encode([7u8; 32])).unwrap(),
            [7u8; 32]
        );
        assert!(secret_of("short").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn time_left_reads_in_days_and_hours() {
        assert_eq!(days_hours(2 * 86_400_000 + 3 * 3_600_000 + 5), "2일 3시간");
        assert_eq!(days_hours(86_400_000), "1일");
        assert_eq!(days_hours(5 * 3_600_000 + 120_000), "5시간");
        assert_eq!(days_hours(30_000), "1분");
    }
}
