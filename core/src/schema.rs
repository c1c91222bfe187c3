//! Option schemas: what a client needs to draw a game's room-creation screen — every option, its
//! allowed values and default, the constraints between options, and the presets
//! (`GET /games/{kind}`).
//!
//! Each game builds its schema from the same constants its validation uses (e.g.
//! [`YutOptions::PIECES`](crate::yut::YutOptions::PIECES)), and a test walks the combinations to
//! hold the two together: a combination the schema allows is accepted by `validate_options`, and
//! one it forbids is refused naming the field the schema names.
//!
//! The JSON form:
//!
//! ```json
//! {
//!   "game": "yut",
//!   "options": [{"key": "pieces", "label": "말 수", "values": {"oneOf": [2, 3, 4, 5]}, "default": 4}, …],
//!   "constraints": [{"when": {"ruleset": ["rulesPage"]}, "then": {"pieces": {"oneOf": [4]}, …},
//!                    "reportedAs": null, "reason": "…"}, …],
//!   "presets": [{"name": "rulesPage", "label": "…", "options": {…}}]
//! }
//! ```

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The pseudo-key constraints use for the number of players.
pub const PLAYERS: &str = "players";

/// A game's option schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSchema {
    /// The game's API name.
    pub game: &'static str,
    /// Every option, in the order a form would show them.
    pub options: Vec<OptionSpec>,
    /// Rules between options (and the head count) beyond each option's own values.
    pub constraints: Vec<Constraint>,
    /// Named sets of options a client can offer as one choice.
    pub presets: Vec<Preset>,
    /// The computer players the host can seat (`addBot`).
    pub bots: Bots,
}

/// The computer players a game offers: `{"levels": [{"level": 1, "label": "입문"}, …]}`,
/// weakest first (empty: none).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bots {
    /// The levels, weakest first.
    pub levels: Vec<crate::game::BotLevel>,
}

impl Bots {
    /// The levels game `G` offers.
    pub fn of<G: crate::game::Game>() -> Bots {
        Bots {
            levels: G::bot_levels().to_vec(),
        }
    }
}

/// One option.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionSpec {
    /// The key as clients send it; nested keys are dotted (`timeControl.mainSec`).
    pub key: &'static str,
    /// What the option is, in Korean.
    pub label: &'static str,
    /// The values it may take.
    pub values: Values,
    /// The value a missing key takes (`null`: computed from other options, see the label).
    pub default: Value,
}

/// A set of allowed values.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Values {
    /// Exactly these values (`null` among them when the option may be `null`).
    OneOf(Vec<Value>),
    /// Numbers from `min` to `max` in steps of `step` (from `min`), or `null` when `orNull`.
    #[serde(rename_all = "camelCase")]
    Range {
        /// The smallest allowed.
        min: f64,
        /// The largest allowed.
        max: f64,
        /// The step between allowed values.
        step: f64,
        /// Whether `null` (the computed default) is allowed too.
        or_null: bool,
    },
}

impl Values {
    /// `OneOf` of values serialized to their API form.
    pub fn one_of<T: Serialize>(values: impl IntoIterator<Item = T>) -> Values {
        Values::OneOf(
            values
                .into_iter()
                .map(|v| serde_json::to_value(v).unwrap_or(Value::Null))
                .collect(),
        )
    }

    /// Whether `value` is one of these.
    pub fn contains(&self, value: &Value) -> bool {
        match self {
            Values::OneOf(list) => list.contains(value),
            Values::Range {
                min,
                max,
                step,
                or_null,
            } => match value.as_f64() {
                Some(v) => (*min..=*max).contains(&v) && ((v - min) / step).fract() == 0.0,
                None => *or_null && value.is_null(),
            },
        }
    }
}

/// When every key of `when` holds one of its listed values, every key of `then` must hold one of
/// its allowed values. An empty `when` always applies.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Constraint {
    /// The condition: key → values that trigger the constraint.
    pub when: BTreeMap<&'static str, Vec<Value>>,
    /// What must then hold: key (or [`PLAYERS`]) → allowed values.
    pub then: BTreeMap<&'static str, Values>,
    /// The field an offending combination is refused under (`INVALID_OPTIONS` `field`); `null`:
    /// the offending key of `then` itself.
    pub reported_as: Option<&'static str>,
    /// Why, in Korean.
    pub reason: &'static str,
}

