//! Room options (§2): what clients send, their defaults, and which combinations can be played.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::chat_setting::ChatSetting;

use crate::game::OptionsError;

/// 개인전 or 팀전.
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
pub enum Mode {
    /// Everyone for themself: one side each (2–4 players, 2–6 under the rules page's limits).
    #[default]
    Individual,
    /// Two teams (청, 홍) of 2–4 (2–3 under the rules page's limits); even seats are 청, odd
    /// seats 홍.
    Team,
}

/// How likely one stick is to land flat side (배) up.
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
pub enum BackdoFromDo {
    /// The piece goes to 참먹이 and counts as having lapped: any forward result finishes it.
    #[default]
    Chammeogi,
    /// The piece finishes at once.
    Finish,
    /// The piece goes back to wait off the board; a stack breaks up (the rules page).
    Home,
}

/// When a lapped piece finishes.
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
pub enum FinishRule {
    /// It must pass 참먹이; stopping on it leaves the piece on the board (and capturable).
    #[default]
    Pass,
    /// Arriving on 참먹이 finishes it.
    Reach,
}

/// How the sides that did not win are ranked in an individual game.
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
pub enum Ranking {
    /// The game ends with the first side home; the others are ranked by progress (§6).
    #[default]
    First,
    /// Finished sides drop out and the rest play on until only the last is left.
    All,
    /// The game ends with the first side home and only the winner is ranked (the rules page).
    None,
}

/// Which set of rules the other options start from (ruling Y16).
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
pub enum Ruleset {
    /// `yut.md`: every option takes its own default and may be set freely.
    #[default]
    YutMd,
    /// The player-facing rules page: every difference from `yut.md` switched on together
    /// ([`YutOptions::rules_page_fixed`] lists the fixed keys; `mode`, `backdo`, `turnSeconds`
    /// 20/30/60, `endMode` and `hints` stay free).
    RulesPage,
}

/// How many people can play.
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
pub enum PlayerLimits {
    /// `yut.md`: individual 2–4, teams of 2, 3 or 4 (4, 6 or 8 players).
    #[default]
    YutMd,
    /// The rules page: individual 2–6, teams 2:2 or 3:3.
    RulesPage,
}

/// How the system picks a move when it plays for someone (timeout, auto play, bot).
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
pub enum TimeoutPolicy {
    /// `yut.md` §8.5 with ruling Y9: capture, finish, stack, advance the hindmost, enter.
    #[default]
    YutMd,
    /// The rules page: finish, then capture, then go farthest (most steps, then the destination
    /// nearest the goal).
    RulesPage,
}

/// How the game ends.
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
pub enum EndMode {
    /// When a side has all its pieces home (with `ranking` deciding what follows).
    #[default]
    Finish,
    /// After [`YutOptions::TIMED_MINUTES`] minutes: the round in progress is the last, and the
    /// sides with the most finished pieces win together.
    Timed,
}

/// What happens to the seat of a player who leaves a running game.
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
pub enum OnLeave {
    /// They concede (ruling Y10).
    #[default]
    Concede,
    /// A bot takes the seat over: same team, pieces and turn order, playing by `timeoutPolicy`.
    Bot,
}

/// The room options of §2 and of the rules page (ruling Y16), exactly as clients send them
/// (camelCase keys, unknown keys refused).
///
/// Missing keys take the default *of the chosen `ruleset`*: `{"ruleset":"rulesPage"}` alone is
/// the whole rules page, and `{"ruleset":"rulesPage","turnSeconds":30}` changes one of its free
/// choices. The stored form keeps every field resolved. A value of this type is not necessarily
/// playable: [`YutOptions::validate`] decides (e.g. a field the rules page fixes, set to another
/// value, is refused naming that field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct YutOptions {
    /// Which rules the defaults come from.
    pub ruleset: Ruleset,
    /// 개인전 / 팀전.
    pub mode: Mode,
    /// How many people can play each mode.
    pub player_limits: PlayerLimits,
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
    /// Whether a capture made with 윷 or 모 also earns the extra throw.
    pub capture_bonus_on_yut_mo: bool,
    /// Ranking rule for individual games.
    pub ranking: Ranking,
    /// Seconds per action (throw or move); `None` (JSON `null`) means no limit.
    pub turn_seconds: Option<u16>,
    /// Seconds after the start of a turn when the rest of the turn is played automatically;
    /// `None`: no cap.
    pub turn_cap_seconds: Option<u16>,
    /// How the system picks moves when it plays for someone.
    pub timeout_policy: TimeoutPolicy,
    /// Turns in a row with no action of the player's own after which their seat plays
    /// automatically until they take control back; `None`: never.
    pub idle_turns_to_auto: Option<u8>,
    /// How the game ends.
    pub end_mode: EndMode,
    /// What happens to the seat of a player who leaves.
    pub on_leave: OnLeave,
    /// Whether the player to move is shown the move the system would choose for them
    /// (`state.hint`, yut.md §9: "추천 수(8.5 우선순위)를 연하게 표시"); free under every ruleset.
    pub hints: bool,
    /// What the room's chat allows (DESIGN "Chat"); free under every ruleset.
    #[serde(deserialize_with = "crate::room::since_format_5")]
    pub chat: ChatSetting,
}

