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

/// The replay log's ops of the actions ([`crate::Game::log_action`]); op 7 is followed by a
/// byte naming one of the rarer actions.
mod op {
    /// A stone or a pass the stored move list keeps: no payload (the list has it).
    pub const PLAYED: u8 = 0;
    /// A stone or a pass an undo took back, spelled out: the point's index, or `size²` for a
    /// pass.
    pub const TAKEN_BACK: u8 = 1;
    pub const TOGGLE_DEAD: u8 = 2;
    pub const TOGGLE_SEKI: u8 = 3;
    pub const AGREE_SCORE: u8 = 4;
    pub const RESUME_PLAY: u8 = 5;
    pub const RESIGN: u8 = 6;
    pub const MORE: u8 = 7;
}

/// The rarer actions behind [`op::MORE`], in this order.
pub(crate) const MORE: [BadukAction; 8] = [
    BadukAction::RequestUndo {},
    BadukAction::RespondUndo { accept: false },
    BadukAction::RespondUndo { accept: true },
    BadukAction::OfferDraw {},
    BadukAction::RespondDraw { accept: false },
    BadukAction::RespondDraw { accept: true },
    BadukAction::CancelOffer {},
    BadukAction::Timeout {},
];

/// What a [`op::PLAYED`] step reads back as until the move list fills it in
/// ([`resolve`]): a point no board has.
pub(crate) const FROM_THE_RECORD: BadukAction = BadukAction::Place { x: -1, y: -1 };

/// Whether steps of `code` are kept by the move list.
pub(crate) fn recorded(code: u8) -> bool {
    code == op::PLAYED
}

/// Writes an accepted `action` of a game on `size` lines for the replay log: its op, and a
/// point's index `y · size + x` as a varint where the move list does not keep it (a
/// dead-stone or seki mark: one byte up to index 127, two past it). A stone or a pass writes
/// nothing: the stored move list (9 bits a move on 19×19) already has it.
pub(crate) fn log(action: &BadukAction, size: u8, out: &mut Vec<u8>) -> u8 {
    let mut point = |x: i32, y: i32, code: u8| {
        let index = i64::from(y) * i64::from(size) + i64::from(x);
        crate::room::put_varint(out, u64::try_from(index).unwrap_or(0));
        code
    };
    match *action {
        BadukAction::Place { .. } | BadukAction::Pass {} => op::PLAYED,
        BadukAction::ToggleDead { x, y } => point(x, y, op::TOGGLE_DEAD),
        BadukAction::ToggleSeki { x, y } => point(x, y, op::TOGGLE_SEKI),
        BadukAction::AgreeScore {} => op::AGREE_SCORE,
        BadukAction::ResumePlay {} => op::RESUME_PLAY,
        BadukAction::Resign {} => op::RESIGN,
        ref rare => {
            let index = MORE.iter().position(|a| a == rare).unwrap_or(0);
            out.push(index as u8);
            op::MORE
        }
    }
}

/// Reads back what [`log`] (or [`spell_out`]) wrote with `code`; `None` for anything they never
/// write (a point off the board included). A [`op::PLAYED`] step reads as
/// [`FROM_THE_RECORD`].
pub(crate) fn read(code: u8, size: u8, input: &mut &[u8]) -> Option<BadukAction> {
    let points = u64::from(size) * u64::from(size);
    let mut index = |limit: u64| {
        let index = crate::room::take_varint(input)?;
        (index < limit).then_some(index)
    };
    let at = |index: u64| {
        let size = u64::from(size);
        ((index % size) as i32, (index / size) as i32)
    };
    Some(match code {
        op::PLAYED => FROM_THE_RECORD,
        op::TAKEN_BACK => match index(points + 1)? {
            i if i == points => BadukAction::Pass {},
            i => {
                let (x, y) = at(i);
                BadukAction::Place { x, y }
            }
        },
        op::TOGGLE_DEAD => {
            let (x, y) = at(index(points)?);
            BadukAction::ToggleDead { x, y }
        }
        op::TOGGLE_SEKI => {
            let (x, y) = at(index(points)?);
            BadukAction::ToggleSeki { x, y }
        }
        op::AGREE_SCORE => BadukAction::AgreeScore {},
        op::RESUME_PLAY => BadukAction::ResumePlay {},
        op::RESIGN => BadukAction::Resign {},
        op::MORE => MORE
            .get(usize::from(crate::room::take_byte(input)?))?
            .clone(),
        _ => return None,
    })
}

/// A move an undo takes off the move list, spelled out for the log ([`op::TAKEN_BACK`]).
pub(crate) fn spell_out(point: Option<super::point::Point>, size: u8) -> (u8, Vec<u8>) {
    let index = point.map_or(usize::from(size) * usize::from(size), |p| p.index(size));
    let mut out = Vec::new();
    crate::room::put_varint(&mut out, index as u64);
    (op::TAKEN_BACK, out)
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
