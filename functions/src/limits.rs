//! Bounds on what one client can make the server do: rooms created and joins per minute, open
//! long-polls per client and in total, the header block's size, and bodies that must be JSON.
//!
//! All of it is one check, [`Guard::admit`], that the router's edge layer runs in front of
//! every route, the same on the local server and on Lambda. The client address comes from the socket locally (axum's
//! [`ConnectInfo`], set by [`crate::serve()`]) and from the request context on Lambda (API
//! Gateway's `sourceIp`). IPv6 addresses count per /64, the block one subscriber usually holds.
//!
//! Counting is per process. Locally that is the whole server; on Lambda every instance counts
//! on its own, so a client spread over many instances gets more than its share — there the
//! limits are best effort, and a WAF rate-based rule in front of the API is the real per-address
//! bound (`docs/deploy.md`).
//!
//! Memory stays bounded under address spoofing or a botnet: each rate table holds at most
//! [`MAX_TRACKED_CLIENTS`] addresses; when full, addresses whose budget has refilled are
//! forgotten (they are indistinguishable from new ones), and if every slot is still busy the
//! newcomers share one overflow budget rather than growing the table.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::HttpBody;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, Method, header};

use crate::app::Limits;
use crate::error::ApiError;

/// The most client addresses a rate table remembers.
pub const MAX_TRACKED_CLIENTS: usize = 65_536;

const MINUTE: Duration = Duration::from_secs(60);

impl Limits {
    /// The defaults, with each `MADANG_LIMIT_*` variable that is set and parses taken instead
    /// (`MADANG_LIMIT_CREATES_PER_MIN`, `MADANG_LIMIT_JOINS_PER_MIN`,
    /// `MADANG_LIMIT_POLLS_PER_CLIENT`, `MADANG_LIMIT_POLLS_TOTAL`,
    /// `MADANG_LIMIT_HEADER_BYTES`, and `MADANG_MAX_WAIT_SECS`, which can only lower the
    /// deployment's longest long-poll). A value that does not parse is an error, not a silent
    /// default: a typo must not open a public server up.
    pub fn with_env(self) -> Result<Self, String> {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
            match std::env::var(name) {
                Ok(v) => v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{name}={v} is not a number")),
                Err(_) => Ok(default),
            }
        }
        Ok(Limits {
            max_wait_secs: var("MADANG_MAX_WAIT_SECS", self.max_wait_secs)?.min(self.max_wait_secs),
            creates_per_minute: var("MADANG_LIMIT_CREATES_PER_MIN", self.creates_per_minute)?,
            joins_per_minute: var("MADANG_LIMIT_JOINS_PER_MIN", self.joins_per_minute)?,
            polls_per_client: var("MADANG_LIMIT_POLLS_PER_CLIENT", self.polls_per_client)?,
            polls_total: var("MADANG_LIMIT_POLLS_TOTAL", self.polls_total)?,
            max_header_bytes: var("MADANG_LIMIT_HEADER_BYTES", self.max_header_bytes)?,
        })
    }

    /// For tests and trusted deployments where one address is many players (a test driver, a
    /// load generator, a LAN party behind one NAT): no per-client rate or poll limits. The total
    /// poll cap and the header limit stay.
    pub fn trusted(self) -> Self {
        Limits {
            creates_per_minute: 0,
            joins_per_minute: 0,
            polls_per_client: 0,
            ..self
        }
    }
}

/// Who is asking, as far as limits are concerned: the client's address (IPv6 per /64), or
/// `None` when it is unknown (shared by everyone unknown).
pub type ClientKey = Option<IpAddr>;

fn key_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// The client address of a request: the socket's peer (local server), else API Gateway's
/// `sourceIp` (Lambda).
pub fn client_of(request: &Request) -> ClientKey {
    client_in(request.extensions())
}

/// [`client_of`], from a request's extensions (for extractors, which see only the parts).
pub fn client_in(extensions: &axum::http::Extensions) -> ClientKey {
    if let Some(ConnectInfo(addr)) = extensions.get::<ConnectInfo<SocketAddr>>() {
        return Some(key_of(addr.ip()));
    }
    match extensions.get::<lambda_http::request::RequestContext>() {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(ctx)) => ctx
            .http
            .source_ip
            .as_deref()
            .and_then(|ip| ip.parse().ok())
            .map(key_of),
        _ => None,
    }
}

