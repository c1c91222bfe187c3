//! The end of a game (§6.5, §8.6).

use serde::{Deserialize, Serialize};
use strum::VariantArray;

use super::color::{ByColor, Color};
use super::scoring::Score;
use crate::game::PlayerId;

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum EndReason {
    /// Counted, one side ahead.
    Score,
    /// Counted, equal (integer komi only).
    Jigo,
    /// A player resigned (불계).
    Resign,
    /// A player's time ran out.
    TimeLoss,
    /// Both players agreed to a draw.
    DrawAgreed,
    /// `korean` ko rule: the same situation appeared a third time (B3).
    Repetition,
}

/// One player's place in the final ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "BadukRankEntry")]
pub struct RankEntry {
    /// The player.
    pub player_id: PlayerId,
    /// 1 for the winner (both on a draw), 2 for the loser.
    pub rank: u8,
}

/// The result of a finished game (§8.6).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadukResult {
    /// Black first, then white; both rank 1 on a draw.
    pub ranking: Vec<RankEntry>,
    /// The winning side, `None` on a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
    /// The count, when the game was counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// One Korean line: "흑 2집 반 승", "백 불계승", "흑 시간승", …
    pub summary_ko: String,
}

impl BadukResult {
    /// The result for `players` ended by `reason` with `winner` (and the count, if counted).
    pub fn new(
        players: &ByColor<PlayerId>,
        winner: Option<Color>,
        reason: EndReason,
        score: Option<Score>,
    ) -> Self {
        let summary_ko = match (reason, winner, &score) {
            (EndReason::Score | EndReason::Jigo, _, Some(score)) => score.summary_ko(),
            (EndReason::Resign, Some(w), _) => format!("{} 불계승", w.korean()),
            (EndReason::TimeLoss, Some(w), _) => format!("{} 시간승", w.korean()),
            (EndReason::DrawAgreed, ..) => "무승부 (합의)".to_owned(),
            (EndReason::Repetition, ..) => "무승부 (동형 반복)".to_owned(),
            _ => "무승부".to_owned(),
        };
        let rank = |c: Color| match winner {
            Some(w) if w != c => 2,
            _ => 1,
        };
        BadukResult {
            ranking: Color::VARIANTS
                .iter()
                .map(|&c| RankEntry {
                    player_id: players.get(c).clone(),
                    rank: rank(c),
                })
                .collect(),
            winner,
            reason,
            score,
            summary_ko,
        }
    }
}
