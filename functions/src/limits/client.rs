//! Who is asking, as far as limits are concerned.
//!
//! - Locally, the socket's peer ([`crate::serve()`] sets it) — unless the peer is one of
//!   `MADANG_TRUSTED_PROXIES` (CIDRs): then the client is the right-most hop of
//!   `X-Forwarded-For` that is not a trusted proxy (every hop left of it could have been written
//!   by the client itself). [`crate::serve()`] resolves it once per request into a [`Client`].
//! - On Lambda, API Gateway's `sourceIp` (the event's source address; a Function URL's or
//!   HTTP API's, never a header the client wrote).
//!
//! IPv6 addresses count per /64, the block one subscriber usually holds.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use std::convert::Infallible;

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use ipnet::IpNet;

/// Who is asking, as the limits count it: the client's address (IPv4 as it is, IPv6 per /64),
/// or `None` when it is unknown (shared by everyone unknown). Limits only: kicks bind the seat,
/// not the network. On the local server [`crate::serve()`] resolves it once per request through
/// [`TrustedProxies`] and leaves it in the request's extensions; handlers take it as an
/// extractor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client(pub Option<IpAddr>);

impl Client {
    /// The client at `ip`, keyed as the limits count it ([`key_of`]).
    pub fn at(ip: IpAddr) -> Self {
        Client(Some(key_of(ip)))
    }

    /// A room-salted key of the address, for per-address counters inside one room (a
    /// spectator's chat rate). 0 when the address is unknown. The salt keeps one room's
    /// counters from telling anything about another's.
    pub fn key_for(&self, room_id: &str) -> u64 {
        use sha2::{Digest, Sha256};
        let bytes: &[u8] = match &self.0 {
            Some(IpAddr::V4(v4)) => &v4.octets(),
            Some(IpAddr::V6(v6)) => &v6.octets()[..8],
            None => return 0,
        };
        let digest = Sha256::new()
            .chain_update(room_id.as_bytes())
            .chain_update(bytes)
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(client_in(&parts.extensions))
    }
}

/// The address a limit counts: IPv4 as it is (also when IPv4-mapped), IPv6 per /64.
pub fn key_of(ip: IpAddr) -> IpAddr {
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

/// The client of a request: as [`crate::serve()`] resolved it, else the socket's peer, else API
/// Gateway's `sourceIp` (Lambda).
pub fn client_of(request: &Request) -> Client {
    client_in(request.extensions())
}

/// [`client_of`], from a request's extensions (for extractors, which see only the parts).
pub fn client_in(extensions: &axum::http::Extensions) -> Client {
    if let Some(client) = extensions.get::<Client>() {
        return *client;
    }
    if let Some(ConnectInfo(addr)) = extensions.get::<ConnectInfo<SocketAddr>>() {
        return Client::at(addr.ip());
    }
    Client(
        match extensions.get::<lambda_http::request::RequestContext>() {
            Some(lambda_http::request::RequestContext::ApiGatewayV2(ctx)) => ctx
                .http
                .source_ip
                .as_deref()
                .and_then(|ip| ip.parse().ok())
                .map(key_of),
            _ => None,
        },
    )
}

/// `MADANG_TRUSTED_PROXIES`: the proxies whose `X-Forwarded-For` the local server believes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses a comma-separated list of CIDRs (`10.0.0.0/8, ::1/128`); a bare address is its
    /// own /32 or /128. Anything else is an error: a typo must not trust the world.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let net = item
                .parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("MADANG_TRUSTED_PROXIES: `{item}` is not a CIDR"))?;
            nets.push(net);
        }
        Ok(TrustedProxies(nets))
    }

    /// `MADANG_TRUSTED_PROXIES` when set (none trusted otherwise).
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("MADANG_TRUSTED_PROXIES") {
            Ok(v) => Self::parse(&v),
            Err(_) => Ok(Self::default()),
        }
    }

    /// Whether `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// Whether no proxy is trusted (then headers are never read).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The client of a request that came from `peer`: `peer` itself unless it is trusted; then
    /// the right-most `X-Forwarded-For` hop that is not trusted (every header line read, in
    /// order, as one list). A hop that does not parse stops the walk: what lies left of it was
    /// not written by a proxy we trust, so the last trusted hop is the client.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let mut client = peer;
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        for hop in hops.iter().rev() {
            let Ok(ip) = hop.parse::<IpAddr>() else {
                break;
            };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_counts_per_64_and_mapped_v4_as_v4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(key_of(a), key_of(b));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(key_of(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn the_right_most_untrusted_hop_is_the_client() {
        let trusted = TrustedProxies::parse("10.0.0.0/8, 127.0.0.1").unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", "6.6.6.6, 1.2.3.4".parse().unwrap());
        headers.append("x-forwarded-for", "10.1.1.1".parse().unwrap());
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        assert_eq!(
            trusted.client(proxy, &headers),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        // An untrusted peer's header is ignored.
        let stranger: IpAddr = "8.8.8.8".parse().unwrap();
        assert_eq!(trusted.client(stranger, &headers), stranger);
        // Garbage stops the walk at the last trusted hop.
        let mut junk = HeaderMap::new();
        junk.insert("x-forwarded-for", "1.2.3.4, nonsense".parse().unwrap());
        assert_eq!(trusted.client(proxy, &junk), proxy);
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("").unwrap().is_empty());
    }
}