/// A per-client budget of `per_minute` requests, refilled continuously (GCRA: one timestamp per
/// client, a burst of the whole minute's budget at most).
#[derive(Debug)]
pub struct RateTable {
    per_minute: u32,
    clients: Mutex<HashMap<ClientKey, Instant>>,
    overflow: Mutex<Option<Instant>>,
}

impl RateTable {
    /// A table allowing `per_minute` requests per client (0: unlimited).
    pub fn new(per_minute: u32) -> Self {
        RateTable {
            per_minute,
            clients: Mutex::new(HashMap::new()),
            overflow: Mutex::new(None),
        }
    }

    /// Takes one request from `client`'s budget, or says how long until there is one.
    pub fn take(&self, client: ClientKey, now: Instant) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let interval = MINUTE / self.per_minute;
        // The budget is full when the theoretical arrival time is at or before now; each
        // request moves it on by one interval; a request is refused when that would put it
        // more than a minute ahead.
        let step = |tat: &mut Instant| -> Result<(), Duration> {
            let start = (*tat).max(now);
            let next = start + interval;
            if next > now + MINUTE {
                return Err(next - (now + MINUTE));
            }
            *tat = next;
            Ok(())
        };
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tat) = clients.get_mut(&client) {
            return step(tat);
        }
        if clients.len() >= MAX_TRACKED_CLIENTS {
            clients.retain(|_, tat| *tat > now);
        }
        if clients.len() >= MAX_TRACKED_CLIENTS {
            drop(clients);
            let mut overflow = self.overflow.lock().unwrap_or_else(|e| e.into_inner());
            return step(overflow.get_or_insert(now));
        }
        let mut tat = now;
        let taken = step(&mut tat);
        clients.insert(client, tat);
        taken
    }

    /// How many clients the table remembers (for tests of its bound).
    pub fn tracked(&self) -> usize {
        self.clients.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Open long-polls, per client and in total.
#[derive(Debug)]
pub struct PollCount {
    per_client: u32,
    total_cap: u32,
    total: AtomicU32,
    clients: Mutex<HashMap<ClientKey, u32>>,
}

/// One open long-poll; its slot frees when dropped (the answer has been produced).
#[derive(Debug)]
pub struct PollSlot {
    count: Arc<PollCount>,
    client: ClientKey,
}

impl PollCount {
    fn new(per_client: u32, total_cap: u32) -> Self {
        PollCount {
            per_client,
            total_cap,
            total: AtomicU32::new(0),
            clients: Mutex::new(HashMap::new()),
        }
    }

    fn open(self: &Arc<Self>, client: ClientKey) -> Option<PollSlot> {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        let total = self.total.load(Ordering::Relaxed);
        if self.total_cap != 0 && total >= self.total_cap {
            return None;
        }
        let mine = clients.entry(client).or_insert(0);
        if self.per_client != 0 && *mine >= self.per_client {
            return None;
        }
        *mine += 1;
        self.total.store(total + 1, Ordering::Relaxed);
        Some(PollSlot {
            count: self.clone(),
            client,
        })
    }
}

impl Drop for PollSlot {
    fn drop(&mut self) {
        let mut clients = self.count.clients.lock().unwrap_or_else(|e| e.into_inner());
        self.count.total.fetch_sub(1, Ordering::Relaxed);
        if let Some(n) = clients.get_mut(&self.client) {
            *n -= 1;
            // Only clients with an open poll stay in the map: it is bounded by the total.
            if *n == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

/// What [`Guard::admit`] checks against: the limits and the counters behind them.
#[derive(Debug)]
pub struct Guard {
    limits: Limits,
    creates: RateTable,
    joins: RateTable,
    polls: Arc<PollCount>,
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
}

/// What a request is, as far as limits go.
enum Kind {
    Create,
    Join,
    LongPoll,
    Other,
}

fn kind_of(method: &Method, path: &str, query: Option<&str>) -> Kind {
    let mut parts = path.trim_start_matches('/').split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("rooms"), None, ..) if method == Method::POST => Kind::Create,
        (Some("rooms"), Some(_), Some("players"), None) if method == Method::POST => Kind::Join,
        (Some("rooms"), Some(_), None, _) if method == Method::GET && long_poll(query) => {
            Kind::LongPoll
        }
        _ => Kind::Other,
    }
}

/// `?since=V&wait=S` with S > 0: a request that may be held open.
fn long_poll(query: Option<&str>) -> bool {
    let Some(query) = query else {
        return false;
    };
    let mut since = false;
    let mut wait = false;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("since", _)) => since = true,
            Some(("wait", s)) => wait = s.parse::<u64>().map_or(true, |s| s > 0),
            _ => {}
        }
    }
    since && wait
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

