//! The option schema of 바둑 (`GET /games/baduk`), built from the constants that
//! [`BadukOptions::validate`] uses.

use serde_json::{Value, json};
use strum::VariantArray;

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

/// The groups a form shows the options in.
const BASIC: &str = "기본";
const TIME: &str = "시간";
const HOUSE: &str = "세부 규칙";

impl BadukOptions {
    /// 초보 모드: 9줄, 단수 알림, 무르기 무제한, 느긋한 시계.
    pub fn beginner() -> BadukOptions {
        BadukOptions {
            board_size: 9,
            undo: UndoAllowance::Unlimited,
            atari_warning: true,
            ..BadukOptions::default()
        }
    }

    /// 빠른 판: 9줄, 기본 1분에 20초 초읽기 세 번.
    pub fn quick() -> BadukOptions {
        let mut quick = BadukOptions {
            board_size: 9,
            ..BadukOptions::default()
        };
        quick.time_control.main_sec = Some(60);
        quick.time_control.period_sec = 20;
        quick
    }

    /// 느린 대국: 19줄, 하루에 한 수 (a correspondence clock of one day a move).
    pub fn slow() -> BadukOptions {
        let mut slow = BadukOptions::default();
        slow.time_control.kind = ClockKind::Correspondence;
        slow.time_control.days_per_move = 1;
        slow
    }

