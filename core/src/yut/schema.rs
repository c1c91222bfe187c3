//! The option schema of 윷놀이 (`GET /games/yut`), built from the constants and presets that
//! [`YutOptions::validate`] uses.

use serde_json::{Value, json};
use strum::VariantArray;

use super::options::{
    BackdoFromDo, EndMode, FinishRule, Mode, OnLeave, PlayerLimits, Ranking, Ruleset, StickModel,
    TimeoutPolicy, YutOptions,
};
use super::throw::Throw;
use crate::chat_setting::ChatSetting;
use crate::schema::{Constraint, GameSchema, OptionSpec, PLAYERS, Preset, ThrowOdds, Values};

/// A list of values followed by `null`.
fn or_null<T: serde::Serialize>(values: impl IntoIterator<Item = T>) -> Values {
    match Values::one_of(values) {
        Values::OneOf(mut list) => {
            list.push(Value::Null);
            Values::OneOf(list)
        }
        range => range,
    }
}

/// The groups a form shows the options in.
const BASIC: &str = "기본";
const TIME: &str = "시간";
const HOUSE: &str = "세부 규칙";

impl YutOptions {
    /// The options of 빠른 판: the default rules with three pieces and 20 seconds a throw.
    pub const fn quick() -> YutOptions {
        YutOptions {
            pieces: 3,
            turn_seconds: Some(20),
            ..YutOptions::preset(Ruleset::YutMd)
        }
    }

