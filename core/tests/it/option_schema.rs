//! The option schemas (`GET /games/{kind}`) against validation: every combination a schema
//! allows is accepted by `validate_options`, and every one it forbids is refused naming the
//! field the schema names.
//!
//! 윷놀이: the whole product of every option's values (about twelve million combinations, through
//! the schema's constraints precomputed per value), then
//! every head count for each mode and player limit. 바둑 has numeric ranges: the product of the
//! options the constraints mention (ranges at their ends, inside and just outside), then each
//! other option's values one by one.

use madang_core::baduk::{Baduk, BadukOptions};
use madang_core::chat::ChatSetting;
use madang_core::schema::{GameSchema, Values};
use madang_core::yut::{
    BackdoFromDo, EndMode, FinishRule, Mode, OnLeave, PlayerLimits, Ranking, Ruleset, StickModel,
    TimeoutPolicy, Yut, YutOptions,
};
use madang_core::{Game, OptionsError};
use serde_json::{Value, json};
use strum::VariantArray;

type YutSetter = fn(&mut YutOptions, usize);

/// Each 윷놀이 option: its key, how many values the typed constants give it, and how to set
/// the i-th.
fn yut_fields() -> Vec<(&'static str, usize, YutSetter)> {
    vec![
        ("ruleset", 2, |o, i| o.ruleset = Ruleset::VARIANTS[i]),
        ("mode", 2, |o, i| o.mode = Mode::VARIANTS[i]),
        ("playerLimits", 2, |o, i| {
            o.player_limits = PlayerLimits::VARIANTS[i]
        }),
        ("pieces", 4, |o, i| o.pieces = YutOptions::PIECES[i]),
        ("stickModel", 2, |o, i| {
            o.stick_model = StickModel::VARIANTS[i]
        }),
        ("backdo", 2, |o, i| o.backdo = i == 0),
        ("backdoFromDo", 3, |o, i| {
            o.backdo_from_do = BackdoFromDo::VARIANTS[i]
        }),
        ("finishRule", 2, |o, i| {
            o.finish_rule = FinishRule::VARIANTS[i]
        }),
        ("nakPercent", 4, |o, i| {
            o.nak_percent = YutOptions::NAK_PERCENTS[i]
        }),
        ("backdoCaptureBonus", 2, |o, i| {
            o.backdo_capture_bonus = i == 0
        }),
        ("captureBonusOnYutMo", 2, |o, i| {
            o.capture_bonus_on_yut_mo = i == 0
        }),
        ("ranking", 3, |o, i| o.ranking = Ranking::VARIANTS[i]),
        ("turnSeconds", 5, |o, i| {
            o.turn_seconds = YutOptions::TURN_SECONDS.get(i).copied()
        }),
        ("turnCapSeconds", 2, |o, i| {
            o.turn_cap_seconds = YutOptions::TURN_CAP_SECONDS.get(i).copied()
        }),
        ("timeoutPolicy", 2, |o, i| {
            o.timeout_policy = TimeoutPolicy::VARIANTS[i]
        }),
        ("idleTurnsToAuto", 2, |o, i| {
            o.idle_turns_to_auto = YutOptions::IDLE_TURNS_TO_AUTO.get(i).copied()
        }),
        ("endMode", 2, |o, i| o.end_mode = EndMode::VARIANTS[i]),
        ("onLeave", 2, |o, i| o.on_leave = OnLeave::VARIANTS[i]),
        ("hints", 2, |o, i| o.hints = i == 1),
        ("chat", 3, |o, i| o.chat = ChatSetting::VARIANTS[i]),
    ]
}

