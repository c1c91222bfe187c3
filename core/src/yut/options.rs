//! Room options (§2): what clients send, their defaults, and which combinations can be played.

use serde::{Deserialize, Serialize};

use crate::game::OptionsError;

/// 개인전 or 팀전.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Everyone for themself: 2–4 players, one side each.
    #[default]
    Individual,
    /// Two teams (청, 홍) of 2–4: 4, 6 or 8 players; even seats are 청, odd seats 홍.
    Team,
}

/// How likely one stick is to land flat side (배) up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StickModel {
    /// 0.6, close to real sticks: many 개 and 걸, few 모.
    #[default]
    Realistic,
    /// 0.5, every face equally likely.
    Fair,
}

impl StickModel {
    /// The probability that one stick lands flat side up.
    pub const fn flat_probability(self) -> f64 {
        match self {
            StickModel::Realistic => 0.6,
            StickModel::Fair => 0.5,
        }
    }
}

/// What 빽도 does to a piece on 도 (spot 1), which has nowhere behind it on the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BackdoFromDo {
    /// The piece goes to 참먹이 and counts as having lapped: any forward result finishes it.
    #[default]
    Chammeogi,
    /// The piece finishes at once.
    Finish,
}

/// When a lapped piece finishes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FinishRule {
    /// It must pass 참먹이; stopping on it leaves the piece on the board (and capturable).
    #[default]
    Pass,
    /// Arriving on 참먹이 finishes it.
    Reach,
}

/// What happens in a 3–4 player individual game once someone has finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Ranking {
    /// The game ends with the first side home; the others are ranked by progress (§6).
    #[default]
    First,
    /// Finished sides drop out and the rest play on until only the last is left.
    All,
}

/// The room options of §2, exactly as clients send them (camelCase keys, missing keys take the
/// default, unknown keys are refused).
///
/// A value of this type is not necessarily playable: [`YutOptions::validate`] decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct YutOptions {
    /// 개인전 / 팀전.
    pub mode: Mode,
    /// Pieces per side (a team shares one set): 2–5.
    pub pieces: u8,
    /// Stick probability model.
    pub stick_model: StickModel,
    /// Whether the marked stick alone up is 빽도 (otherwise it is just 도).
    pub backdo: bool,
    /// What 빽도 does on 도.
    pub backdo_from_do: BackdoFromDo,
    /// When a lapped piece finishes.
    pub finish_rule: FinishRule,
    /// Chance in percent that a throw is 낙 (void): 0, 3, 5 or 10.
    pub nak_percent: u8,
    /// Whether a capture made with 빽도 also earns the extra throw.
    pub backdo_capture_bonus: bool,
    /// Ranking rule for 3–4 player individual games.
    pub ranking: Ranking,
    /// Seconds per action: 15, 30 or 60; `None` (JSON `null`) means no limit.
    pub turn_seconds: Option<u16>,
}

impl Default for YutOptions {
    fn default() -> Self {
        YutOptions {
            mode: Mode::Individual,
            pieces: 4,
            stick_model: StickModel::Realistic,
            backdo: true,
            backdo_from_do: BackdoFromDo::Chammeogi,
            finish_rule: FinishRule::Pass,
            nak_percent: 0,
            backdo_capture_bonus: true,
            ranking: Ranking::First,
            turn_seconds: Some(30),
        }
    }
}

impl YutOptions {
    /// Allowed values of `pieces`.
    pub const PIECES: [u8; 4] = [2, 3, 4, 5];
    /// Allowed values of `nakPercent`.
    pub const NAK_PERCENTS: [u8; 4] = [0, 3, 5, 10];
    /// Allowed values of `turnSeconds` other than `null`.
    pub const TURN_SECONDS: [u16; 3] = [15, 30, 60];

    /// The most players these options allow: 4 individually, 8 in teams.
    pub const fn max_players(&self) -> usize {
        match self.mode {
            Mode::Individual => 4,
            Mode::Team => 8,
        }
    }

