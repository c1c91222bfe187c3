//! Room options (§2) as clients send them, their validation and their size-dependent defaults.
//!
//! Fields whose default depends on another option (`komi`, `timeControl.mainSec`) are `Option`s:
//! absent means "the default for this board and handicap", resolved by the accessors here.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::game::OptionsError;

/// One day in milliseconds.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// How the game is counted (§6).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "camelCase")]
pub enum ScoringMethod {
    /// 집 계산 (Korean/Japanese): territory + captures.
    #[default]
    Territory,
    /// 영역 계산 (Chinese): stones + territory.
    Area,
}

/// Which repetitions are forbidden (§5.3).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "camelCase")]
pub enum KoRule {
    /// No arrangement of stones may repeat in the whole game.
    #[default]
    PositionalSuperko,
    /// Simple ko only (B2); the third appearance of a situation ends the game as a draw (B3).
    Korean,
}

/// Who takes black (§4.1).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "camelCase")]
pub enum ColorAssignment {
    /// Drawn with the game's random generator.
    #[default]
    Nigiri,
    /// The host plays black (with handicap: the host is the weaker player).
    HostBlack,
    /// The host plays white.
    HostWhite,
}

/// The kind of clock.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "camelCase")]
pub enum ClockKind {
    /// No clock; only the idle limit applies.
    None,
    /// Main time, then byoyomi periods.
    #[default]
    Byoyomi,
    /// Main time plus an increment per move.
    Fischer,
    /// A game played over days (correspondence): every move has `daysPerMove` days, which do
    /// not add up from move to move.
    Correspondence,
}

/// `timeControl` (§2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct TimeControl {
    /// The kind of clock.
    pub kind: ClockKind,
    /// Main time in seconds, 0–3600; absent: 180 / 600 / 1200 on 9 / 13 / 19 lines.
    pub main_sec: Option<u32>,
    /// One byoyomi period: 10, 20, 30 or 60 seconds.
    pub period_sec: u32,
    /// Number of byoyomi periods, 1–5.
    pub periods: u32,
    /// Fischer increment per move, 0–30 seconds.
    pub inc_sec: u32,
    /// Correspondence: days for each move, 1, 2, 3 or 7 (default 1).
    #[serde(deserialize_with = "days_per_move_since_format_7")]
    pub days_per_move: u32,
}

/// `daysPerMove`, which the stored format 7 added: a room stored before reads the default (its
/// clock is not a correspondence one anyway). Any other decode reads the field as usual.
fn days_per_move_since_format_7<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    if crate::room::reading_before(7) {
        Ok(TimeControl::DEFAULT_DAYS_PER_MOVE)
    } else {
        u32::deserialize(d)
    }
}

impl TimeControl {
    /// `daysPerMove` when a correspondence clock does not say: one day, 하루에 한 수.
    pub const DEFAULT_DAYS_PER_MOVE: u32 = 1;
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            kind: ClockKind::Byoyomi,
            main_sec: None,
            period_sec: 30,
            periods: 3,
            inc_sec: 10,
            days_per_move: TimeControl::DEFAULT_DAYS_PER_MOVE,
        }
    }
}

/// How many undos each player may have accepted: JSON `"off"`, `1`, `3` or `"unlimited"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoAllowance {
    /// No undo.
    Off,
    /// At most this many accepted undos per player (the spec allows 1 and 3).
    Limited(u8),
    /// No limit.
    Unlimited,
}

impl Default for UndoAllowance {
    fn default() -> Self {
        UndoAllowance::Limited(3)
    }
}

impl UndoAllowance {
    /// Every allowed value: `"off"`, `1`, `3`, `"unlimited"`. Written out, unlike the other
    /// options' `strum::VariantArray`: `Limited` carries a number, and only two of them are
    /// allowed.
    pub const ALL: [UndoAllowance; 4] = [
        UndoAllowance::Off,
        UndoAllowance::Limited(1),
        UndoAllowance::Limited(3),
        UndoAllowance::Unlimited,
    ];

