//! What a player can do (§8.2).

use serde::{Deserialize, Serialize};

use super::board::Position;

/// A player's action, as clients send it: `{"type":"THROW"}`,
/// `{"type":"MOVE","throwIndex":0,"from":"home"}` (or `"from":5`), `{"type":"CONCEDE"}`,
/// `{"type":"RECOMMEND","throwIndex":0,"from":5}`, `{"type":"TAKE_CONTROL"}`.
/// Unknown fields are refused.
///
/// ```
/// use madang_core::yut::{Action, Position};
///
/// let action: Action = serde_json::from_str(r#"{"type":"MOVE","throwIndex":1,"from":"home"}"#)?;
/// assert_eq!(action, Action::Move { throw_index: 1, from: Position::Home });
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", try_from = "WireAction")]
pub enum Action {
    /// Throw the sticks.
    #[serde(rename = "THROW")]
    Throw,
    /// Use pending result `throw_index` on the piece(s) at `from`: a spot, or `"home"` for the
    /// lowest-numbered waiting piece (ruling Y6).
    #[serde(rename = "MOVE", rename_all = "camelCase")]
    Move {
        /// Index into the pending results.
        throw_index: usize,
        /// Where the piece or stack to move stands.
        from: Position,
    },
    /// Give up (ruling Y10).
    #[serde(rename = "CONCEDE")]
    Concede,
    /// Team games: suggest a move to the teammate on turn. Shown to the team only; moves
    /// nothing.
    #[serde(rename = "RECOMMEND", rename_all = "camelCase")]
    Recommend {
        /// Index into the pending results.
        throw_index: usize,
        /// Where the piece or stack to move stands.
        from: Position,
    },
    /// Take the seat back from auto play (the rules page's [직접 하기]).
    #[serde(rename = "TAKE_CONTROL")]
    TakeControl,
}

/// One schema per `type`, exactly the fields [`WireAction`] accepts for it (schema only).
#[derive(schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
#[allow(dead_code)]
enum ActionSchema {
    /// Throw the sticks.
    #[serde(rename = "THROW")]
    Throw {},
    /// Use pending result `throwIndex` on the piece(s) at `from` (`"home"`: the lowest-numbered
    /// waiting piece, ruling Y6).
    #[serde(rename = "MOVE", rename_all = "camelCase")]
    Move {
        /// Index into `pending`.
        throw_index: usize,
        /// Where the piece or stack to move stands.
        from: Position,
    },
    /// Give up (ruling Y10).
    #[serde(rename = "CONCEDE")]
    Concede {},
    /// Team games: suggest a move to the teammate on turn (shown to the team only).
    #[serde(rename = "RECOMMEND", rename_all = "camelCase")]
    Recommend {
        /// Index into `pending`.
        throw_index: usize,
        /// Where the piece or stack to move stands.
        from: Position,
    },
    /// Take the seat back from auto play.
    #[serde(rename = "TAKE_CONTROL")]
    TakeControl {},
}

impl schemars::JsonSchema for Action {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "YutAction".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ActionSchema::json_schema(generator)
    }
}

/// The JSON form read field by field. serde's internally tagged enums ignore unknown fields of
/// unit variants (`{"type":"THROW","power":9}` would pass), so actions are read through this
/// flat struct, which refuses unknown keys and checks each type's fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireAction {
    #[serde(rename = "type")]
    kind: WireKind,
    throw_index: Option<usize>,
    from: Option<Position>,
}

#[derive(Deserialize)]
enum WireKind {
    #[serde(rename = "THROW")]
    Throw,
    #[serde(rename = "MOVE")]
    Move,
    #[serde(rename = "CONCEDE")]
    Concede,
    #[serde(rename = "RECOMMEND")]
    Recommend,
    #[serde(rename = "TAKE_CONTROL")]
    TakeControl,
}

impl TryFrom<WireAction> for Action {
    type Error = &'static str;