    /// Checks every value, and with `players = Some(n)` that `n` people can play this mode.
    ///
    /// # Errors
    ///
    /// An [`OptionsError`] naming the first offending key (camelCase) with a Korean reason.
    pub fn validate(&self, players: Option<usize>) -> Result<(), OptionsError> {
        if !Self::PIECES.contains(&self.pieces) {
            return Err(OptionsError::new(
                "pieces",
                "말 수는 2·3·4·5개 중에서 골라 주세요.",
            ));
        }
        if !Self::NAK_PERCENTS.contains(&self.nak_percent) {
            return Err(OptionsError::new(
                "nakPercent",
                "낙 확률은 0·3·5·10% 중에서 골라 주세요.",
            ));
        }
        if let Some(seconds) = self.turn_seconds
            && !Self::TURN_SECONDS.contains(&seconds)
        {
            return Err(OptionsError::new(
                "turnSeconds",
                "제한 시간은 15·30·60초나 무제한 중에서 골라 주세요.",
            ));
        }
        let Some(n) = players else { return Ok(()) };
        match self.mode {
            Mode::Team if n == 2 => Err(OptionsError::new(
                "mode",
                "2명은 개인전(1:1)으로만 할 수 있어요.",
            )),
            Mode::Team if !matches!(n, 4 | 6 | 8) => {
                Err(OptionsError::new("mode", "팀전은 4·6·8명만 할 수 있어요."))
            }
            Mode::Individual if !(2..=4).contains(&n) => {
                Err(OptionsError::new("mode", "개인전은 2~4명만 할 수 있어요."))
            }
            _ => Ok(()),
        }
    }

    /// The probability that a throw is 낙.
    pub fn nak_probability(&self) -> f64 {
        f64::from(self.nak_percent) / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_those_of_the_spec() {
        let o: YutOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(o, YutOptions::default());
        let json = serde_json::to_value(&o).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "mode": "individual", "pieces": 4, "stickModel": "realistic", "backdo": true,
                "backdoFromDo": "chammeogi", "finishRule": "pass", "nakPercent": 0,
                "backdoCaptureBonus": true, "ranking": "first", "turnSeconds": 30
            })
        );
    }

    #[test]
    fn null_turn_seconds_means_unlimited_and_unknown_keys_are_refused() {
        let o: YutOptions = serde_json::from_str(r#"{"turnSeconds": null}"#).unwrap();
        assert_eq!(o.turn_seconds, None);
        assert!(serde_json::from_str::<YutOptions>(r#"{"speed": 2}"#).is_err());
        assert!(serde_json::from_str::<YutOptions>(r#"{"mode": "duo"}"#).is_err());
    }

    #[test]
    fn values_outside_the_lists_are_named() {
        let bad = |o: YutOptions| o.validate(None).unwrap_err().field;
        assert_eq!(
            bad(YutOptions {
                pieces: 6,
                ..Default::default()
            }),
            "pieces"
        );
        assert_eq!(
            bad(YutOptions {
                nak_percent: 7,
                ..Default::default()
            }),
            "nakPercent"
        );
        let slow = YutOptions {
            turn_seconds: Some(45),
            ..Default::default()
        };
        assert_eq!(bad(slow), "turnSeconds");
    }

    #[test]
    fn head_counts_follow_the_mode() {
        let individual = YutOptions::default();
        let team = YutOptions {
            mode: Mode::Team,
            ..Default::default()
        };
        for n in 2..=4 {
            assert!(individual.validate(Some(n)).is_ok());
        }
        for n in [1, 5, 8] {
            assert_eq!(individual.validate(Some(n)).unwrap_err().field, "mode");
        }
        for n in [4, 6, 8] {
            assert!(team.validate(Some(n)).is_ok());
        }
        for n in [2, 3, 5, 7, 9] {
            assert_eq!(team.validate(Some(n)).unwrap_err().field, "mode");
        }
        assert!(team.validate(None).is_ok());
        assert_eq!(individual.max_players(), 4);
        assert_eq!(team.max_players(), 8);
    }
}
