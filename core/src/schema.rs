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
//!   "presets": [{"name": "rulesPage", "label": "규칙 안내 페이지", "help": "…", "options": {…}}, …],
//!   "options": [{"key": "pieces", "label": "말 수", "help": null, "group": "기본",
//!                "advanced": false, "values": {"oneOf": [2, 3, 4, 5]},
//!                "valueLabels": {"2": "2개", "3": "3개", "4": "4개", "5": "5개"}, "default": 4}, …],
//!   "constraints": [{"when": {"ruleset": ["rulesPage"]}, "then": {"pieces": {"oneOf": [4]}, …},
//!                    "reportedAs": null, "reason": "…"}, …],
//!   "throwOdds": [{"stickModel": "realistic", "backdo": true, "odds": {"do": 0.1152, …}}, …]
//! }
//! ```
//!
//! Everything a person reads is Korean: an option's `label` (short) and `help` (one line), every
//! enumerated value's label in `valueLabels` (keyed by [`value_key`]), a preset's `label` and
//! `help`, and each constraint's `reason`, a whole sentence. A client that shows only these never
//! shows an option key or a raw value.

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
    /// Named sets of options a client can offer as one choice, the first choice a form shows.
    pub presets: Vec<Preset>,
    /// Every option, in the order a form would show them.
    pub options: Vec<OptionSpec>,
    /// Rules between options (and the head count) beyond each option's own values.
    pub constraints: Vec<Constraint>,
    /// 윷놀이 only: the chance of each result under each stick model, with and without 빽도, as
    /// the throw draws it (for the rules view; clients need not work it out again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throw_odds: Option<Vec<ThrowOdds>>,
    /// The computer players the host can seat (`addBot`).
    pub bots: Bots,
}

/// The chance of each throw result under one stick model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThrowOdds {
    /// The `stickModel` value.
    pub stick_model: Value,
    /// The `backdo` value.
    pub backdo: bool,
    /// Result (`do` … `backdo`) → probability; 빽도 is absent when `backdo` is off.
    pub odds: BTreeMap<&'static str, f64>,
}

/// The key of `value` in [`OptionSpec::value_labels`]: a string as itself, anything else as its
/// JSON text (`4`, `true`, `null`).
pub fn value_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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
    /// What the option is: a short Korean label.
    pub label: &'static str,
    /// One Korean line more, where the label alone does not say enough.
    pub help: Option<&'static str>,
    /// The Korean title of the group the option belongs to (기본, 시간, 세부 규칙, …).
    pub group: &'static str,
    /// Whether a form folds it away by default (house rules and fine tuning).
    pub advanced: bool,
    /// The values it may take.
    pub values: Values,
    /// A Korean label for every enumerated value (and for `null` where a range allows it),
    /// keyed by [`value_key`].
    pub value_labels: BTreeMap<String, &'static str>,
    /// The value a missing key takes (`null`: computed from other options, see `help`).
    pub default: Value,
}

impl OptionSpec {
    /// An option in `group` with its values labelled in the order of `values` (a `OneOf`
    /// list, or `null` for a range that allows it); `advanced` and `help` are set after.
    pub fn new(
        key: &'static str,
        label: &'static str,
        group: &'static str,
        values: Values,
        labels: &[&'static str],
        default: Value,
    ) -> OptionSpec {
        let enumerated: Vec<Value> = match &values {
            Values::OneOf(list) => list.clone(),
            Values::Range { or_null: true, .. } => vec![Value::Null],
            Values::Range { .. } => Vec::new(),
        };
        let value_labels = enumerated
            .iter()
            .zip(labels.iter().copied())
            .map(|(v, l)| (value_key(v), l))
            .collect();
        OptionSpec {
            key,
            label,
            help: None,
            group,
            advanced: false,
            values,
            value_labels,
            default,
        }
    }

    /// With a line of help.
    pub fn help(mut self, help: &'static str) -> OptionSpec {
        self.help = Some(help);
        self
    }

    /// Folded away by default.
    pub fn advanced(mut self) -> OptionSpec {
        self.advanced = true;
        self
    }

    /// The values a form offers one by one (a `OneOf` list, or `null` of a range).
    pub fn enumerated(&self) -> Vec<Value> {
        match &self.values {
            Values::OneOf(list) => list.clone(),
            Values::Range { or_null: true, .. } => vec![Value::Null],
            Values::Range { .. } => Vec::new(),
        }
    }

    /// The Korean label of `value`, if it has one.
    pub fn value_label(&self, value: &Value) -> Option<&'static str> {
        self.value_labels.get(&value_key(value)).copied()
    }
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
    /// Why, as a whole Korean sentence a form can show as it is ("팀전은 4·6·8명이 해요.").
    pub reason: &'static str,
}