    /// Whether a player who has had `used` undos accepted may ask for another.
    pub fn allows(self, used: u16) -> bool {
        match self {
            UndoAllowance::Off => false,
            UndoAllowance::Limited(n) => used < u16::from(n),
            UndoAllowance::Unlimited => true,
        }
    }

    // The binary form is one byte: 0 off, 255 unlimited, otherwise the limit.
    fn to_byte(self) -> u8 {
        match self {
            UndoAllowance::Off => 0,
            UndoAllowance::Limited(n) => n,
            UndoAllowance::Unlimited => u8::MAX,
        }
    }

    fn from_byte(b: u8) -> Self {
        match b {
            0 => UndoAllowance::Off,
            u8::MAX => UndoAllowance::Unlimited,
            n => UndoAllowance::Limited(n),
        }
    }
}

impl schemars::JsonSchema for UndoAllowance {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "UndoAllowance".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Accepted undos per player: `off`, 1, 3 or `unlimited`.",
            "enum": ["off", 1, 3, "unlimited"]
        })
    }
}

impl Serialize for UndoAllowance {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // JSON mixes strings and numbers; postcard is not self-describing, so it gets one byte.
        if !s.is_human_readable() {
            return s.serialize_u8(self.to_byte());
        }
        match self {
            UndoAllowance::Off => s.serialize_str("off"),
            UndoAllowance::Limited(n) => s.serialize_u8(*n),
            UndoAllowance::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

impl<'de> Deserialize<'de> for UndoAllowance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if !d.is_human_readable() {
            return u8::deserialize(d).map(UndoAllowance::from_byte);
        }
        struct UndoVisitor;
        impl Visitor<'_> for UndoVisitor {
            type Value = UndoAllowance;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#""off", 1, 3 or "unlimited""#)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<UndoAllowance, E> {
                match v {
                    "off" => Ok(UndoAllowance::Off),
                    "unlimited" => Ok(UndoAllowance::Unlimited),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<UndoAllowance, E> {
                match v {
                    1 | 3 => Ok(UndoAllowance::Limited(v as u8)),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<UndoAllowance, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
        }
        d.deserialize_any(UndoVisitor)
    }
}

/// The options of a 바둑 room (§2). Missing fields take their defaults; unknown ones are refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct BadukOptions {
    /// Lines of the board: 9, 13 or 19.
    pub board_size: u32,
    /// Territory or area counting.
    pub scoring: ScoringMethod,
    /// Points added to white, in 0.5 steps from −10 to 10; absent: 6.5 (territory) / 7.5 (area)
    /// in an even game, 0.5 with handicap.
    pub komi: Option<f64>,
    /// Handicap stones: 0 or 2–9 (2–5 on 9 lines).
    pub handicap: u32,
    /// Ko rule.
    pub ko_rule: KoRule,
    /// Who plays black.
    pub color_assignment: ColorAssignment,
    /// The clock.
    pub time_control: TimeControl,
    /// With `timeControl.kind = none`: seconds a player may stay idle, 300 or 600.
    pub idle_limit_sec: u32,
    /// Undo allowance per player.
    pub undo: UndoAllowance,
    /// Whether draws may be offered.
    pub draw_offer: bool,
    /// Whether the player to move sees their chains in atari.
    pub atari_warning: bool,
    /// Seconds for the dead-stone agreement: 120, 180 or 300.
    pub scoring_deadline_sec: u32,
    /// Seconds a disconnected player to act is waited for: 60, 120 or 300.
    pub disconnect_grace_sec: u32,
    /// What the room's chat allows (DESIGN "Chat").
    #[serde(deserialize_with = "crate::room::since_format_5")]
    pub chat: crate::chat_setting::ChatSetting,
}

impl Default for BadukOptions {
    fn default() -> Self {
        BadukOptions {
            board_size: 19,
            scoring: ScoringMethod::Territory,
            komi: None,
            handicap: 0,
            ko_rule: KoRule::PositionalSuperko,
            color_assignment: ColorAssignment::Nigiri,
            time_control: TimeControl::default(),
            idle_limit_sec: 600,
            undo: UndoAllowance::default(),
            draw_offer: true,
            atari_warning: true,
            scoring_deadline_sec: 180,
            disconnect_grace_sec: 120,
            chat: crate::chat_setting::ChatSetting::On,
        }
    }
}

fn one_of(field: &str, value: u32, allowed: &[u32]) -> Result<(), OptionsError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        let list: Vec<String> = allowed.iter().map(u32::to_string).collect();
        Err(OptionsError::new(
            field,
            format!("{} 중 하나만 고를 수 있어요.", list.join(", ")),
        ))
    }
}

