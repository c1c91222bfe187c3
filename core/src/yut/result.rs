//! Ranking and the final result (§6, §8.6).

use std::collections::BTreeMap;
use strum::VariantArray;

use serde::Serialize;

use super::board::remaining_distance;
use super::options::{Mode, Ranking};
use super::state::{Side, SideId, YutState};
use super::throw::Throw;
use crate::game::PlayerId;

/// One side's place in the ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "YutStanding")]
pub struct Standing {
    /// 1 is best; ties share a rank and skip the next ones (1, 2, 2, 4: ruling Y12). `null`
    /// for a side left unranked (`ranking: none` ranks only the winners).
    pub rank: Option<u8>,
    /// The side's players, in seat order.
    pub players: Vec<PlayerId>,
    /// The side.
    pub side: SideId,
    /// Its finished pieces.
    pub finished_pieces: u8,
    /// The sum of its pieces' remaining distances (§6).
    pub remaining_distance: u32,
}

/// How many times each result was thrown (JSON keys `do`, …, `backdo`, `nak`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ThrowCounts {
    /// 도.
    #[serde(rename = "do")]
    pub do_: u32,
    /// 개.
    pub gae: u32,
    /// 걸.
    pub geol: u32,
    /// 윷.
    pub yut: u32,
    /// 모.
    pub mo: u32,
    /// 빽도.
    pub backdo: u32,
    /// 낙.
    pub nak: u32,
}

/// The game's statistics (§8.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// Results thrown over the whole game.
    pub throws: ThrowCounts,
    /// Capturing moves per side (ruling Y14); JSON keys are side ids.
    pub captures: BTreeMap<SideId, u32>,
}

/// The result of a finished game (§8.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(rename = "YutResult")]
pub struct YutResult {
    /// Every side, best first.
    pub ranking: Vec<Standing>,
    /// The players ranked first.
    pub winners: Vec<PlayerId>,
    /// One Korean line for the result screen, e.g. "청팀 승리! (4개 모두 남)".
    pub summary: String,
    /// Throw and capture counts.
    pub stats: Stats,
}

impl YutState {
    /// Every side ranked (§6): finished sides by the order they finished; then the sides still
    /// playing by finished pieces (more first), then remaining distance (less first), tied sides
    /// sharing a rank (Y12); then sides that conceded, the earliest concession last (Y10).
    ///
    /// When a timed game ran out of time, the sides still playing with the most finished pieces
    /// tie whatever their distance (a joint win when no side finished). Under `ranking: none`
    /// only the sides ranked first keep a rank.
    pub fn standings(&self) -> Vec<Standing> {
        let unfinished = |side: &Side| (side.pieces.len() - side.finished_pieces()) as u32;
        let leaders = self
            .sides
            .iter()
            .filter(|s| s.in_play())
            .map(unfinished)
            .min();
        let keys: Vec<(u8, u32, u32)> = self
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| match (side.finished_rank, side.conceded) {
                (Some(rank), _) => (0, u32::from(rank), 0),
                (None, Some(order)) => (2, u32::from(u8::MAX - order), 0),
                (None, None) if self.time_up && Some(unfinished(side)) == leaders => {
                    (1, unfinished(side), 0)
                }
                (None, None) => (1, unfinished(side), self.remaining_distance(i as SideId)),
            })
            .collect();
        let ranked_only_first = self.options.ranking == Ranking::None;
        let mut standings: Vec<Standing> = (0..self.sides.len())
            .map(|i| {
                let side = i as SideId;
                let better = keys.iter().filter(|k| **k < keys[i]).count();
                let rank = 1 + better as u8;
                Standing {
                    rank: (rank == 1 || !ranked_only_first).then_some(rank),
                    players: self.members(side).cloned().collect(),
                    side,
                    finished_pieces: self.sides[i].finished_pieces() as u8,
                    remaining_distance: self.remaining_distance(side),
                }
            })
            .collect();
        standings.sort_by_key(|s| (keys[usize::from(s.side)], s.side));
        standings
    }

    /// The sum over a side's pieces of the fewest steps each still needs (§6); a stack counts
    /// once per piece.
    pub fn remaining_distance(&self, side: SideId) -> u32 {
        self.sides[usize::from(side)]
            .pieces
            .iter()
            .map(|p| remaining_distance(p.position, self.options.finish_rule))
            .sum()
    }

    /// The side's name for people: 청팀 / 홍팀, or the player's id in individual games.
    pub fn side_name(&self, side: SideId) -> String {
        match (self.options.mode, side) {
            (Mode::Team, 0) => "청팀".to_owned(),
            (Mode::Team, _) => "홍팀".to_owned(),
            (Mode::Individual, _) => self
                .players
                .get(usize::from(side))
                .map_or_else(String::new, |p| p.to_string()),
        }
    }

    /// The result, once the game is over.
    pub(crate) fn outcome(&self) -> YutResult {
        let ranking = self.standings();
        let winners: Vec<PlayerId> = ranking
            .iter()
            .filter(|s| s.rank == Some(1))
            .flat_map(|s| s.players.iter().cloned())
            .collect();
        let names = || {
            ranking
                .iter()
                .filter(|s| s.rank == Some(1))
                .map(|s| self.side_name(s.side))
                .collect::<Vec<_>>()
        };
        let summary = match ranking.first() {
            Some(first) if self.time_up && self.sides[usize::from(first.side)].in_play() => {
                let names = names();
                let who = if names.len() > 1 {
                    format!("{} 공동 승리", names.join(", "))
                } else {
                    format!("{} 승리", names.join(""))
                };
                format!("시간 종료! {who}! ({}개 완주)", first.finished_pieces)
            }
            Some(first) if self.sides[usize::from(first.side)].finished_rank.is_some() => {
                format!(
                    "{} 승리! ({}개 모두 남)",
                    self.side_name(first.side),
                    first.finished_pieces
                )
            }
            Some(first) => format!("{} 승리! (상대 기권)", self.side_name(first.side)),
            None => String::new(),
        };
        let t = &self.stats.throws;
        let count = |r: Throw| t[r as usize];
        YutResult {
            ranking,
            winners,
            summary,
            stats: Stats {
                throws: ThrowCounts {
                    do_: count(Throw::Do),
                    gae: count(Throw::Gae),
                    geol: count(Throw::Geol),
                    yut: count(Throw::Yut),
                    mo: count(Throw::Mo),
                    backdo: count(Throw::Backdo),
                    nak: t[Throw::VARIANTS.len()],
                },
                captures: (0..self.sides.len())
                    .map(|i| (i as SideId, self.stats.captures[i]))
                    .collect(),
            },
        }
    }
}