/// A named set of options.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    /// The preset's name (for 윷놀이's `yutMd` and `rulesPage`, the `ruleset` value that selects
    /// it).
    pub name: &'static str,
    /// Its Korean name (기본 규칙, 빠른 판, …).
    pub label: &'static str,
    /// One Korean line on what it is for.
    pub help: &'static str,
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
            options: vec![OptionSpec::new(
                "mode",
                "모드",
                "기본",
                Values::one_of(["a", "b"]),
                &["가", "나"],
                json!("a"),
            )],
            constraints: vec![Constraint {
                when: [("mode", vec![json!("b")])].into(),
                then: [(PLAYERS, Values::one_of([4]))].into(),
                reported_as: Some("mode"),
                reason: "b는 4명",
            }],
            presets: Vec::new(),
            throw_odds: None,
        };
        assert_eq!(schema.options[0].value_label(&json!("b")), Some("나"));
        let b = json!("b");
        let with_b = |key: &str| (key == "mode").then_some(&b);
        assert_eq!(schema.check(with_b, Some(3)), Err("mode"));
        assert_eq!(schema.check(with_b, Some(4)), Ok(()));
        assert_eq!(schema.check(with_b, None), Ok(()));
        assert_eq!(schema.check(|_| None, Some(3)), Ok(()));
        let c = json!("c");
        assert_eq!(schema.check(|_| Some(&c), None), Err("mode"));
    }

    fn hangul(text: &str) -> bool {
        text.chars().any(|c| ('가'..='힣').contains(&c))
    }

    #[test]
    fn every_enumerated_value_of_both_games_has_a_korean_label_and_nothing_reads_as_a_key() {
        for schema in [
            crate::yut::YutOptions::schema(),
            crate::baduk::BadukOptions::schema(),
        ] {
            let keys: Vec<&str> = schema.options.iter().map(|o| o.key).collect();
            let mut raw: Vec<String> = Vec::new();
            for option in &schema.options {
                assert!(
                    hangul(option.label),
                    "{}: label {:?}",
                    option.key,
                    option.label
                );
                assert!(hangul(option.group), "{}: group", option.key);
                if let Some(help) = option.help {
                    assert!(hangul(help), "{}: help {help:?}", option.key);
                }
                let enumerated = option.enumerated();
                assert_eq!(
                    option.value_labels.len(),
                    enumerated.len(),
                    "{}: a label for each value and no other",
                    option.key
                );
                let mut seen = std::collections::BTreeSet::new();
                for value in &enumerated {
                    let label = option.value_label(value);
                    assert!(
                        label.is_some_and(hangul),
                        "{} = {value}: no Korean label",
                        option.key
                    );
                    assert!(
                        seen.insert(label),
                        "{}: two values read the same",
                        option.key
                    );
                    if let Value::String(s) = value {
                        raw.push(s.clone());
                    }
                }
            }
            raw.extend(["true", "false", "null"].map(String::from));
            // What a person reads names no option key and no raw value.
            let mut texts: Vec<&str> = Vec::new();
            for option in &schema.options {
                texts.push(option.label);
                texts.extend(option.help);
                texts.extend(option.value_labels.values());
            }
            for preset in &schema.presets {
                assert!(
                    hangul(preset.label) && hangul(preset.help),
                    "{}",
                    preset.name
                );
                texts.extend([preset.label, preset.help]);
            }
            for constraint in &schema.constraints {
                assert!(hangul(constraint.reason));
                texts.push(constraint.reason);
            }
            for text in texts {
                for word in keys.iter().copied().chain(raw.iter().map(String::as_str)) {
                    let word = word.rsplit('.').next().unwrap_or(word);
                    assert!(
                        !text.to_lowercase().contains(&word.to_lowercase()),
                        "{:?} shows {word:?}",
                        text
                    );
                }
            }
        }
    }

    #[test]
    fn the_presets_come_first_and_each_is_a_valid_room() {
        let yut = crate::yut::YutOptions::schema();
        let names: Vec<&str> = yut.presets.iter().map(|p| p.name).collect();
        assert_eq!(names, ["yutMd", "rulesPage", "quick"]);
        let labels: Vec<&str> = yut.presets.iter().map(|p| p.label).collect();
        assert_eq!(labels, ["기본 규칙", "규칙 안내 페이지", "빠른 판"]);
        for preset in &yut.presets {
            let options: crate::yut::YutOptions =
                serde_json::from_value(preset.options.clone()).unwrap();
            assert!(options.validate(Some(2)).is_ok(), "{}", preset.name);
        }
        let baduk = crate::baduk::BadukOptions::schema();
        for preset in &baduk.presets {
            let options: crate::baduk::BadukOptions =
                serde_json::from_value(preset.options.clone()).unwrap();
            assert!(options.validate().is_ok(), "{}", preset.name);
        }
        assert_eq!(
            baduk.presets[1].options["boardSize"],
            json!(9),
            "초보 모드 is 9줄"
        );
        let serialized = serde_json::to_value(&yut).unwrap();
        let first = serialized
            .as_object()
            .unwrap()
            .keys()
            .position(|k| k == "presets");
        assert!(first.is_some());
        let odds = yut.throw_odds.unwrap();
        assert_eq!(odds.len(), 4);
        assert!(
            odds.iter()
                .all(|o| o.odds.contains_key("backdo") == o.backdo)
        );
    }
}