fn list(schema: &GameSchema, key: &str) -> Vec<Value> {
    match &schema.option(key).unwrap().values {
        Values::OneOf(values) => values.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

fn agree(
    schema: Result<(), &str>,
    validation: Result<(), OptionsError>,
    what: &dyn Fn() -> String,
) {
    match (schema, validation) {
        (Ok(()), Ok(())) => {}
        (Err(field), Err(e)) => assert_eq!(field, e.field, "{}", what()),
        (s, v) => panic!("schema {s:?}, validation {v:?}: {}", what()),
    }
}

#[test]
fn the_yut_schema_lists_exactly_the_values_the_typed_options_take() {
    let schema = YutOptions::schema();
    let fields = yut_fields();
    // The same keys (the schema orders them as a form shows them).
    let mut keys: Vec<&str> = schema.options.iter().map(|o| o.key).collect();
    let mut typed: Vec<&str> = fields.iter().map(|f| f.0).collect();
    keys.sort_unstable();
    typed.sort_unstable();
    assert_eq!(keys, typed);
    for (key, count, set) in &fields {
        let values = list(&schema, key);
        assert_eq!(values.len(), *count, "{key}");
        for (i, value) in values.iter().enumerate() {
            let mut o = YutOptions::default();
            set(&mut o, i);
            assert_eq!(&serde_json::to_value(&o).unwrap()[key], value, "{key}[{i}]");
        }
        let default = serde_json::to_value(YutOptions::default()).unwrap()[key].clone();
        assert_eq!(schema.option(key).unwrap().default, default, "{key}");
    }
    for preset in &schema.presets {
        let options: YutOptions = serde_json::from_value(preset.options.clone()).unwrap();
        assert!(
            Yut::validate_options(&options, Some(4)).is_ok(),
            "{}",
            preset.name
        );
        // A preset named after a ruleset is that ruleset's (빠른 판 starts from yutMd's).
        if Ruleset::VARIANTS
            .iter()
            .any(|r| json!(r) == json!(preset.name))
        {
            assert_eq!(preset.options["ruleset"], json!(preset.name));
        }
    }
}

/// The schema's verdict precomputed per value index: for each constraint (in order), its
/// condition and its requirement as "is value `i` of field `f` in the listed values" tables, made
/// with the schema's own [`Values::contains`]. Walking twelve million combinations through JSON
/// lookups would take minutes; through these tables it takes seconds, and it reaches the same
/// verdict as [`GameSchema::check`] (which the head-count test below uses directly).
/// Field index → "is value `i` in the listed values".
type Table = Vec<(usize, Vec<bool>)>;

/// Like [`Table`], with the field an offence is reported under.
type Requirement = Vec<(usize, Vec<bool>, &'static str)>;

struct Compiled {
    constraints: Vec<(Table, Requirement)>,
}

impl Compiled {
    fn new(schema: &GameSchema, keys: &[&str], values: &[Vec<Value>]) -> Compiled {
        let field = |key: &str| keys.iter().position(|k| *k == key).unwrap();
        let table = |f: usize, allowed: &dyn Fn(&Value) -> bool| -> Vec<bool> {
            values[f].iter().map(allowed).collect()
        };
        let constraints = schema
            .constraints
            .iter()
            .filter(|c| !c.then.contains_key(madang_core::schema::PLAYERS))
            .map(|c| {
                let when = c
                    .when
                    .iter()
                    .map(|(key, listed)| {
                        let f = field(key);
                        (f, table(f, &|v| listed.contains(v)))
                    })
                    .collect();
                let then = c
                    .then
                    .iter()
                    .map(|(key, allowed)| {
                        let f = field(key);
                        (
                            f,
                            table(f, &|v| allowed.contains(v)),
                            c.reported_as.unwrap_or(key),
                        )
                    })
                    .collect();
                (when, then)
            })
            .collect();
        Compiled { constraints }
    }

    fn check(&self, index: &[usize]) -> Result<(), &'static str> {
        for (when, then) in &self.constraints {
            if when.iter().all(|(f, ok)| ok[index[*f]])
                && let Some((_, _, field)) = then.iter().find(|(f, ok, _)| !ok[index[*f]])
            {
                return Err(field);
            }
        }
        Ok(())
    }
}

#[test]
fn every_yut_combination_the_schema_allows_validates_and_every_other_is_refused_by_name() {
    let schema = YutOptions::schema();
    // `chat` is free under every ruleset and constrains nothing: left out of the product, which
    // it would only triple.
    let fields: Vec<_> = yut_fields().into_iter().filter(|f| f.0 != "chat").collect();
    let keys: Vec<&str> = fields.iter().map(|f| f.0).collect();
    let values: Vec<Vec<Value>> = keys.iter().map(|key| list(&schema, key)).collect();
    let compiled = Compiled::new(&schema, &keys, &values);
    let mut index = vec![0usize; fields.len()];
    let (mut allowed, mut total) = ([0u64; 2], 0u64);
    loop {
        let mut options = YutOptions::default();
        for (f, (_, _, set)) in fields.iter().enumerate() {
            set(&mut options, index[f]);
        }
        let verdict = compiled.check(&index);
        if verdict.is_ok() {
            allowed[index[0]] += 1;
        }
        // Now and then, the schema's own check on the JSON form reaches the same verdict.
        if total % 9_973 == 0 {
            let json = serde_json::to_value(&options).unwrap();
            assert_eq!(schema.check(|key| json.get(key), None), verdict);
        }
        agree(verdict, options.validate(None), &|| format!("{options:?}"));
        total += 1;
        // Next combination (mixed radix).
        let Some(f) = (0..fields.len())
            .rev()
            .find(|&f| index[f] + 1 < fields[f].1)
        else {
            break;
        };
        index[f] += 1;
        index[f + 1..].iter_mut().for_each(|i| *i = 0);
    }
    let product: u64 = fields.iter().map(|f| f.1 as u64).product();
    assert_eq!(total, product);
    // yut.md leaves every option free; the rules page fixes all but mode, backdo, the timer
    // (20/30/60), the end mode and hints.
    assert_eq!(allowed, [product / 2, 2 * 2 * 3 * 2 * 2]);
}

#[test]
fn every_yut_head_count_the_schema_allows_validates_and_every_other_is_refused_by_name() {
    let schema = YutOptions::schema();
    for &ruleset in Ruleset::VARIANTS {
        for &mode in Mode::VARIANTS {
            for &player_limits in PlayerLimits::VARIANTS {
                let options = YutOptions {
                    mode,
                    player_limits,
                    ..YutOptions::preset(ruleset)
                };
                let json = serde_json::to_value(&options).unwrap();
                for n in 0..=10 {
                    let verdict = schema.check(|key| json.get(key), Some(n));
                    agree(verdict, Yut::validate_options(&options, Some(n)), &|| {
                        format!("{n} players, {options:?}")
                    });
                }
            }
        }
    }
}

/// Sample values of a 바둑 option: a list's values, or a range's ends, a middle, the ones just
/// outside and `null`.
fn samples(values: &Values) -> Vec<Value> {
    match values {
        Values::OneOf(list) => list.clone(),
        Values::Range { min, max, step, .. } => {
            let middle = min + ((max - min) / 2.0 / step).floor() * step;
            [
                *min,
                min + step,
                middle,
                *max,
                min - step,
                max + step,
                min + step / 2.0,
            ]
            .into_iter()
            .map(|v| {
                if v.fract() == 0.0 {
                    json!(v as i64)
                } else {
                    json!(v)
                }
            })
            .chain([Value::Null])
            .collect()
        }
    }
}

/// The options JSON with dotted `key` set to `value`.
fn with(mut options: Value, key: &str, value: &Value) -> Value {
    let mut at = &mut options;
    let parts: Vec<&str> = key.split('.').collect();
    for part in &parts[..parts.len() - 1] {
        at = &mut at[*part];
    }
    at[parts[parts.len() - 1]] = value.clone();
    options
}

fn dotted<'v>(options: &'v Value, key: &str) -> Option<&'v Value> {
    key.split('.').try_fold(options, |v, part| v.get(part))
}

