//! The functions crate's integration tests, in one test binary: the real `madang` binary (or
//! the router in process) driven over HTTP. `cargo test -p madang-functions --test it edge::`
//! runs one module. A new subject is a new file here and a `mod` line below
//! (`docs/contributing.md`, "Tests"). The soak tests are a binary of their own behind the
//! `soak` feature (`tests/soak.rs`, `scripts/soak`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod abuse;
mod bots;
mod cdn_edge;
mod durability;
mod edge;
mod events_snapshot;
