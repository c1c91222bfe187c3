//! Actions (§8.2), JSON tagged by `type` with the spec's names.

use serde::{Deserialize, Serialize};

/// One player's action. Unknown fields are refused.
///
/// Actions without a payload are written `Pass {}` rather than `Pass`: serde ignores extra
/// fields of unit variants in an internally tagged enum, and `{"type":"pass","x":1}` must fail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum BadukAction {
    /// Put a stone at `{x, y}` (`y = 0` at the top). Coordinates are signed so that an
    /// off-board point is answered with `OFF_BOARD`, not a parse error.
    Place {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// Pass; the second consecutive pass starts the scoring phase.
    Pass {},
    /// Scoring: mark the group of the stone at `{x, y}` dead, or alive again.
    ToggleDead {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// Scoring: mark the empty region at `{x, y}` as seki, or not.
    ToggleSeki {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// Scoring: agree to the current marks.
    AgreeScore {},
    /// Scoring: dispute the marks and go back to play; the requester's opponent moves first.
    ResumePlay {},
    /// Ask the opponent to take back one's last move (and their reply, B4).
    RequestUndo {},
    /// Answer the opponent's undo request.
    RespondUndo {
        /// Whether to take the moves back.
        accept: bool,
    },
    /// Offer a draw.
    OfferDraw {},
    /// Answer the opponent's draw offer.
    RespondDraw {
        /// Whether to end the game as a draw.
        accept: bool,
    },
    /// Withdraw one's own pending undo request or draw offer.
    CancelOffer {},
    /// Resign.
    Resign {},
    /// The system acting when a deadline passed (only valid with `Actor::Timeout`; not part of
    /// the API's schema, a client sending it is refused).
    #[schemars(skip)]
    Timeout {},
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_tagged_by_type_and_refuse_unknown_fields() {
        let a: BadukAction = serde_json::from_str(r#"{"type":"place","x":3,"y":4}"#).unwrap();
        assert_eq!(a, BadukAction::Place { x: 3, y: 4 });
        let a: BadukAction =
            serde_json::from_str(r#"{"type":"respondUndo","accept":true}"#).unwrap();
        assert_eq!(a, BadukAction::RespondUndo { accept: true });
        assert!(serde_json::from_str::<BadukAction>(r#"{"type":"pass","x":1}"#).is_err());
        assert!(serde_json::from_str::<BadukAction>(r#"{"type":"fly"}"#).is_err());
    }
}