/// Checks one 바둑 combination: values outside the typed fields (negative, fractional where
/// the field is whole) cannot even be sent, and are refused by parsing.
///
/// With several offences at once the schema and validation may list them in different orders
/// (a constraint on one field against another field's own range), so the field validation names
/// must be one of those the schema finds.
fn check_baduk(schema: &GameSchema, options: &Value) {
    let offending = schema.offending(|key| dotted(options, key), None);
    match serde_json::from_value::<BadukOptions>(options.clone()) {
        Ok(typed) => match Baduk::validate_options(&typed, None) {
            Ok(()) => assert!(
                offending.is_empty(),
                "{options}: schema refuses {offending:?}"
            ),
            Err(e) => assert!(
                offending.contains(&e.field.as_str()),
                "{options}: validation names {}, schema {offending:?}",
                e.field
            ),
        },
        Err(e) => assert!(
            !offending.is_empty(),
            "{options} parses to {e} yet the schema allows it"
        ),
    }
}

#[test]
fn every_baduk_combination_the_schema_allows_validates_and_every_other_is_refused_by_name() {
    let schema = BadukOptions::schema();
    let base = serde_json::to_value(BadukOptions::default()).unwrap();
    assert_eq!(schema.presets[0].options, base);
    // The options the constraints mention: their whole product.
    let constrained = [
        "boardSize",
        "handicap",
        "timeControl.kind",
        "timeControl.mainSec",
        "timeControl.incSec",
    ];
    let lists: Vec<Vec<Value>> = constrained
        .iter()
        .map(|key| samples(&schema.option(key).unwrap().values))
        .collect();
    let mut index = vec![0usize; lists.len()];
    let mut combos = 0;
    loop {
        let mut options = base.clone();
        for (f, key) in constrained.iter().enumerate() {
            options = with(options, key, &lists[f][index[f]]);
        }
        check_baduk(&schema, &options);
        combos += 1;
        let Some(f) = (0..lists.len())
            .rev()
            .find(|&f| index[f] + 1 < lists[f].len())
        else {
            break;
        };
        index[f] += 1;
        index[f + 1..].iter_mut().for_each(|i| *i = 0);
    }
    assert!(combos > 1_000);
    // Every other option, value by value, on top of the defaults.
    for spec in &schema.options {
        for value in samples(&spec.values) {
            check_baduk(&schema, &with(base.clone(), spec.key, &value));
        }
    }
    // And the head count.
    for n in 0..=4 {
        let typed = BadukOptions::default();
        agree(
            schema.check(|key| dotted(&base, key), Some(n)),
            Baduk::validate_options(&typed, Some(n)),
            &|| format!("{n} players"),
        );
    }
}