    /// The presets (기본 규칙, 초보 모드, 빠른 판, 느린 대국), then every option with its values, their
    /// Korean labels and default (nested keys dotted), and the constraints between them and the
    /// head count.
    pub fn schema() -> GameSchema {
        let defaults = serde_json::to_value(BadukOptions::default()).unwrap_or(Value::Null);
        let default = |key: &str| {
            key.split('.')
                .try_fold(&defaults, |v, part| v.get(part))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let spec = |key: &'static str,
                    label: &'static str,
                    group: &'static str,
                    values: Values,
                    labels: &[&'static str]| {
            OptionSpec::new(key, label, group, values, labels, default(key))
        };
        let (komi_min, komi_max, komi_step) = Self::KOMI;
        let options = vec![
            spec(
                "boardSize",
                "판 크기",
                BASIC,
                Values::one_of(Self::BOARD_SIZES),
                &["9줄(처음이라면 추천)", "13줄", "19줄"],
            )
            .help("처음 두는 분께는 9줄을 추천해요. 한 판에 10~20분이에요."),
            spec(
                "handicap",
                "치석",
                BASIC,
                Values::one_of(Self::HANDICAPS),
                &[
                    "없음(맞바둑)",
                    "2점",
                    "3점",
                    "4점",
                    "5점",
                    "6점",
                    "7점",
                    "8점",
                    "9점",
                ],
            )
            .help("실력 차이가 나면 흑이 돌을 미리 놓고 시작해요."),
            spec(
                "colorAssignment",
                "흑 정하기",
                BASIC,
                Values::one_of(ColorAssignment::VARIANTS),
                &["돌 가리기(무작위)", "방장이 흑", "방장이 백"],
            ),
            spec(
                "undo",
                "무르기",
                BASIC,
                Values::one_of(UndoAllowance::ALL),
                &["무르기 없음", "한 사람 1번", "한 사람 3번", "제한 없음"],
            )
            .help("상대가 받아 주어야 물러요."),
            spec(
                "atariWarning",
                "단수 알림",
                BASIC,
                Values::one_of([true, false]),
                &["내 돌이 단수면 알려 줘요", "알리지 않아요"],
            ),
            spec(
                "timeControl.kind",
                "시계",
                TIME,
                Values::one_of(ClockKind::VARIANTS),
                &[
                    "시계 없음",
                    "기본 시간 + 초읽기",
                    "한 수마다 시간 더하기(피셔)",
                    "느린 대국(한 수에 며칠)",
                ],
            ),
            spec(
                "timeControl.daysPerMove",
                "느린 대국: 한 수에",
                TIME,
                Values::one_of(Self::DAYS_PER_MOVE),
                &["하루", "이틀", "사흘", "일주일"],
            )
            .help("느린 대국에서만 쓰여요. 차례마다 이만큼 기다려요."),
            spec(
                "timeControl.mainSec",
                "기본 시간(초)",
                TIME,
                range(Self::MAIN_SEC, true),
                &["판 크기에 맞게(9줄 3분·13줄 10분·19줄 20분)"],
            )
            .help("비워 두면 판 크기에 맞춰 정해요."),
            spec(
                "timeControl.periodSec",
                "초읽기 한 번",
                TIME,
                Values::one_of(Self::PERIOD_SECS),
                &["10초", "20초", "30초", "60초"],
            ),
            spec(
                "timeControl.periods",
                "초읽기 횟수",
                TIME,
                range(Self::PERIODS, false),
                &[],
            ),
            spec(
                "timeControl.incSec",
                "한 수마다 더하는 시간(초)",
                TIME,
                range(Self::INC_SEC, false),
                &[],
            )
            .help("피셔 방식에서만 쓰여요.")
            .advanced(),
            spec(
                "idleLimitSec",
                "시계가 없을 때 한 수 제한",
                TIME,
                Values::one_of(Self::IDLE_LIMIT_SECS),
                &["5분", "10분"],
            )
            .advanced(),
            spec(
                "scoringDeadlineSec",
                "죽은 돌 확인 시간",
                TIME,
                Values::one_of(Self::SCORING_DEADLINE_SECS),
                &["2분", "3분", "5분"],
            )
            .help("느린 대국에서는 한 수의 시간만큼이에요.")
            .advanced(),
            spec(
                "disconnectGraceSec",
                "연결이 끊긴 사람 기다리기",
                TIME,
                Values::one_of(Self::DISCONNECT_GRACE_SECS),
                &["1분", "2분", "5분"],
            )
            .help("느린 대국에서는 기다리지 않아요. 시계만 봐요.")
            .advanced(),
            spec(
                "scoring",
                "계가",
                HOUSE,
                Values::one_of(ScoringMethod::VARIANTS),
                &["집 세기(한국식)", "영역 세기(중국식)"],
            )
            .advanced(),
            spec(
                "komi",
                "덤(집)",
                HOUSE,
                Values::Range {
                    min: komi_min,
                    max: komi_max,
                    step: komi_step,
                    or_null: true,
                },
                &["기본값(맞바둑 6.5집, 영역 세기 7.5집, 치석 0.5집)"],
            )
            .help("백에게 더해 주는 점수예요. 비워 두면 기본값이에요.")
            .advanced(),
            spec(
                "koRule",
                "패",
                HOUSE,
                Values::one_of(KoRule::VARIANTS),
                &[
                    "같은 모양을 다시 만들 수 없어요",
                    "한국식(삼패 같은 반복은 무승부)",
                ],
            )
            .advanced(),
            spec(
                "drawOffer",
                "무승부 제안",
                HOUSE,
                Values::one_of([true, false]),
                &["할 수 있어요", "할 수 없어요"],
            )
            .advanced(),
            spec(
                "chat",
                crate::chat_setting::ChatSetting::LABEL,
                HOUSE,
                Values::one_of(crate::chat_setting::ChatSetting::VARIANTS),
                &crate::chat_setting::ChatSetting::VALUE_LABELS,
            )
            .help(crate::chat_setting::ChatSetting::HELP),
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
        let presets = [
            (
                "default",
                "기본 규칙",
                "19줄, 한국식 집 세기, 덤 6.5집, 기본 20분에 30초 초읽기 세 번.",
                BadukOptions::default(),
            ),
            (
                "beginner",
                "초보 모드",
                "9줄, 단수 알림, 무르기 제한 없음. 처음 두는 분께 추천해요.",
                BadukOptions::beginner(),
            ),
            (
                "quick",
                "빠른 판",
                "9줄, 기본 1분에 20초 초읽기 세 번.",
                BadukOptions::quick(),
            ),
            (
                "slow",
                "느린 대국",
                "하루에 한 수. 19줄, 며칠에 걸쳐 두는 대국이에요.",
                BadukOptions::slow(),
            ),
        ]
        .into_iter()
        .map(|(name, label, help, options)| Preset {
            name,
            label,
            help,
            options: serde_json::to_value(options).unwrap_or(Value::Null),
        })
        .collect();
        GameSchema {
            bots: crate::schema::Bots::of::<super::Baduk>(),
            game: "baduk",
            presets,
            options,
            constraints,
            throw_odds: None,
        }
    }
}