impl Default for YutOptions {
    fn default() -> Self {
        YutOptions::preset(Ruleset::YutMd)
    }
}

impl Serialize for YutOptions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        YutOptions::serialize(self, s)
    }
}

/// Two contracts: what clients send (every key optional, from the ruleset's preset; unknown keys
/// refused) and what views show (every key, resolved).
impl schemars::JsonSchema for YutOptions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "YutOptions".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = WireOptions::json_schema(generator);
        if generator.contract().is_serialize() {
            let keys: Vec<serde_json::Value> = schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().map(|k| k.clone().into()).collect())
                .unwrap_or_default();
            schema.insert("required".into(), keys.into());
        }
        schema
    }
}

impl<'de> Deserialize<'de> for YutOptions {
    /// JSON is read as clients send it (missing keys from the ruleset's preset); the compact
    /// stored form is the plain struct, every field present.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            WireOptions::deserialize(d).map(YutOptions::from)
        } else {
            YutOptions::deserialize(d)
        }
    }
}

/// Reads a key that may be `null`: absent → `None`, `null` → `Some(None)`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The options as sent: every key optional, unknown keys refused.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireOptions {
    ruleset: Option<Ruleset>,
    mode: Option<Mode>,
    player_limits: Option<PlayerLimits>,
    pieces: Option<u8>,
    stick_model: Option<StickModel>,
    backdo: Option<bool>,
    backdo_from_do: Option<BackdoFromDo>,
    finish_rule: Option<FinishRule>,
    nak_percent: Option<u8>,
    backdo_capture_bonus: Option<bool>,
    capture_bonus_on_yut_mo: Option<bool>,
    ranking: Option<Ranking>,
    #[serde(default, deserialize_with = "present")]
    turn_seconds: Option<Option<u16>>,
    #[serde(default, deserialize_with = "present")]
    turn_cap_seconds: Option<Option<u16>>,
    timeout_policy: Option<TimeoutPolicy>,
    #[serde(default, deserialize_with = "present")]
    idle_turns_to_auto: Option<Option<u8>>,
    end_mode: Option<EndMode>,
    on_leave: Option<OnLeave>,
    hints: Option<bool>,
    chat: Option<ChatSetting>,
}

impl From<WireOptions> for YutOptions {
    fn from(w: WireOptions) -> Self {
        let base = YutOptions::preset(w.ruleset.unwrap_or_default());
        YutOptions {
            ruleset: base.ruleset,
            mode: w.mode.unwrap_or(base.mode),
            player_limits: w.player_limits.unwrap_or(base.player_limits),
            pieces: w.pieces.unwrap_or(base.pieces),
            stick_model: w.stick_model.unwrap_or(base.stick_model),
            backdo: w.backdo.unwrap_or(base.backdo),
            backdo_from_do: w.backdo_from_do.unwrap_or(base.backdo_from_do),
            finish_rule: w.finish_rule.unwrap_or(base.finish_rule),
            nak_percent: w.nak_percent.unwrap_or(base.nak_percent),
            backdo_capture_bonus: w.backdo_capture_bonus.unwrap_or(base.backdo_capture_bonus),
            capture_bonus_on_yut_mo: w
                .capture_bonus_on_yut_mo
                .unwrap_or(base.capture_bonus_on_yut_mo),
            ranking: w.ranking.unwrap_or(base.ranking),
            turn_seconds: w.turn_seconds.unwrap_or(base.turn_seconds),
            turn_cap_seconds: w.turn_cap_seconds.unwrap_or(base.turn_cap_seconds),
            timeout_policy: w.timeout_policy.unwrap_or(base.timeout_policy),
            idle_turns_to_auto: w.idle_turns_to_auto.unwrap_or(base.idle_turns_to_auto),
            end_mode: w.end_mode.unwrap_or(base.end_mode),
            on_leave: w.on_leave.unwrap_or(base.on_leave),
            hints: w.hints.unwrap_or(base.hints),
            chat: w.chat.unwrap_or(base.chat),
        }
    }
}