    fn try_from(wire: WireAction) -> Result<Self, Self::Error> {
        match (wire.kind, wire.throw_index, wire.from) {
            (WireKind::Throw, None, None) => Ok(Action::Throw),
            (WireKind::Concede, None, None) => Ok(Action::Concede),
            (WireKind::TakeControl, None, None) => Ok(Action::TakeControl),
            (WireKind::Throw | WireKind::Concede | WireKind::TakeControl, _, _) => {
                Err("THROW, CONCEDE and TAKE_CONTROL take no throwIndex or from")
            }
            (WireKind::Move, Some(throw_index), Some(from)) => {
                Ok(Action::Move { throw_index, from })
            }
            (WireKind::Recommend, Some(throw_index), Some(from)) => {
                Ok(Action::Recommend { throw_index, from })
            }
            (WireKind::Move | WireKind::Recommend, _, _) => {
                Err("MOVE and RECOMMEND need throwIndex and from")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yut::Node;

    #[test]
    fn actions_read_and_write_the_api_form() {
        let cases = [
            (Action::Throw, r#"{"type":"THROW"}"#),
            (Action::Concede, r#"{"type":"CONCEDE"}"#),
            (Action::TakeControl, r#"{"type":"TAKE_CONTROL"}"#),
            (
                Action::Recommend {
                    throw_index: 1,
                    from: Position::Board(Node::MO),
                },
                r#"{"type":"RECOMMEND","throwIndex":1,"from":5}"#,
            ),
            (
                Action::Move {
                    throw_index: 0,
                    from: Position::Home,
                },
                r#"{"type":"MOVE","throwIndex":0,"from":"home"}"#,
            ),
            (
                Action::Move {
                    throw_index: 2,
                    from: Position::Board(Node::MO),
                },
                r#"{"type":"MOVE","throwIndex":2,"from":5}"#,
            ),
        ];
        for (action, json) in cases {
            assert_eq!(serde_json::to_string(&action).unwrap(), json);
            assert_eq!(serde_json::from_str::<Action>(json).unwrap(), action);
        }
    }

    #[test]
    fn unknown_fields_and_types_are_refused() {
        for json in [
            r#"{"type":"THROW","power":9}"#,
            r#"{"type":"MOVE","throwIndex":0,"from":"home","to":3}"#,
            r#"{"type":"MOVE","throwIndex":0}"#,
            r#"{"type":"RECOMMEND","from":5}"#,
            r#"{"type":"TAKE_CONTROL","from":5}"#,
            r#"{"type":"JUMP"}"#,
            r#"{"type":"MOVE","throwIndex":0,"from":29}"#,
        ] {
            assert!(serde_json::from_str::<Action>(json).is_err(), "{json}");
        }
    }
}

/// The replay log's ops of the actions ([`crate::Game::log_action`]).
mod op {
    pub const THROW: u8 = 0;
    pub const MOVE: u8 = 1;
    pub const CONCEDE: u8 = 2;
    pub const RECOMMEND: u8 = 3;
    pub const TAKE_CONTROL: u8 = 4;
}

/// A move's payload in the replay log: one varint, `throwIndex · 32 + from` (`from` the
/// position's code: a spot 0..29, 29 waiting, 30 finished), so one byte while the result used
/// is among the first four pending.
fn move_code(throw_index: usize, from: Position) -> u64 {
    (throw_index as u64) << 5 | u64::from(from.code())
}

fn read_move(input: &mut &[u8]) -> Option<(usize, Position)> {
    let code = crate::room::take_varint(input)?;
    let from = Position::from_code((code & 31) as u8)?;
    Some((usize::try_from(code >> 5).ok()?, from))
}

/// Writes `action` for the replay log: its op, and a move's payload appended to `out`.
pub(crate) fn log(action: &Action, out: &mut Vec<u8>) -> u8 {
    match *action {
        Action::Throw => op::THROW,
        Action::Move { throw_index, from } => {
            crate::room::put_varint(out, move_code(throw_index, from));
            op::MOVE
        }
        Action::Concede => op::CONCEDE,
        Action::Recommend { throw_index, from } => {
            crate::room::put_varint(out, move_code(throw_index, from));
            op::RECOMMEND
        }
        Action::TakeControl => op::TAKE_CONTROL,
    }
}

/// Reads back what [`log`] wrote with `code`; `None` for anything it never writes.
pub(crate) fn read(code: u8, input: &mut &[u8]) -> Option<Action> {
    Some(match code {
        op::THROW => Action::Throw,
        op::MOVE => {
            let (throw_index, from) = read_move(input)?;
            Action::Move { throw_index, from }
        }
        op::CONCEDE => Action::Concede,
        op::RECOMMEND => {
            let (throw_index, from) = read_move(input)?;
            Action::Recommend { throw_index, from }
        }
        op::TAKE_CONTROL => Action::TakeControl,
        _ => return None,
    })
}
