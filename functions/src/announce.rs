//! The announcer: the port through which live delivery hears of what landed.
//!
//! The one save path ([`crate::service::save::transact`]) tells it "room R saved at version V"
//! once a save has landed, and the chat service ([`crate::service::chat`]) tells it "chat record
//! N appended in room R" once the append has landed. Whatever saves — a request, a read's
//! catch-up, the sweeper, the thinker, the bot function — goes through those two, so every
//! change is announced the same way. Storage knows nothing of it: a store (or a wrapper that
//! injects faults into one) only stores, and cannot lose an announcement.
//!
//! Implementations:
//! - [`LocalAnnouncer`]: the local server's in-process channels, which its `GET /live` sockets
//!   listen to ([`crate::live::local`]); each woken socket reads what it needs itself.
//! - `AwsAnnouncer` ([`crate::live::aws`]): the connection registry in the rooms table and
//!   `PostToConnection`, each connection posted its frame.
//! - [`NoAnnouncer`]: nobody watches live (the local server on DynamoDB, where other processes'
//!   saves would never reach this process's sockets; tools).
//!
//! An announcement never fails and never undoes anything: the save or the append has landed,
//! and delivery is a hint (clients converge by reading the room and the chat log).

use std::fmt::Debug;
use std::pin::Pin;

use madang_infra::notify::{Notifier, Subscription};
use serde_json::value::RawValue;

/// What one live watcher of a room is told of a change ([`Announcer::saved`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tell {
    /// Nothing: the watcher is the actor's, who has the new room in its action's answer.
    Nothing,
    /// The version only (`{"type":"version","version":V}`).
    Version,
    /// The version and the watcher's own room view, this JSON text (as `GET /rooms/{id}`
    /// renders it for that viewer, without `liveUrl`, which the announcer adds).
    View(String),
}

/// What a watcher of `player`'s (`None`: a spectator's) is told of a save; asked once per
/// distinct viewer, when the announcer needs it (a view is rendered only for viewers watching).
pub type Teller<'a> = dyn Fn(Option<&str>) -> Tell + Sync + 'a;

/// Whether a watcher of `player`'s (`None`: a spectator's) may receive a chat message: the chat
/// service holds the rule, the announcer only knows who watches.
pub type Receives<'a> = dyn Fn(Option<&str>) -> bool + Sync + 'a;

/// What an announcement returns: done once delivery is handed over, within the announcer's
/// own stated bound.
pub type Announced<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Told of every change that landed, to pass on to whoever watches the room live.
pub trait Announcer: Send + Sync + Debug {
    /// Room `room` was saved at `version`; `tell` says what each viewer is told.
    fn saved<'a>(&'a self, room: &'a str, version: u64, tell: &'a Teller<'a>) -> Announced<'a>;

    /// Room `room`'s chat log has a new record, number `seq`: `message`, as
    /// `GET /rooms/{id}/chat` renders it (JSON text), for the viewers `may_receive` admits.
    fn chat_posted<'a>(
        &'a self,
        room: &'a str,
        seq: u64,
        message: &'a RawValue,
        may_receive: &'a Receives<'a>,
    ) -> Announced<'a>;

    /// The in-process channels this process's sockets listen to, when the announcer has them:
    /// whether `GET /live` is served at all.
    fn local(&self) -> Option<&LocalAnnouncer> {
        None
    }
}

/// The announcer that tells nobody.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAnnouncer;

impl Announcer for NoAnnouncer {
    fn saved<'a>(&'a self, _: &'a str, _: u64, _: &'a Teller<'a>) -> Announced<'a> {
        Box::pin(std::future::ready(()))
    }

    fn chat_posted<'a>(
        &'a self,
        _: &'a str,
        _: u64,
        _: &'a RawValue,
        _: &'a Receives<'a>,
    ) -> Announced<'a> {
        Box::pin(std::future::ready(()))
    }
}

/// The local server's announcer: one `watch` channel per room some socket watches for its
/// versions, one for its chat ([`Notifier`]: a channel goes with its last subscriber, so the
/// maps hold only watched rooms). Only right when every save of the store is made in this
/// process (the embedded store): a save elsewhere would never wake these sockets.
///
/// It wakes, nothing more: the socket renders its viewer's view, or reads the chat log and
/// applies the chat rule, itself, on the room as it is when it sends (the embedded store's reads
/// are cheap), so neither `tell` nor `may_receive` is asked.
#[derive(Debug, Default)]
pub struct LocalAnnouncer {
    versions: Notifier,
    chat: Notifier,
}

impl LocalAnnouncer {
    /// A subscription to `room`'s versions that sees every version announced from now on
    /// (subscribe before reading the room, so a save between the read and the wait is seen).
    pub fn versions(&self, room: &str) -> Subscription<'_> {
        self.versions.subscribe(room)
    }

    /// A subscription to `room`'s chat wake: the newest record number announced from now on.
    pub fn chat(&self, room: &str) -> Subscription<'_> {
        self.chat.subscribe(room)
    }
}

impl Announcer for LocalAnnouncer {
    fn saved<'a>(&'a self, room: &'a str, version: u64, _: &'a Teller<'a>) -> Announced<'a> {
        self.versions.notify(room, version);
        Box::pin(std::future::ready(()))
    }

    fn chat_posted<'a>(
        &'a self,
        room: &'a str,
        seq: u64,
        _: &'a RawValue,
        _: &'a Receives<'a>,
    ) -> Announced<'a> {
        self.chat.notify(room, seq);
        Box::pin(std::future::ready(()))
    }

    fn local(&self) -> Option<&LocalAnnouncer> {
        Some(self)
    }
}