impl YutOptions {
    /// Allowed values of `pieces`.
    pub const PIECES: [u8; 4] = [2, 3, 4, 5];
    /// Allowed values of `nakPercent`.
    pub const NAK_PERCENTS: [u8; 4] = [0, 3, 5, 10];
    /// Allowed values of `turnSeconds` other than `null`.
    pub const TURN_SECONDS: [u16; 4] = [15, 20, 30, 60];
    /// Allowed values of `turnSeconds` under the rules page (no `null`).
    pub const RULES_PAGE_TURN_SECONDS: [u16; 3] = [20, 30, 60];
    /// Allowed values of `turnCapSeconds` other than `null`.
    pub const TURN_CAP_SECONDS: [u16; 1] = [90];
    /// Allowed values of `idleTurnsToAuto` other than `null`.
    pub const IDLE_TURNS_TO_AUTO: [u8; 1] = [3];
    /// How long a timed game lasts before its last round.
    pub const TIMED_MINUTES: u64 = 30;
    /// Every option at the default of `ruleset`: `yut.md`'s, or all of the rules page's house
    /// rules switched on (ruling Y16).
    pub const fn preset(ruleset: Ruleset) -> YutOptions {
        match ruleset {
            Ruleset::YutMd => YutOptions {
                ruleset,
                mode: Mode::Individual,
                player_limits: PlayerLimits::YutMd,
                pieces: 4,
                stick_model: StickModel::Realistic,
                backdo: true,
                backdo_from_do: BackdoFromDo::Chammeogi,
                finish_rule: FinishRule::Pass,
                nak_percent: 0,
                backdo_capture_bonus: true,
                capture_bonus_on_yut_mo: true,
                ranking: Ranking::First,
                turn_seconds: Some(30),
                turn_cap_seconds: None,
                timeout_policy: TimeoutPolicy::YutMd,
                idle_turns_to_auto: None,
                end_mode: EndMode::Finish,
                on_leave: OnLeave::Concede,
                hints: false,
                chat: ChatSetting::On,
            },
            Ruleset::RulesPage => YutOptions {
                ruleset,
                mode: Mode::Individual,
                player_limits: PlayerLimits::RulesPage,
                pieces: 4,
                stick_model: StickModel::Fair,
                backdo: true,
                backdo_from_do: BackdoFromDo::Home,
                finish_rule: FinishRule::Pass,
                nak_percent: 0,
                backdo_capture_bonus: true,
                capture_bonus_on_yut_mo: false,
                ranking: Ranking::None,
                turn_seconds: Some(20),
                turn_cap_seconds: Some(90),
                timeout_policy: TimeoutPolicy::RulesPage,
                idle_turns_to_auto: Some(3),
                end_mode: EndMode::Finish,
                on_leave: OnLeave::Bot,
                // A display aid, not a rule: the rules page leaves it to the players.
                hints: false,
                chat: ChatSetting::On,
            },
        }
    }