/// A named set of options.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    /// The preset's name (for 윷놀이, the `ruleset` value that selects it).
    pub name: &'static str,
    /// What it is, in Korean.
    pub label: &'static str,
    /// Every option's value under the preset.
    pub options: Value,
}

impl GameSchema {
    /// The option with this key.
    pub fn option(&self, key: &str) -> Option<&OptionSpec> {
        self.options.iter().find(|o| o.key == key)
    }

    /// Whether a combination is allowed: each option's value (looked up by key; `None` takes the
    /// default) is one of its values and every constraint that applies holds, for `players`
    /// people when given (constraints on [`PLAYERS`] are skipped without). `Err` names the field
    /// the combination is refused under: the first offending option in schema order, else the
    /// first offending constraint in order (validation checks in the same order).
    pub fn check<'a>(
        &'a self,
        lookup: impl Fn(&str) -> Option<&'a Value>,
        players: Option<usize>,
    ) -> Result<(), &'static str> {
        match self.offending(lookup, players).first() {
            Some(field) => Err(field),
            None => Ok(()),
        }
    }

    /// Every field a combination is refused under, in the order of [`GameSchema::check`]
    /// (empty: allowed).
    pub fn offending<'a>(
        &'a self,
        lookup: impl Fn(&str) -> Option<&'a Value>,
        players: Option<usize>,
    ) -> Vec<&'static str> {
        let value_of = |key: &str| lookup(key).or_else(|| self.option(key).map(|o| &o.default));
        let mut fields: Vec<&'static str> = self
            .options
            .iter()
            .filter(|spec| lookup(spec.key).is_some_and(|v| !spec.values.contains(v)))
            .map(|spec| spec.key)
            .collect();
        let head_count = players.map(Value::from);
        for constraint in &self.constraints {
            let applies = constraint
                .when
                .iter()
                .all(|(key, values)| value_of(key).is_some_and(|v| values.contains(v)));
            if !applies {
                continue;
            }
            for (key, allowed) in &constraint.then {
                let value = if *key == PLAYERS {
                    match &head_count {
                        Some(n) => n,
                        None => continue,
                    }
                } else {
                    value_of(key).unwrap_or(&Value::Null)
                };
                if !allowed.contains(value) {
                    fields.push(constraint.reported_as.unwrap_or(key));
                }
            }
        }
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ranges_allow_their_steps_and_null_only_when_asked() {
        let komi = Values::Range {
            min: -10.0,
            max: 10.0,
            step: 0.5,
            or_null: true,
        };
        for ok in [json!(-10), json!(6.5), json!(10.0), json!(null)] {
            assert!(komi.contains(&ok), "{ok}");
        }
        for bad in [json!(6.3), json!(10.5), json!("6.5")] {
            assert!(!komi.contains(&bad), "{bad}");
        }
        let periods = Values::Range {
            min: 1.0,
            max: 5.0,
            step: 1.0,
            or_null: false,
        };
        assert!(!periods.contains(&json!(null)));
    }

    #[test]
    fn constraints_apply_when_their_condition_holds_and_name_the_field() {
        let schema = GameSchema {
            bots: Bots { levels: Vec::new() },
            game: "test",
            options: vec![OptionSpec {
                key: "mode",
                label: "모드",
                values: Values::one_of(["a", "b"]),
                default: json!("a"),
            }],
            constraints: vec![Constraint {
                when: [("mode", vec![json!("b")])].into(),
                then: [(PLAYERS, Values::one_of([4]))].into(),
                reported_as: Some("mode"),
                reason: "b는 4명",
            }],
            presets: Vec::new(),
        };
        let b = json!("b");
        let with_b = |key: &str| (key == "mode").then_some(&b);
        assert_eq!(schema.check(with_b, Some(3)), Err("mode"));
        assert_eq!(schema.check(with_b, Some(4)), Ok(()));
        assert_eq!(schema.check(with_b, None), Ok(()));
        assert_eq!(schema.check(|_| None, Some(3)), Ok(()));
        let c = json!("c");
        assert_eq!(schema.check(|_| Some(&c), None), Err("mode"));
    }
}
