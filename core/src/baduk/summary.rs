//! The chosen rules in one Korean line, shown in every room view.

use super::options::{BadukOptions, ClockKind, KoRule, ScoringMethod, UndoAllowance};

/// Half points as Korean players write komi: 13 → "6.5", 0 → "0".
fn points(halves: i32) -> String {
    if halves % 2 == 0 {
        format!("{}", halves / 2)
    } else {
        format!("{:.1}", f64::from(halves) / 2.0)
    }
}

fn minutes_seconds(ms: u64) -> String {
    let s = ms / 1000;
    match (s / 60, s % 60) {
        (0, s) => format!("{s}초"),
        (m, 0) => format!("{m}분"),
        (m, s) => format!("{m}분 {s}초"),
    }
}

/// E.g. "19줄 · 집 계산(한국식) · 덤 6.5 · 동형 반복 금지 · 초읽기 20분 + 30초×3 · 무르기 3번".
pub fn rule_summary(o: &BadukOptions) -> String {
    let mut parts = vec![format!("{}줄", o.size())];
    parts.push(
        match o.scoring {
            ScoringMethod::Territory => "집 계산(한국식)",
            ScoringMethod::Area => "영역 계산(중국식)",
        }
        .to_owned(),
    );
    if o.handicap >= 2 {
        parts.push(format!("{}점 접바둑", o.handicap));
    }
    let mut komi = format!("덤 {}", points(o.komi_halves()));
    if o.handicap_comp() > 0 {
        komi.push_str(&format!(" + 치석 보정 {}", o.handicap_comp()));
    }
    parts.push(komi);
    parts.push(
        match o.ko_rule {
            KoRule::PositionalSuperko => "동형 반복 금지",
            KoRule::Korean => "단순 패 + 삼패 무승부",
        }
        .to_owned(),
    );
    parts.push(match o.time_control.kind {
        ClockKind::Byoyomi => format!(
            "초읽기 {} + {}×{}",
            minutes_seconds(o.main_ms()),
            minutes_seconds(o.period_ms()),
            o.time_control.periods
        ),
        ClockKind::Fischer => {
            format!(
                "피셔 {} + 수당 {}초",
                minutes_seconds(o.main_ms()),
                o.time_control.inc_sec
            )
        }
        ClockKind::Correspondence => {
            format!("느린 대국(한 수에 {}일)", o.time_control.days_per_move)
        }
        ClockKind::None => format!(
            "시간 제한 없음(무응답 {})",
            minutes_seconds(u64::from(o.idle_limit_sec) * 1000)
        ),
    });
    parts.push(match o.undo {
        UndoAllowance::Off => "무르기 없음".to_owned(),
        UndoAllowance::Limited(n) => format!("무르기 {n}번"),
        UndoAllowance::Unlimited => "무르기 무제한".to_owned(),
    });
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rules_read_as_one_line() {
        assert_eq!(
            rule_summary(&BadukOptions::default()),
            "19줄 · 집 계산(한국식) · 덤 6.5 · 동형 반복 금지 · 초읽기 20분 + 30초×3 · 무르기 3번"
        );
    }

    #[test]
    fn a_correspondence_clock_reads_as_days_per_move() {
        let o: BadukOptions = serde_json::from_str(
            r#"{"timeControl": {"kind": "correspondence", "daysPerMove": 3}}"#,
        )
        .unwrap();
        assert_eq!(
            rule_summary(&o),
            "19줄 · 집 계산(한국식) · 덤 6.5 · 동형 반복 금지 · 느린 대국(한 수에 3일) · 무르기 3번"
        );
    }

    #[test]
    fn handicap_area_games_show_the_compensation() {
        let o: BadukOptions =
            serde_json::from_str(r#"{"boardSize": 9, "scoring": "area", "handicap": 3, "timeControl": {"kind": "fischer"}}"#)
                .unwrap();
        assert_eq!(
            rule_summary(&o),
            "9줄 · 영역 계산(중국식) · 3점 접바둑 · 덤 0.5 + 치석 보정 3 · 동형 반복 금지 · 피셔 3분 + 수당 10초 · 무르기 3번"
        );
    }
}
