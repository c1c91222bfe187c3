//! The option schema of 윷놀이 (`GET /games/yut`), built from the constants and presets that
//! [`YutOptions::validate`] uses.

use serde_json::{Value, json};

use super::options::{
    BackdoFromDo, EndMode, FinishRule, Mode, OnLeave, PlayerLimits, Ranking, Ruleset, StickModel,
    TimeoutPolicy, YutOptions,
};
use crate::schema::{Constraint, GameSchema, OptionSpec, PLAYERS, Preset, Values};

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

impl YutOptions {
    /// Every option with its values and default (the `yutMd` ruleset's; a missing key takes
    /// the default of the chosen `ruleset`, which the presets spell out), the constraints in the
    /// order validation checks them, and the two rulesets as presets.
    pub fn schema() -> GameSchema {
        let d = YutOptions::default();
        let default = |key: &str| d.fixed_json(key);
        let spec = |key: &'static str, label: &'static str, values: Values| OptionSpec {
            key,
            label,
            values,
            default: default(key),
        };
        let options = vec![
            spec(
                "ruleset",
                "규칙 묶음: yutMd(기본 규칙) 또는 rulesPage(규칙 안내 페이지). 빠진 값은 고른 묶음의 기본값을 따라요.",
                Values::one_of(Ruleset::ALL),
            ),
            spec("mode", "개인전 / 팀전", Values::one_of(Mode::ALL)),
            spec(
                "playerLimits",
                "인원: yutMd(개인 2~4명, 팀 4·6·8명) 또는 rulesPage(개인 2~6명, 팀 2:2·3:3)",
                Values::one_of(PlayerLimits::ALL),
            ),
            spec("pieces", "편마다 말 수", Values::one_of(Self::PIECES)),
            spec(
                "stickModel",
                "윷가락 확률: realistic(실제 윷) 또는 fair(16번 중 도 3·개 6·걸 4·윷 1·모 1·빽도 1)",
                Values::one_of(StickModel::ALL),
            ),
            spec("backdo", "빽도 사용", Values::one_of([true, false])),
            spec(
                "backdoFromDo",
                "도 자리에서 빽도: chammeogi(참먹이로), finish(바로 남), home(대기로)",
                Values::one_of(BackdoFromDo::ALL),
            ),
            spec(
                "finishRule",
                "완주 판정: pass(참먹이를 지나야 남) 또는 reach(참먹이에 닿으면 남)",
                Values::one_of(FinishRule::ALL),
            ),
            spec(
                "nakPercent",
                "낙 확률(%)",
                Values::one_of(Self::NAK_PERCENTS),
            ),
            spec(
                "backdoCaptureBonus",
                "빽도로 잡아도 한 번 더 던지기",
                Values::one_of([true, false]),
            ),
            spec(
                "captureBonusOnYutMo",
                "윷·모로 잡아도 한 번 더 던지기",
                Values::one_of([true, false]),
            ),
            spec(
                "ranking",
                "개인전 순위: first(1등이 나오면 끝, 나머지는 진행도로), all(꼴찌까지), none(1등만)",
                Values::one_of(Ranking::ALL),
            ),
            spec(
                "turnSeconds",
                "던지기·이동마다 제한 시간(초), null은 무제한",
                or_null(Self::TURN_SECONDS),
            ),
            spec(
                "turnCapSeconds",
                "한 차례가 시작되고 이 시간(초)이 지나면 남은 던지기와 이동을 자동으로, null은 없음",
                or_null(Self::TURN_CAP_SECONDS),
            ),
            spec(
                "timeoutPolicy",
                "자동 이동 순서: yutMd(잡기·완주·업기·뒤처진 말·새 말) 또는 rulesPage(완주·잡기·멀리 가기)",
                Values::one_of(TimeoutPolicy::ALL),
            ),
            spec(
                "idleTurnsToAuto",
                "내 차례에 이만큼 연속으로 아무것도 안 하면 자동 진행([직접 하기]로 돌아옴), null은 없음",
                or_null(Self::IDLE_TURNS_TO_AUTO),
            ),
            spec(
                "endMode",
                "끝나는 방법: finish(완주) 또는 timed(30분이 지나면 그 라운드까지)",
                Values::one_of(EndMode::ALL),
            ),
            spec(
                "onLeave",
                "게임 중에 나가면: concede(기권) 또는 bot(봇이 이어받음)",
                Values::one_of(OnLeave::ALL),
            ),
            spec(
                "hints",
                "힌트: 내 차례에 자동 이동이 고를 수(timeoutPolicy의 우선순위)를 연하게 표시",
                Values::one_of([false, true]),
            ),
        ];
        GameSchema {
            bots: crate::schema::Bots::of::<super::Yut>(),
            game: "yut",
            options,
            constraints: Self::constraints(),
            presets: Ruleset::ALL
                .into_iter()
                .map(|ruleset| Preset {
                    name: match ruleset {
                        Ruleset::YutMd => "yutMd",
                        Ruleset::RulesPage => "rulesPage",
                    },
                    label: match ruleset {
                        Ruleset::YutMd => "기본 규칙",
                        Ruleset::RulesPage => "규칙 안내 페이지의 규칙",
                    },
                    options: serde_json::to_value(YutOptions::preset(ruleset))
                        .unwrap_or(Value::Null),
                })
                .collect(),
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
                reason: "규칙 안내 페이지의 규칙에서는 정해진 값이에요.",
            })
            .collect();
        constraints.push(Constraint {
            when: when_page(),
            then: [("turnSeconds", Values::one_of(Self::RULES_PAGE_TURN_SECONDS))].into(),
            reported_as: None,
            reason: "규칙 안내 페이지의 규칙에서는 20·30·60초 중에서 골라요.",
        });
        for limits in PlayerLimits::ALL {
            for mode in Mode::ALL {
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
                    reason: "이 모드와 인원 설정으로 함께할 수 있는 사람 수예요.",
                });
            }
        }
        constraints
    }
}