fn within(field: &str, value: u32, (min, max): (u32, u32)) -> Result<(), OptionsError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(OptionsError::new(
            field,
            format!("{min}부터 {max}까지만 고를 수 있어요."),
        ))
    }
}

impl BadukOptions {
    /// Allowed board sizes.
    pub const BOARD_SIZES: [u32; 3] = [9, 13, 19];
    /// Allowed handicaps on 13 and 19 lines.
    pub const HANDICAPS: [u32; 9] = [0, 2, 3, 4, 5, 6, 7, 8, 9];
    /// Allowed handicaps on 9 lines.
    pub const HANDICAPS_ON_9: [u32; 5] = [0, 2, 3, 4, 5];
    /// Komi bounds and step: −10 to 10 in half points.
    pub const KOMI: (f64, f64, f64) = (-10.0, 10.0, 0.5);
    /// Main time bounds in seconds.
    pub const MAIN_SEC: (u32, u32) = (0, 3600);
    /// Allowed byoyomi periods in seconds.
    pub const PERIOD_SECS: [u32; 4] = [10, 20, 30, 60];
    /// Bounds of the number of byoyomi periods.
    pub const PERIODS: (u32, u32) = (1, 5);
    /// Bounds of the Fischer increment in seconds.
    pub const INC_SEC: (u32, u32) = (0, 30);
    /// Allowed days per move of a correspondence clock.
    pub const DAYS_PER_MOVE: [u32; 4] = [1, 2, 3, 7];
    /// Allowed idle limits in seconds (no clock).
    pub const IDLE_LIMIT_SECS: [u32; 2] = [300, 600];
    /// Allowed dead-stone agreement times in seconds.
    pub const SCORING_DEADLINE_SECS: [u32; 3] = [120, 180, 300];
    /// Allowed disconnect grace periods in seconds.
    pub const DISCONNECT_GRACE_SECS: [u32; 3] = [60, 120, 300];

