//! Bounds on what one client can make the server do: rooms created and joins per minute, open
//! long-polls per client and in total, the header block's size and count, bodies that must be
//! JSON and may not be declared over the limit.
//!
//! One concept per file:
//! - [`mod@env`]: the `MADANG_LIMIT_*` settings.
//! - [`client`]: who is asking — the socket's peer, or the right-most untrusted
//!   `X-Forwarded-For` hop behind `MADANG_TRUSTED_PROXIES`, or API Gateway's `sourceIp`.
//! - [`rate`]: per-client budgets (GCRA).
//! - [`polls`]: open long-poll slots.
//! - [`guard`]: the counters of one router, and the checks of the header block that every
//!   request passes in the router's edge layer.
//!
//! There is no classifier of raw paths and queries: the per-route limits are taken inside the
//! handlers ([`Guard::create`], [`Guard::join`], [`Guard::poll`]), from the same decoded, typed
//! request the handler reads, so a percent-encoded `?%73ince=` is the `since` it decodes to.
//!
//! Counting is per process. Locally that is the whole server; on Lambda every instance counts
//! on its own, so a client spread over many instances gets more than its share — there the
//! limits are best effort, and a WAF rate-based rule in front of the API is the real per-address
//! bound (`docs/deploy.md`).

pub mod client;
pub mod env;
pub mod guard;
pub mod polls;
pub mod rate;

pub use client::{Client, TrustedProxies, client_in, client_of};
pub use guard::{Guard, MAX_HEADERS, header_bytes};
pub use polls::PollSlot;
pub use rate::{MAX_TRACKED_CLIENTS, RateTable};