    /// The presets first (기본 규칙, 규칙 안내 페이지, 빠른 판), then every option with its values,
    /// their Korean labels and the default (the `yutMd` ruleset's; a missing key takes the
    /// default of the chosen `ruleset`, which the presets spell out), the constraints in the
    /// order validation checks them, and the odds of each throw.
    pub fn schema() -> GameSchema {
        let d = YutOptions::default();
        let spec = |key: &'static str,
                    label: &'static str,
                    group: &'static str,
                    values: Values,
                    labels: &[&'static str]| {
            OptionSpec::new(key, label, group, values, labels, d.fixed_json(key))
        };
        let yes_no = || Values::one_of([true, false]);
        let options = vec![
            spec(
                "ruleset",
                "규칙 묶음",
                BASIC,
                Values::one_of(Ruleset::VARIANTS),
                &["기본 규칙", "규칙 안내 페이지"],
            )
            .help("고르면 아래 값이 그 묶음대로 바뀌어요. 규칙 안내 페이지에서는 몇 가지가 정해져 있어요."),
            spec(
                "mode",
                "경기 방식",
                BASIC,
                Values::one_of(Mode::VARIANTS),
                &["개인전", "팀전"],
            )
            .help("팀전은 1·3·5번 자리가 청팀, 2·4·6번 자리가 홍팀이에요."),
            spec(
                "pieces",
                "말 수",
                BASIC,
                Values::one_of(Self::PIECES),
                &["2개", "3개", "4개", "5개"],
            )
            .help("한 편(팀전은 한 팀)이 쓰는 말이에요. 적을수록 빨리 끝나요."),
            spec(
                "backdo",
                "빽도",
                BASIC,
                yes_no(),
                &["빽도 있음", "빽도 없음(도로 쳐요)"],
            )
            .help("✕ 표시가 있는 윷가락 하나만 젖혀지면 한 칸 뒤로 가요."),
            spec(
                "endMode",
                "끝나는 방법",
                BASIC,
                Values::one_of(EndMode::VARIANTS),
                &["말을 모두 내면 끝", "30분 시간제"],
            ),
            spec(
                "hints",
                "추천 수 보기",
                BASIC,
                Values::one_of([false, true]),
                &["보지 않기", "내 차례에 추천 수를 연하게 보기"],
            ),
            spec(
                "turnSeconds",
                "한 번에 쓰는 시간",
                TIME,
                or_null(Self::TURN_SECONDS),
                &["15초", "20초", "30초", "60초", "제한 없음"],
            )
            .help("던지기와 말 옮기기마다 이 시간이 지나면 자동으로 해요."),
            spec(
                "turnCapSeconds",
                "한 차례 시간",
                TIME,
                or_null(Self::TURN_CAP_SECONDS),
                &["90초가 지나면 자동 진행", "제한 없음"],
            )
            .advanced(),
            spec(
                "idleTurnsToAuto",
                "자리 비움",
                TIME,
                or_null(Self::IDLE_TURNS_TO_AUTO),
                &["3번 연속 쉬면 자동 진행", "자동 진행 안 함"],
            )
            .advanced(),
            spec(
                "playerLimits",
                "인원",
                HOUSE,
                Values::one_of(PlayerLimits::VARIANTS),
                &[
                    "개인전 2~4명, 팀전 4·6·8명",
                    "개인전 2~6명, 팀전 2:2·3:3",
                ],
            )
            .advanced(),
            spec(
                "stickModel",
                "윷가락",
                HOUSE,
                Values::one_of(StickModel::VARIANTS),
                &[
                    "진짜 윷처럼(개·걸이 잦고 모는 드물어요)",
                    "고르게(16번 중 도 3·개 6·걸 4·윷 1·모 1·빽도 1)",
                ],
            )
            .advanced(),
            spec(
                "backdoFromDo",
                "도에서 빽도",
                HOUSE,
                Values::one_of(BackdoFromDo::VARIANTS),
                &[
                    "참먹이로 가요(다음에 바로 날 수 있어요)",
                    "바로 나요",
                    "대기로 돌아가요",
                ],
            )
            .advanced(),
            spec(
                "finishRule",
                "완주",
                HOUSE,
                Values::one_of(FinishRule::VARIANTS),
                &["참먹이를 지나야 나요", "참먹이에 닿으면 나요"],
            )
            .advanced(),
            spec(
                "nakPercent",
                "낙",
                HOUSE,
                Values::one_of(Self::NAK_PERCENTS),
                &["낙 없음", "100번 중 3번", "100번 중 5번", "100번 중 10번"],
            )
            .help("윷가락이 판 밖으로 떨어지면 그 던지기는 무효예요.")
            .advanced(),
            spec(
                "backdoCaptureBonus",
                "빽도로 잡으면",
                HOUSE,
                yes_no(),
                &["한 번 더 던져요", "더 던지지 않아요"],
            )
            .advanced(),
            spec(
                "captureBonusOnYutMo",
                "윷·모로 잡으면",
                HOUSE,
                yes_no(),
                &["한 번 더 던져요", "더 던지지 않아요"],
            )
            .advanced(),
            spec(
                "ranking",
                "순위",
                HOUSE,
                Values::one_of(Ranking::VARIANTS),
                &[
                    "1등이 나오면 끝, 나머지는 진행한 만큼",
                    "꼴찌가 정해질 때까지",
                    "1등만 정해요",
                ],
            )
            .help("3명 이상 개인전에서만 쓰여요.")
            .advanced(),
            spec(
                "timeoutPolicy",
                "자동으로 옮길 때",
                HOUSE,
                Values::one_of(TimeoutPolicy::VARIANTS),
                &[
                    "잡기·완주·업기 먼저",
                    "완주·잡기·멀리 가기 순서",
                ],
            )
            .advanced(),
            spec(
                "onLeave",
                "게임 중에 나가면",
                HOUSE,
                Values::one_of(OnLeave::VARIANTS),
                &["기권해요", "컴퓨터가 이어서 해요"],
            )
            .advanced(),
            spec(
                "chat",
                ChatSetting::LABEL,
                HOUSE,
                Values::one_of(ChatSetting::VARIANTS),
                &ChatSetting::VALUE_LABELS,
            )
            .help(ChatSetting::HELP),
        ];
        let presets = [
            (
                "yutMd",
                "기본 규칙",
                "말 4개, 30초씩. 집에서 흔히 하는 윷놀이예요.",
                YutOptions::preset(Ruleset::YutMd),
            ),
            (
                "rulesPage",
                "규칙 안내 페이지",
                "규칙 보기에 적힌 그대로: 고른 윷, 20초씩, 나간 자리는 컴퓨터가 이어요.",
                YutOptions::preset(Ruleset::RulesPage),
            ),
            (
                "quick",
                "빠른 판",
                "말 3개, 20초씩. 10분 남짓이면 끝나요.",
                YutOptions::quick(),
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
        let throw_odds = StickModel::VARIANTS
            .iter()
            .copied()
            .flat_map(|model| {
                [true, false].map(|backdo| ThrowOdds {
                    stick_model: serde_json::to_value(model).unwrap_or(Value::Null),
                    backdo,
                    odds: Throw::VARIANTS
                        .iter()
                        .copied()
                        .filter(|t| backdo || *t != Throw::Backdo)
                        .map(|t| (t.as_str(), t.probability(model.flat_probability(), backdo)))
                        .collect(),
                })
            })
            .collect();
        GameSchema {
            bots: crate::schema::Bots::of::<super::Yut>(),
            game: "yut",
            presets,
            options,
            constraints: Self::constraints(),
            throw_odds: Some(throw_odds),
        }
    }

    /// In validation's order: the rules page's fixed values, its timer choices, then the head
    /// counts of each mode under each player limit.
    fn constraints() -> Vec<Constraint> {
        let page = YutOptions::preset(Ruleset::RulesPage);
        let when_page = || [("ruleset", vec![json!("rulesPage")])].into();
        let mut constraints: Vec<Constraint> = page
            .rules_page_fixed()
            .iter()
            .map(|(key, _)| Constraint {
                when: when_page(),
                then: [(*key, Values::OneOf(vec![page.fixed_json(key)]))].into(),
                reported_as: None,
                reason: "규칙 안내 페이지에서는 정해진 값이에요.",
            })
            .collect();
        constraints.push(Constraint {
            when: when_page(),
            then: [("turnSeconds", Values::one_of(Self::RULES_PAGE_TURN_SECONDS))].into(),
            reported_as: None,
            reason: "규칙 안내 페이지에서는 20·30·60초 중에서 골라요.",
        });
        for &limits in PlayerLimits::VARIANTS {
            for &mode in Mode::VARIANTS {
                let options = YutOptions {
                    mode,
                    player_limits: limits,
                    ..YutOptions::default()
                };
                constraints.push(Constraint {
                    when: [
                        ("mode", vec![options.fixed_json("mode")]),
                        ("playerLimits", vec![options.fixed_json("playerLimits")]),
                    ]
                    .into(),
                    then: [(PLAYERS, Values::one_of(options.player_counts()))].into(),
                    reported_as: Some("mode"),
                    reason: match (limits, mode) {
                        (PlayerLimits::YutMd, Mode::Individual) => "개인전은 2~4명이 해요.",
                        (PlayerLimits::YutMd, Mode::Team) => {
                            "팀전은 4·6·8명이 두 팀으로 나눠 해요."
                        }
                        (PlayerLimits::RulesPage, Mode::Individual) => "개인전은 2~6명이 해요.",
                        (PlayerLimits::RulesPage, Mode::Team) => "팀전은 2:2나 3:3으로 해요.",
                    },
                });
            }
        }
        constraints
    }
}