impl Guard {
    /// The checks every request passes before its handler: header size, a JSON body's content
    /// type (so a cross-site `text/plain` form post, which needs no CORS preflight, is
    /// refused), and the per-client limits of its kind. The refusal to answer if it may not go
    /// on (refusals change nothing), and for a long-poll the slot it holds until its answer.
    pub fn admit(&self, request: &Request) -> Result<Option<PollSlot>, ApiError> {
        if header_bytes(request.headers()) > self.limits.max_header_bytes {
            return Err(ApiError::HeadersTooLarge);
        }
        let has_body = request.body().size_hint().upper() != Some(0);
        if has_body && request.method() != Method::GET && !is_json(request.headers()) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let client = client_of(request);
        let refused = |wait: Duration| ApiError::RateLimited {
            retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
        };
        match kind_of(
            request.method(),
            request.uri().path(),
            request.uri().query(),
        ) {
            Kind::Create => self.creates.take(client, Instant::now()).map_err(refused)?,
            Kind::Join => self.joins.take(client, Instant::now()).map_err(refused)?,
            Kind::LongPoll => {
                return self
                    .polls
                    .open(client)
                    .map(Some)
                    .ok_or(ApiError::TooManyPolls);
            }
            Kind::Other => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_allows_its_burst_then_refills_one_interval_at_a_time() {
        let table = RateTable::new(10);
        let t0 = Instant::now();
        let ip = Some("10.0.0.1".parse().unwrap());
        for _ in 0..10 {
            assert_eq!(table.take(ip, t0), Ok(()));
        }
        let wait = table.take(ip, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(6));
        assert!(table.take(ip, t0 + Duration::from_secs(5)).is_err());
        assert_eq!(table.take(ip, t0 + Duration::from_secs(6)), Ok(()));
        // Another address has its own budget.
        assert_eq!(table.take(Some("10.0.0.2".parse().unwrap()), t0), Ok(()));
    }

    #[test]
    fn the_table_stays_bounded_under_many_addresses() {
        let table = RateTable::new(1);
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED_CLIENTS as u32 + 100) {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(i));
            let _ = table.take(Some(ip), t0);
        }
        assert_eq!(table.tracked(), MAX_TRACKED_CLIENTS);
        // The overflow shares one budget: the newcomers after the first are refused.
        let late = Some(IpAddr::V4(std::net::Ipv4Addr::from(u32::MAX)));
        assert!(table.take(late, t0).is_err());
        // A minute later every budget has refilled: the table is swept and newcomers tracked.
        assert_eq!(table.take(late, t0 + MINUTE), Ok(()));
        assert_eq!(table.tracked(), 1);
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_v4_as_v4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(key_of(a), key_of(b));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(key_of(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }

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

    #[test]
    fn long_polls_are_told_apart_from_reads() {
        let kind =
            |m: Method, p: &str, q: Option<&str>| matches!(kind_of(&m, p, q), Kind::LongPoll);
        assert!(kind(Method::GET, "/rooms/abc", Some("since=3&wait=20")));
        assert!(!kind(Method::GET, "/rooms/abc", Some("since=3")));
        assert!(!kind(Method::GET, "/rooms/abc", Some("since=3&wait=0")));
        assert!(!kind(
            Method::GET,
            "/rooms/abc/sgf",
            Some("since=3&wait=20")
        ));
        assert!(matches!(
            kind_of(&Method::POST, "/rooms", None),
            Kind::Create
        ));
        assert!(matches!(
            kind_of(&Method::POST, "/rooms/x/players", None),
            Kind::Join
        ));
        assert!(matches!(
            kind_of(&Method::POST, "/rooms/x/actions", None),
            Kind::Other
        ));
    }

    #[test]
    fn poll_slots_free_on_drop_and_forget_idle_clients() {
        let count = Arc::new(PollCount::new(2, 3));
        let a = Some("10.0.0.1".parse().unwrap());
        let b = Some("10.0.0.2".parse().unwrap());
        let s1 = count.open(a).unwrap();
        let _s2 = count.open(a).unwrap();
        assert!(count.open(a).is_none(), "per-client cap");
        let _s3 = count.open(b).unwrap();
        assert!(count.open(b).is_none(), "total cap");
        drop(s1);
        assert!(count.open(b).is_some());
        drop(_s3);
        assert_eq!(count.clients.lock().unwrap().len(), 1);
    }
}
