//! The option schema of 바둑 (`GET /games/baduk`), built from the constants that
//! [`BadukOptions::validate`] uses.

use serde_json::{Value, json};

use super::options::{
    BadukOptions, ClockKind, ColorAssignment, KoRule, ScoringMethod, UndoAllowance,
};
use crate::schema::{Constraint, GameSchema, OptionSpec, PLAYERS, Preset, Values};

fn range((min, max): (u32, u32), or_null: bool) -> Values {
    Values::Range {
        min: f64::from(min),
        max: f64::from(max),
        step: 1.0,
        or_null,
    }
}

impl BadukOptions {
    /// Every option with its values and default (nested keys dotted), the constraints between
    /// them and the head count, and the defaults as the one preset.
    pub fn schema() -> GameSchema {
        let defaults = serde_json::to_value(BadukOptions::default()).unwrap_or(Value::Null);
        let default = |key: &str| {
            key.split('.')
                .try_fold(&defaults, |v, part| v.get(part))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let spec = |key: &'static str, label: &'static str, values: Values| OptionSpec {
            key,
            label,
            values,
            default: default(key),
        };
        let (komi_min, komi_max, komi_step) = Self::KOMI;
        let options = vec![
            spec(
                "boardSize",
                "판 크기(줄)",
                Values::one_of(Self::BOARD_SIZES),
            ),
            spec(
                "scoring",
                "계가: territory(집) 또는 area(영역)",
                Values::one_of(ScoringMethod::ALL),
            ),
            spec(
                "komi",
                "덤, null은 기본값(호선 집 6.5·영역 7.5, 치석 0.5)",
                Values::Range {
                    min: komi_min,
                    max: komi_max,
                    step: komi_step,
                    or_null: true,
                },
            ),
            spec("handicap", "치석 수", Values::one_of(Self::HANDICAPS)),
            spec(
                "koRule",
                "패 규칙: positionalSuperko 또는 korean",
                Values::one_of(KoRule::ALL),
            ),
            spec(
                "colorAssignment",
                "흑 정하기: nigiri(돌 가리기), hostBlack, hostWhite",
                Values::one_of(ColorAssignment::ALL),
            ),
            spec(
                "timeControl.kind",
                "시계: none, byoyomi(초읽기), fischer(피셔)",
                Values::one_of(ClockKind::ALL),
            ),
            spec(
                "timeControl.mainSec",
                "기본 시간(초), null은 판 크기에 따라 180·600·1200",
                range(Self::MAIN_SEC, true),
            ),
            spec(
                "timeControl.periodSec",
                "초읽기 한 번(초)",
                Values::one_of(Self::PERIOD_SECS),
            ),
            spec(
                "timeControl.periods",
                "초읽기 횟수",
                range(Self::PERIODS, false),
            ),
            spec(
                "timeControl.incSec",
                "피셔 추가 시간(초)",
                range(Self::INC_SEC, false),
            ),
            spec(
                "idleLimitSec",
                "시계가 없을 때 한 수 제한(초)",
                Values::one_of(Self::IDLE_LIMIT_SECS),
            ),
            spec(
                "undo",
                "무르기: off, 1, 3, unlimited",
                Values::one_of(UndoAllowance::ALL),
            ),
            spec("drawOffer", "무승부 제안", Values::one_of([true, false])),
            spec("atariWarning", "단수 알림", Values::one_of([true, false])),
            spec(
                "scoringDeadlineSec",
                "사석 합의 제한(초)",
                Values::one_of(Self::SCORING_DEADLINE_SECS),
            ),
            spec(
                "disconnectGraceSec",
                "연결이 끊긴 사람을 기다리는 시간(초)",
                Values::one_of(Self::DISCONNECT_GRACE_SECS),
            ),
        ];
        let constraints = vec![
            Constraint {
                when: [("boardSize", vec![json!(9)])].into(),
                then: [("handicap", Values::one_of(Self::HANDICAPS_ON_9))].into(),
                reported_as: None,
                reason: "9줄 판에는 치석을 5점까지만 놓아요.",
            },
            Constraint {
                when: [
                    ("timeControl.kind", vec![json!("fischer")]),
                    ("timeControl.mainSec", vec![json!(0)]),
                ]
                .into(),
                then: [("timeControl.incSec", range((1, Self::INC_SEC.1), false))].into(),
                reported_as: Some("timeControl.mainSec"),
                reason: "피셔 방식에는 기본 시간이나 추가 시간이 있어야 해요.",
            },
            Constraint {
                when: [].into(),
                then: [(PLAYERS, Values::one_of([2]))].into(),
                reported_as: Some("players"),
                reason: "바둑은 두 사람이 둬요.",
            },
        ];
        GameSchema {
            bots: crate::schema::Bots::of::<super::Baduk>(),
            game: "baduk",
            options,
            constraints,
            presets: vec![Preset {
                name: "default",
                label: "기본 설정",
                options: defaults,
            }],
        }
    }
}