    /// The head counts these options allow.
    pub const fn player_counts(&self) -> &'static [usize] {
        match (self.player_limits, self.mode) {
            (PlayerLimits::YutMd, Mode::Individual) => &[2, 3, 4],
            (PlayerLimits::YutMd, Mode::Team) => &[4, 6, 8],
            (PlayerLimits::RulesPage, Mode::Individual) => &[2, 3, 4, 5, 6],
            (PlayerLimits::RulesPage, Mode::Team) => &[4, 6],
        }
    }

    /// The most players these options allow.
    pub const fn max_players(&self) -> usize {
        let counts = self.player_counts();
        counts[counts.len() - 1]
    }

    /// Checks every value (in the schema's order of options), the rules page's fixed values under `ruleset: rulesPage`, and with
    /// `players = Some(n)` that `n` people can play this mode.
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
        if let Some(seconds) = self.turn_seconds
            && !Self::TURN_SECONDS.contains(&seconds)
        {
            return Err(OptionsError::new(
                "turnSeconds",
                "제한 시간은 15·20·30·60초나 무제한 중에서 골라 주세요.",
            ));
        }
        if let Some(seconds) = self.turn_cap_seconds
            && !Self::TURN_CAP_SECONDS.contains(&seconds)
        {
            return Err(OptionsError::new(
                "turnCapSeconds",
                "한 차례 제한은 90초나 없음 중에서 골라 주세요.",
            ));
        }
        if let Some(turns) = self.idle_turns_to_auto
            && !Self::IDLE_TURNS_TO_AUTO.contains(&turns)
        {
            return Err(OptionsError::new(
                "idleTurnsToAuto",
                "자동 진행 전환은 3번이나 없음 중에서 골라 주세요.",
            ));
        }
        if !Self::NAK_PERCENTS.contains(&self.nak_percent) {
            return Err(OptionsError::new(
                "nakPercent",
                "낙 확률은 0·3·5·10% 중에서 골라 주세요.",
            ));
        }
        if self.ruleset == Ruleset::RulesPage {
            self.check_rules_page()?;
        }
        let Some(n) = players else { return Ok(()) };
        if self.player_counts().contains(&n) {
            return Ok(());
        }
        let message = match (self.player_limits, self.mode) {
            (_, Mode::Team) if n == 2 => "2명은 개인전(1:1)으로만 할 수 있어요.",
            (PlayerLimits::YutMd, Mode::Team) => "팀전은 4·6·8명만 할 수 있어요.",
            (PlayerLimits::YutMd, Mode::Individual) => "개인전은 2~4명만 할 수 있어요.",
            (PlayerLimits::RulesPage, Mode::Team) => "팀전은 2:2나 3:3으로만 할 수 있어요.",
            (PlayerLimits::RulesPage, Mode::Individual) => "개인전은 2~6명만 할 수 있어요.",
        };
        Err(OptionsError::new("mode", message))
    }

    /// Under the rules page, the fixed keys must hold the preset's values and `turnSeconds`
    /// must be 20, 30 or 60.
    fn check_rules_page(&self) -> Result<(), OptionsError> {
        if let Some((field, _)) = self.rules_page_fixed().iter().find(|(_, same)| !same) {
            return Err(OptionsError::new(
                *field,
                "규칙 안내 페이지의 규칙(ruleset: rulesPage)에서는 바꿀 수 없는 값이에요.",
            ));
        }
        match self.turn_seconds {
            Some(s) if Self::RULES_PAGE_TURN_SECONDS.contains(&s) => Ok(()),
            _ => Err(OptionsError::new(
                "turnSeconds",
                "규칙 페이지 규칙에서는 제한 시간을 20·30·60초 중에서 골라 주세요.",
            )),
        }
    }

    /// The keys `ruleset: rulesPage` fixes, each with whether these options hold the rules
    /// page's value — the one list of fixed keys (the schema reads its keys from here too).
    pub fn rules_page_fixed(&self) -> [(&'static str, bool); 13] {
        let p = YutOptions::preset(Ruleset::RulesPage);
        [
            ("playerLimits", self.player_limits == p.player_limits),
            ("pieces", self.pieces == p.pieces),
            ("stickModel", self.stick_model == p.stick_model),
            ("backdoFromDo", self.backdo_from_do == p.backdo_from_do),
            ("finishRule", self.finish_rule == p.finish_rule),
            ("nakPercent", self.nak_percent == p.nak_percent),
            (
                "backdoCaptureBonus",
                self.backdo_capture_bonus == p.backdo_capture_bonus,
            ),
            (
                "captureBonusOnYutMo",
                self.capture_bonus_on_yut_mo == p.capture_bonus_on_yut_mo,
            ),
            ("ranking", self.ranking == p.ranking),
            (
                "turnCapSeconds",
                self.turn_cap_seconds == p.turn_cap_seconds,
            ),
            ("timeoutPolicy", self.timeout_policy == p.timeout_policy),
            (
                "idleTurnsToAuto",
                self.idle_turns_to_auto == p.idle_turns_to_auto,
            ),
            ("onLeave", self.on_leave == p.on_leave),
        ]
    }

    /// The API (JSON) value of one key of these options.
    pub(crate) fn fixed_json(&self, key: &str) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.remove(key).unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::Value::Null,
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
    use strum::VariantArray;

    #[test]
    fn defaults_are_those_of_the_spec() {
        let o: YutOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(o, YutOptions::default());
        let json = serde_json::to_value(&o).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "ruleset": "yutMd", "mode": "individual", "playerLimits": "yutMd", "pieces": 4,
                "stickModel": "realistic", "backdo": true, "backdoFromDo": "chammeogi",
                "finishRule": "pass", "nakPercent": 0, "backdoCaptureBonus": true,
                "captureBonusOnYutMo": true, "ranking": "first", "turnSeconds": 30,
                "turnCapSeconds": null, "timeoutPolicy": "yutMd", "idleTurnsToAuto": null,
                "endMode": "finish", "onLeave": "concede", "hints": false,
                "chat": "on"
            })
        );
    }

    #[test]
    fn y16_the_rules_page_preset_fills_the_missing_keys_and_keeps_explicit_choices() {
        let o: YutOptions =
            serde_json::from_str(r#"{"ruleset": "rulesPage", "turnSeconds": 30, "mode": "team"}"#)
                .unwrap();
        assert_eq!(
            o,
            YutOptions {
                turn_seconds: Some(30),
                mode: Mode::Team,
                ..YutOptions::preset(Ruleset::RulesPage)
            }
        );
        assert!(o.validate(Some(6)).is_ok());
        assert_eq!(o.validate(Some(8)).unwrap_err().field, "mode");
    }

    #[test]
    fn y16_a_value_the_rules_page_fixes_cannot_be_changed_under_it() {
        let bad = |json: &str| {
            serde_json::from_str::<YutOptions>(json)
                .unwrap()
                .validate(None)
                .unwrap_err()
                .field
        };
        assert_eq!(
            bad(r#"{"ruleset": "rulesPage", "stickModel": "realistic"}"#),
            "stickModel"
        );
        assert_eq!(bad(r#"{"ruleset": "rulesPage", "pieces": 3}"#), "pieces");
        assert_eq!(
            bad(r#"{"ruleset": "rulesPage", "turnSeconds": 15}"#),
            "turnSeconds"
        );
        assert_eq!(
            bad(r#"{"ruleset": "rulesPage", "turnSeconds": null}"#),
            "turnSeconds"
        );
        // The same values are free choices under yut.md.
        let free: YutOptions = serde_json::from_str(
            r#"{"stickModel": "fair", "backdoFromDo": "home", "turnSeconds": 20}"#,
        )
        .unwrap();
        assert!(free.validate(Some(2)).is_ok());
    }

    #[test]
    fn hints_are_off_by_default_and_free_under_every_ruleset() {
        for &ruleset in Ruleset::VARIANTS {
            assert!(!YutOptions::preset(ruleset).hints);
            for hints in [true, false] {
                let json = serde_json::json!({"ruleset": ruleset, "hints": hints});
                let o: YutOptions = serde_json::from_value(json).unwrap();
                assert_eq!(o.hints, hints);
                assert!(o.validate(Some(2)).is_ok(), "{ruleset:?} hints {hints}");
            }
        }
        let page = YutOptions::preset(Ruleset::RulesPage);
        assert!(
            page.rules_page_fixed()
                .iter()
                .all(|(key, _)| *key != "hints")
        );
    }

    #[test]
    fn the_stored_form_round_trips_every_field() {
        let o = YutOptions {
            turn_seconds: None,
            hints: true,
            ..YutOptions::preset(Ruleset::RulesPage)
        };
        let bytes = postcard::to_allocvec(&o).unwrap();
        assert_eq!(postcard::from_bytes::<YutOptions>(&bytes).unwrap(), o);
        let json = serde_json::to_string(&o).unwrap();
        assert_eq!(serde_json::from_str::<YutOptions>(&json).unwrap(), o);
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
        let page = YutOptions {
            player_limits: PlayerLimits::RulesPage,
            ..Default::default()
        };
        for n in 2..=6 {
            assert!(page.validate(Some(n)).is_ok());
        }
        assert_eq!(page.validate(Some(7)).unwrap_err().field, "mode");
        let page_team = YutOptions {
            mode: Mode::Team,
            ..page
        };
        assert!(page_team.validate(Some(4)).is_ok() && page_team.validate(Some(6)).is_ok());
        assert_eq!(page_team.validate(Some(8)).unwrap_err().field, "mode");
        assert_eq!(page_team.max_players(), 6);
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
