//! Computer players' moves recorded once the save that carries them has landed (the metrics
//! `BotMoves`, `BotMoveTime`, `EngineFailures`): by [`super::land`], and by the save path for a
//! kept plan a catch-up played ([`landed_plan`]).

use std::time::Duration;

use madang_core::room::PlanLanded;

use crate::metrics::{self, Metric};

/// One computer player's move made by a search.
#[derive(Clone, Copy, Debug)]
pub(super) struct BotMove {
    /// The time the step took: the engine's choice, the rules' check and the apply.
    pub(super) took: Duration,
    /// The engine failed (or chose a move the rules refused) and the fallback was played.
    pub(super) fallback: bool,
}

/// Computer players' moves whose save landed, to be recorded.
#[derive(Debug, Default)]
pub(super) struct BotMoves(pub(super) Vec<BotMove>);

impl BotMoves {
    /// The save carrying these moves landed: records `BotMoves`, a `BotMoveTime` per move and an
    /// `EngineFailures` per fallback.
    pub(super) fn landed(self) {
        for m in self.0 {
            metrics::record(Metric::BotMove);
            metrics::record(Metric::BotMoveTime(m.took));
            if m.fallback {
                metrics::record(Metric::EngineFailure);
            }
        }
    }
}

/// A kept plan landed with the save of whoever loaded the room after it was due: recorded as
/// [`super::land`] records a move (`BotMoves`, its search time, an engine failure's metric and
/// log).
pub(in crate::service) fn landed_plan(id: &str, planned: PlanLanded) {
    if planned.fallback {
        tracing::warn!(
            room = %crate::api::ids::digest_of(id),
            "a computer player's engine failed; it played the fallback (바둑: resigned)"
        );
    }
    BotMoves(vec![BotMove {
        took: Duration::from_micros(planned.took_us),
        fallback: planned.fallback,
    }])
    .landed();
}
