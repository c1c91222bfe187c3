//! The thinker: who makes a computer player's due move, once per move, off the request path.
//!
//! The save path hands a room to the deployment's [`Thinker`] whenever a computer player's move
//! comes next in it ([`crate::service::save::transact`]). What the thinker does with that cue
//! depends on where the server runs:
//!
//! - **Locally** ([`LocalThinker`], `thinker/local.rs`): one task per room (single flight: a
//!   cue for a room that already has one only wakes it), which waits for the move's due time,
//!   searches it on a bounded pool of blocking threads (`MADANG_BOT_THREADS`, default 1) and
//!   saves it, announced as every save is. The async runtime never runs a search, so `/healthz`, reads and sockets are answered meanwhile. A
//!   saved move that makes a person's turn pushes it (Web Push), as a person's move does.
//! - **On AWS** ([`crate::thinker::lambda`]): the `api` function invokes `BotFunction`
//!   asynchronously when its own save made a move due; that function searches the move and,
//!   instead of waiting for its due time (billed), keeps it with the room as a plan, which the
//!   catch-up of whoever loads the room after its `deadlineAt` plays (the sweeper as the
//!   backstop). A reader never invokes it (one search per move, however many watch), except as
//!   the backstop for an invocation that was lost, and the sweeper is the backstop of last
//!   resort. Locally the task waits and saves the move itself, as before: its wait costs
//!   nothing, and the move lands on time with no reader at all.
//! - **Inside the thinker itself** ([`NoThinker`]): its saves cue nothing; its loop looks again.

use std::pin::Pin;

use madang_core::Millis;
use madang_core::room::RoomId;

pub mod lambda;
mod local;

pub use local::{DEFAULT_BOT_THREADS, LocalThinker};

/// Why a room is handed to the thinker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    /// This process's save landed and left a computer player's move to make.
    Saved,
    /// This process only looked at the room (a read, the sweeper), and the move is still to come.
    Seen,
}

/// What [`Thinker::due`] returns: done once the thinker has the cue (on AWS, once the bot
/// function's invocation is queued: an execution environment is frozen after its answer, so
/// nothing may be left running).
pub type Cued<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Makes computer players' moves: told when one comes next in a room.
pub trait Thinker: Send + Sync + std::fmt::Debug {
    /// A computer player's move comes next in room `id`, due at `at` (epoch ms). Never waits
    /// for the move: it arrives later as a new version of the room. Never fails the request
    /// (the sweeper is the backstop of a cue that went nowhere).
    fn due<'a>(&'a self, id: &'a RoomId, at: Millis, cue: Cue) -> Cued<'a>;

    /// Room `id`'s review has just been claimed ([`crate::service::review`]): compute it and
    /// keep it, off the request path. Never waits for it and never fails the request (a
    /// computation that went nowhere leaves a stale claim, which the next request claims
    /// again). The default does nothing (the thinker's own process computes what it is handed).
    fn review<'a>(&'a self, id: &'a RoomId) -> Cued<'a> {
        let _ = id;
        Box::pin(std::future::ready(()))
    }
}

/// The thinker that does nothing: for the thinker's own saves, and for tools that only read.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoThinker;

impl Thinker for NoThinker {
    fn due<'a>(&'a self, _: &'a RoomId, _: Millis, _: Cue) -> Cued<'a> {
        Box::pin(std::future::ready(()))
    }
}
