//! Computer players' moves, measured where they are made: in the catch-up of the save path.
//!
//! `core` stays pure (no clock), so the timing happens here: the catch-up is run one fired
//! timeout at a time ([`Room::catch_up_one`]), and each step that was a computer player's move
//! is timed with the process's monotonic clock. The moves are recorded as metrics only once the
//! save that carries them has landed ([`BotMoves::landed`]): an attempt whose save lost a race is
//! redone on the fresh room, where the bot's move may already be made by the winner, so counting
//! at compute time would count it twice. `BotMoves` thus equals the computer players' actions in
//! the rooms' logs.

use std::time::{Duration, Instant};

use madang_core::room::{Fired, MAX_TIMEOUTS_PER_CATCH_UP, Presence, Room};
use madang_core::{Game, Millis};

use crate::metrics::{self, Metric};

/// One computer player's move made by an attempt of the save path.
#[derive(Clone, Copy, Debug)]
struct BotMove {
    /// The time the step took: the engine's choice, the rules' check and the apply.
    took: Duration,
    /// The engine failed (or chose a move the rules refused) and the fallback was played.
    fallback: bool,
}

/// The computer players' moves one attempt made, not yet recorded.
#[derive(Debug, Default)]
pub struct BotMoves(Vec<BotMove>);

impl BotMoves {
    /// The save carrying these moves landed: records `BotMoves`, a `BotMoveTime` per move and an
    /// `EngineFailures` per fallback.
    pub fn landed(self) {
        for m in self.0 {
            metrics::record(Metric::BotMove);
            metrics::record(Metric::BotMoveTime(m.took));
            if m.fallback {
                metrics::record(Metric::EngineFailure);
            }
        }
    }
}

/// [`Room::catch_up`], step by step: fires every timeout due at `now` (at most
/// [`MAX_TIMEOUTS_PER_CATCH_UP`]) and notes each computer player's move in `bots`, timed.
pub fn catch_up<G: Game>(
    room: &mut Room<G>,
    now: Millis,
    presence: &Presence,
    bots: &mut BotMoves,
) -> Vec<G::Event> {
    let mut events = Vec::new();
    for _ in 0..MAX_TIMEOUTS_PER_CATCH_UP {
        let started = Instant::now();
        let Some(mut step) = room.catch_up_one(now, presence) else {
            break;
        };
        if let Fired::Bot { level, fallback } = step.fired {
            let took = started.elapsed();
            if fallback {
                // Core does no I/O: the why-log of an engine failure is written here.
                tracing::warn!(
                    room = %crate::api::ids::digest_of(&room.id),
                    game = G::NAME,
                    level,
                    "a computer player's engine failed; it played the fallback (바둑: resigned)"
                );
            }
            bots.0.push(BotMove { took, fallback });
        }
        events.append(&mut step.events);
    }
    events
}
