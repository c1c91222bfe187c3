//! The chosen rules in one Korean line (spec §12: "방 만들기 화면에 현재 적용 규칙 요약을 한 줄로").

use super::options::{
    BackdoFromDo, EndMode, FinishRule, Mode, OnLeave, PlayerLimits, Ranking, StickModel,
    TimeoutPolicy, YutOptions,
};

/// E.g. "개인전 · 말 4개 · 실제 윷 확률 · 빽도 있음(도에서 빽도는 참먹이로) · 참먹이를 지나야 남 ·
/// 낙 없음 · 빽도로 잡아도 한 번 더 · 1등이 나오면 끝 · 한 번에 30초". The rules page's house
/// rules (ruling Y16) add their own parts only when switched on, so the default line stays short.
pub fn rule_summary(o: &YutOptions) -> String {
    let mut parts = vec![
        match (o.mode, o.player_limits) {
            (Mode::Individual, PlayerLimits::YutMd) => "개인전".to_owned(),
            (Mode::Team, PlayerLimits::YutMd) => "팀전".to_owned(),
            (Mode::Individual, PlayerLimits::RulesPage) => "개인전(2~6명)".to_owned(),
            (Mode::Team, PlayerLimits::RulesPage) => "팀전(2:2·3:3)".to_owned(),
        },
        format!("말 {}개", o.pieces),
        match o.stick_model {
            StickModel::Realistic => "실제 윷 확률".to_owned(),
            StickModel::Fair => "고른 확률".to_owned(),
        },
    ];
    parts.push(if o.backdo {
        match o.backdo_from_do {
            BackdoFromDo::Chammeogi => "빽도 있음(도에서 빽도는 참먹이로)".to_owned(),
            BackdoFromDo::Finish => "빽도 있음(도에서 빽도는 바로 남)".to_owned(),
            BackdoFromDo::Home => "빽도 있음(도에서 빽도는 대기로)".to_owned(),
        }
    } else {
        "빽도 없음".to_owned()
    });
    parts.push(
        match o.finish_rule {
            FinishRule::Pass => "참먹이를 지나야 남",
            FinishRule::Reach => "참먹이에 닿으면 남",
        }
        .to_owned(),
    );
    parts.push(if o.nak_percent == 0 {
        "낙 없음".to_owned()
    } else {
        format!("낙 {}%", o.nak_percent)
    });
    if o.backdo {
        parts.push(
            if o.backdo_capture_bonus {
                "빽도로 잡아도 한 번 더"
            } else {
                "빽도로 잡으면 추가 던지기 없음"
            }
            .to_owned(),
        );
    }
    if !o.capture_bonus_on_yut_mo {
        parts.push("윷·모로 잡으면 추가 던지기 없음".to_owned());
    }
    if o.mode == Mode::Individual {
        parts.push(
            match o.ranking {
                Ranking::First => "1등이 나오면 끝",
                Ranking::All => "꼴찌까지 순위 결정",
                Ranking::None => "1등이 나오면 끝(순위 없음)",
            }
            .to_owned(),
        );
    }
    if o.end_mode == EndMode::Timed {
        parts.push(format!(
            "{}분 시간제(그 라운드까지)",
            YutOptions::TIMED_MINUTES
        ));
    }
    parts.push(match o.turn_seconds {
        Some(s) => format!("한 번에 {s}초"),
        None => "시간 제한 없음".to_owned(),
    });
    if let Some(s) = o.turn_cap_seconds {
        parts.push(format!("한 차례 {s}초가 지나면 자동 진행"));
    }
    if o.timeout_policy == TimeoutPolicy::RulesPage {
        parts.push("자동 이동은 완주·잡기·멀리 가기 순".to_owned());
    }
    if let Some(n) = o.idle_turns_to_auto {
        parts.push(format!("{n}번 연속 안 하면 자동 진행"));
    }
    if o.on_leave == OnLeave::Bot {
        parts.push("나가면 봇이 이어받음".to_owned());
    }
    if o.hints {
        parts.push("추천 수 힌트".to_owned());
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rules_read_as_one_line() {
        assert_eq!(
            rule_summary(&YutOptions::default()),
            "개인전 · 말 4개 · 실제 윷 확률 · 빽도 있음(도에서 빽도는 참먹이로) · 참먹이를 지나야 남 · 낙 없음 · \
             빽도로 잡아도 한 번 더 · 1등이 나오면 끝 · 한 번에 30초"
        );
    }

    #[test]
    fn each_house_rule_shows_in_the_summary() {
        let o = YutOptions {
            mode: Mode::Team,
            backdo: false,
            finish_rule: FinishRule::Reach,
            nak_percent: 5,
            turn_seconds: None,
            hints: true,
            ..YutOptions::default()
        };
        let line = rule_summary(&o);
        for part in [
            "팀전",
            "빽도 없음",
            "참먹이에 닿으면 남",
            "낙 5%",
            "시간 제한 없음",
            "추천 수 힌트",
        ] {
            assert!(line.contains(part), "{part} missing from {line}");
        }
        assert!(
            !line.contains("1등"),
            "ranking applies to individual games only"
        );
    }

    #[test]
    fn y16_the_rules_page_reads_as_one_line() {
        let page = YutOptions::preset(super::super::options::Ruleset::RulesPage);
        assert_eq!(
            rule_summary(&page),
            "개인전(2~6명) · 말 4개 · 고른 확률 · 빽도 있음(도에서 빽도는 대기로) · 참먹이를 지나야 남 · \
             낙 없음 · 빽도로 잡아도 한 번 더 · 윷·모로 잡으면 추가 던지기 없음 · \
             1등이 나오면 끝(순위 없음) · 한 번에 20초 · 한 차례 90초가 지나면 자동 진행 · \
             자동 이동은 완주·잡기·멀리 가기 순 · 3번 연속 안 하면 자동 진행 · 나가면 봇이 이어받음"
        );
        let timed_team = YutOptions {
            mode: Mode::Team,
            end_mode: EndMode::Timed,
            turn_seconds: Some(60),
            ..page
        };
        let line = rule_summary(&timed_team);
        for part in [
            "팀전(2:2·3:3)",
            "30분 시간제(그 라운드까지)",
            "한 번에 60초",
        ] {
            assert!(line.contains(part), "{part} missing from {line}");
        }
    }
}