    /// The handicaps allowed on this board.
    pub fn handicaps(&self) -> &'static [u32] {
        if self.board_size == 9 {
            &Self::HANDICAPS_ON_9
        } else {
            &Self::HANDICAPS
        }
    }

    /// Checks every field and their combinations (handicap limits depend on the board size).
    pub fn validate(&self) -> Result<(), OptionsError> {
        one_of("boardSize", self.board_size, &Self::BOARD_SIZES)?;
        if !self.handicaps().contains(&self.handicap) {
            let max = self.handicaps().last().copied().unwrap_or_default();
            return Err(OptionsError::new(
                "handicap",
                format!("치석은 0 또는 2~{max}점만 놓을 수 있어요."),
            ));
        }
        if let Some(komi) = self.komi {
            let (min, max, step) = Self::KOMI;
            if !komi.is_finite() || !(min..=max).contains(&komi) {
                return Err(OptionsError::new(
                    "komi",
                    "덤은 -10부터 10까지만 정할 수 있어요.",
                ));
            }
            if ((komi - min) / step).fract() != 0.0 {
                return Err(OptionsError::new(
                    "komi",
                    "덤은 0.5 단위로만 정할 수 있어요.",
                ));
            }
        }
        let tc = &self.time_control;
        if let Some(main) = tc.main_sec {
            within("timeControl.mainSec", main, Self::MAIN_SEC)?;
        }
        one_of("timeControl.periodSec", tc.period_sec, &Self::PERIOD_SECS)?;
        within("timeControl.periods", tc.periods, Self::PERIODS)?;
        within("timeControl.incSec", tc.inc_sec, Self::INC_SEC)?;
        if !Self::DAYS_PER_MOVE.contains(&tc.days_per_move) {
            return Err(OptionsError::new(
                "timeControl.daysPerMove",
                "느린 대국은 한 수에 1일, 2일, 3일, 7일 중 하나만 고를 수 있어요.",
            ));
        }
        if tc.kind == ClockKind::Fischer && self.main_ms() == 0 && tc.inc_sec == 0 {
            return Err(OptionsError::new(
                "timeControl.mainSec",
                "피셔 방식에는 기본 시간이나 추가 시간이 있어야 해요.",
            ));
        }
        one_of("idleLimitSec", self.idle_limit_sec, &Self::IDLE_LIMIT_SECS)?;
        if !UndoAllowance::ALL.contains(&self.undo) {
            return Err(OptionsError::new(
                "undo",
                "무르기는 off, 1, 3, unlimited 중 하나만 고를 수 있어요.",
            ));
        }
        one_of(
            "scoringDeadlineSec",
            self.scoring_deadline_sec,
            &Self::SCORING_DEADLINE_SECS,
        )?;
        one_of(
            "disconnectGraceSec",
            self.disconnect_grace_sec,
            &Self::DISCONNECT_GRACE_SECS,
        )?;
        Ok(())
    }

    /// The board size as lines (valid after [`BadukOptions::validate`]).
    pub fn size(&self) -> u8 {
        u8::try_from(self.board_size).unwrap_or(19)
    }

    /// Komi in half points (6.5 → 13), the default resolved.
    pub fn komi_halves(&self) -> i32 {
        match self.komi {
            Some(k) => (k * 2.0).round() as i32,
            None if self.handicap >= 2 => 1,
            None => match self.scoring {
                ScoringMethod::Territory => 13,
                ScoringMethod::Area => 15,
            },
        }
    }

    /// White's handicap compensation in points: N under `area` with handicap (B5), else 0.
    pub fn handicap_comp(&self) -> u32 {
        match self.scoring {
            ScoringMethod::Area if self.handicap >= 2 => self.handicap,
            _ => 0,
        }
    }

    /// Main time in milliseconds, the size default resolved.
    pub fn main_ms(&self) -> u64 {
        let sec = self.time_control.main_sec.unwrap_or(match self.board_size {
            9 => 180,
            13 => 600,
            _ => 1200,
        });
        u64::from(sec) * 1000
    }

    /// One byoyomi period in milliseconds.
    pub fn period_ms(&self) -> u64 {
        u64::from(self.time_control.period_sec) * 1000
    }

    /// Whether the clock is a correspondence one (a game played over days).
    pub fn is_correspondence(&self) -> bool {
        self.time_control.kind == ClockKind::Correspondence
    }

    /// The time of one move under a correspondence clock (`daysPerMove` days), in milliseconds.
    pub fn per_move_ms(&self) -> u64 {
        u64::from(self.time_control.days_per_move) * DAY_MS
    }

    /// How long the dead-stone agreement may take: `scoringDeadlineSec`, or under a
    /// correspondence clock the time of one move (nobody answers within minutes in a game played
    /// over days).
    pub fn scoring_deadline_ms(&self) -> u64 {
        if self.is_correspondence() {
            self.per_move_ms()
        } else {
            u64::from(self.scoring_deadline_sec) * 1000
        }
    }

    /// The side that moves first: white with handicap (B5), black otherwise.
    pub fn first_to_move(&self) -> super::Color {
        if self.handicap >= 2 {
            super::Color::White
        } else {
            super::Color::Black
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> BadukOptions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn absent_fields_take_size_dependent_defaults() {
        let o = parse(r#"{"boardSize": 9}"#);
        assert_eq!(o.main_ms(), 180_000);
        assert_eq!(o.komi_halves(), 13);
        let o = parse(r#"{"scoring": "area", "handicap": 3}"#);
        assert_eq!((o.komi_halves(), o.handicap_comp()), (1, 3));
        assert_eq!(parse(r#"{"scoring": "area"}"#).komi_halves(), 15);
    }

    #[test]
    fn undo_reads_strings_and_numbers() {
        assert_eq!(parse(r#"{"undo": "off"}"#).undo, UndoAllowance::Off);
        assert_eq!(parse(r#"{"undo": 1}"#).undo, UndoAllowance::Limited(1));
        assert_eq!(
            parse(r#"{"undo": "unlimited"}"#).undo,
            UndoAllowance::Unlimited
        );
        assert!(serde_json::from_str::<BadukOptions>(r#"{"undo": 2}"#).is_err());
        assert_eq!(
            serde_json::to_string(&UndoAllowance::Limited(3)).unwrap(),
            "3"
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(serde_json::from_str::<BadukOptions>(r#"{"boardsize": 9}"#).is_err());
        assert!(serde_json::from_str::<BadukOptions>(r#"{"timeControl": {"foo": 1}}"#).is_err());
    }

    #[test]
    fn errors_name_the_field() {
        let bad = |json: &str| parse(json).validate().unwrap_err().field;
        assert_eq!(bad(r#"{"boardSize": 11}"#), "boardSize");
        assert_eq!(bad(r#"{"boardSize": 9, "handicap": 6}"#), "handicap");
        assert_eq!(bad(r#"{"handicap": 1}"#), "handicap");
        assert_eq!(bad(r#"{"komi": 6.3}"#), "komi");
        assert_eq!(bad(r#"{"komi": 10.5}"#), "komi");
        assert_eq!(
            bad(r#"{"timeControl": {"mainSec": 4000}}"#),
            "timeControl.mainSec"
        );
        assert_eq!(
            bad(r#"{"timeControl": {"periodSec": 15}}"#),
            "timeControl.periodSec"
        );
        assert_eq!(
            bad(r#"{"timeControl": {"periods": 0}}"#),
            "timeControl.periods"
        );
        assert_eq!(
            bad(r#"{"timeControl": {"incSec": 31}}"#),
            "timeControl.incSec"
        );
        assert_eq!(bad(r#"{"idleLimitSec": 100}"#), "idleLimitSec");
        assert_eq!(
            bad(r#"{"timeControl": {"kind": "correspondence", "daysPerMove": 5}}"#),
            "timeControl.daysPerMove"
        );
        assert_eq!(
            bad(r#"{"timeControl": {"daysPerMove": 0}}"#),
            "timeControl.daysPerMove"
        );
        assert_eq!(bad(r#"{"scoringDeadlineSec": 100}"#), "scoringDeadlineSec");
        assert_eq!(bad(r#"{"disconnectGraceSec": 10}"#), "disconnectGraceSec");
        assert!(BadukOptions::default().validate().is_ok());
    }

    #[test]
    fn a_correspondence_clock_reads_its_days_and_defaults_to_one() {
        let o = parse(r#"{"timeControl": {"kind": "correspondence", "daysPerMove": 7}}"#);
        assert!(o.is_correspondence());
        assert_eq!(o.per_move_ms(), 7 * DAY_MS);
        assert_eq!(o.scoring_deadline_ms(), 7 * DAY_MS);
        assert!(o.validate().is_ok());
        let o = parse(r#"{"timeControl": {"kind": "correspondence"}}"#);
        assert_eq!(o.time_control.days_per_move, 1);
        for days in BadukOptions::DAYS_PER_MOVE {
            let json = format!(
                r#"{{"timeControl": {{"kind": "correspondence", "daysPerMove": {days}}}}}"#
            );
            assert!(parse(&json).validate().is_ok(), "{days}");
        }
        assert_eq!(BadukOptions::default().scoring_deadline_ms(), 180_000);
    }

    #[test]
    fn the_binary_form_round_trips() {
        let o = parse(r#"{"boardSize": 13, "komi": -3.5, "undo": "unlimited"}"#);
        let bytes = postcard::to_allocvec(&o).unwrap();
        assert_eq!(postcard::from_bytes::<BadukOptions>(&bytes).unwrap(), o);
    }
}
