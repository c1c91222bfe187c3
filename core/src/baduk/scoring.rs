//! Counting (§6) and the scoring phase's helpers (§5.5, §5.6): dead-stone and seki suggestions,
//! the groups that a tap toggles, territory/area scores and the ownership map.
//!
//! Everything here is a pure function of a [`Board`] and the marks; nothing is stored.

use serde::Serialize;

use super::board::Board;
use super::color::{ByColor, Color};
use super::options::{BadukOptions, ScoringMethod};

/// Empty regions of a board: connected empty points and which colours border them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The region's points (ascending).
    pub points: Vec<usize>,
    /// Whether a black stone borders the region.
    pub black: bool,
    /// Whether a white stone borders the region.
    pub white: bool,
}

impl Region {
    /// The single colour bordering the region, if exactly one does.
    pub fn owner(&self) -> Option<Color> {
        match (self.black, self.white) {
            (true, false) => Some(Color::Black),
            (false, true) => Some(Color::White),
            _ => None,
        }
    }

    /// The region's representative: its smallest index (how seki marks name a region).
    pub fn representative(&self) -> usize {
        self.points.first().copied().unwrap_or(0)
    }
}

/// All empty regions of `board`, and for each point the number of its region (`usize::MAX` on
/// stones).
pub fn regions(board: &Board) -> (Vec<Region>, Vec<usize>) {
    let mut region_of = vec![usize::MAX; board.len()];
    let mut regions = Vec::new();
    for start in 0..board.len() {
        if board.get(start).is_some() || region_of[start] != usize::MAX {
            continue;
        }
        let id = regions.len();
        let mut region = Region {
            points: vec![start],
            black: false,
            white: false,
        };
        region_of[start] = id;
        let mut next = 0;
        while next < region.points.len() {
            let p = region.points[next];
            next += 1;
            for n in board.neighbors(p) {
                match board.get(n) {
                    None if region_of[n] == usize::MAX => {
                        region_of[n] = id;
                        region.points.push(n);
                    }
                    None => {}
                    Some(Color::Black) => region.black = true,
                    Some(Color::White) => region.white = true,
                }
            }
        }
        region.points.sort_unstable();
        regions.push(region);
    }
    (regions, region_of)
}

/// `board` with the stones in `dead` lifted: the board seki regions are read on, by the
/// suggestion, the toggle and the count alike.
pub fn lifted(board: &Board, dead: &[usize]) -> Board {
    let mut alive = board.clone();
    for &d in dead {
        alive.set(d, None);
    }
    alive
}

/// The representative of the seki region a tap at `index` names (§5.5.2): the smallest index of
/// its empty region once the `dead` stones are lifted — how [`suggest_seki`] names the regions
/// it suggests. `None` on a stone that is not marked dead.
pub fn seki_representative(board: &Board, dead: &[usize], index: usize) -> Option<usize> {
    let alive = lifted(board, dead);
    if alive.get(index).is_some() {
        return None;
    }
    let (regions, region_of) = regions(&alive);
    Some(regions[region_of[index]].representative())
}

/// The seki marks `seki` (representatives under the dead marks `before`) renamed for the dead
/// marks `after`: each marked region keeps its mark on whatever of it is still empty (a region
/// that merged with another, or lost a lifted stone, is named by its new smallest index), and a
/// mark whose region is all stones now is dropped. Ascending, without duplicates.
pub fn reanchor_seki(
    board: &Board,
    before: &[usize],
    after: &[usize],
    seki: &[usize],
) -> Vec<usize> {
    let (old_regions, old_of) = regions(&lifted(board, before));
    let now = lifted(board, after);
    let (new_regions, new_of) = regions(&now);
    let mut out: Vec<usize> = seki
        .iter()
        .filter(|&&rep| old_of[rep] != usize::MAX)
        .filter_map(|&rep| {
            old_regions[old_of[rep]]
                .points
                .iter()
                .find(|&&p| now.get(p).is_none())
                .map(|&p| new_regions[new_of[p]].representative())
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The "group" a tap on the stone at `index` toggles (§5.5.2): stones of its colour connected
/// through its own stones, empty points and opponent stones marked dead. Empty when there is no
/// stone at `index`.
pub fn group(board: &Board, index: usize, dead: &[usize]) -> Vec<usize> {
    let Some(color) = board.get(index) else {
        return Vec::new();
    };
    let mut seen = vec![false; board.len()];
    let mut stack = vec![index];
    seen[index] = true;
    let mut stones = Vec::new();
    while let Some(p) = stack.pop() {
        if board.get(p) == Some(color) {
            stones.push(p);
        }
        for n in board.neighbors(p) {
            if seen[n] {
                continue;
            }
            let passable = match board.get(n) {
                None => true,
                Some(c) if c == color => true,
                Some(_) => dead.contains(&n),
            };
            if passable {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    stones.sort_unstable();
    stones
}

/// Eye regions at least this large count as a live group's own area (it can make two eyes).
const BIG_EYE: usize = 7;

/// The suggested dead stones on entering the scoring phase (§5.5 heuristic), ascending:
/// (a) chains in atari that the opponent captures at their liberty without a recapture, and
/// (b) chains with fewer than two eyes inside the opponent's enclosure, unless an adjacent
/// opponent chain has no more liberties than they do (a race or a seki is not decided here).
///
/// For (b), an opponent stone sitting in a region would spoil that region as an eye, so each
/// candidate is judged again with the *smaller* opponent candidates lifted: a wall around
/// territory with an intruder in it keeps its territory, and the intruder stays dead.
pub fn suggest_dead(board: &Board) -> Vec<usize> {
    let chains = board.chains();
    let mut dead = vec![false; board.len()];
    for chain in &chains {
        if chain.liberties.len() == 1 && captured_for_good(board, chain.color, chain.liberties[0]) {
            for &s in &chain.stones {
                dead[s] = true;
            }
        }
    }
    let chain_of = chain_index(board, &chains);
    let (regions, region_of) = regions(board);
    let candidates: Vec<&super::board::Chain> = chains
        .iter()
        .filter(|chain| !dead[chain.stones[0]])
        .filter(|chain| {
            let (eyes, big) = eyes_in_enclosure(board, chain.stones[0], &regions, &region_of);
            let racing = chain.stones.iter().any(|&s| {
                board.neighbors(s).any(|n| {
                    board.get(n) == Some(chain.color.opponent())
                        && chains[chain_of[n]].liberties.len() <= chain.liberties.len()
                })
            });
            eyes < 2 && !big && !racing
        })
        .collect();
    for chain in &candidates {
        let mut lifted = board.clone();
        for other in &candidates {
            if other.color != chain.color && other.stones.len() < chain.stones.len() {
                for &s in &other.stones {
                    lifted.set(s, None);
                }
            }
        }
        let (regions, region_of) = self::regions(&lifted);
        let (eyes, big) = eyes_in_enclosure(&lifted, chain.stones[0], &regions, &region_of);
        if eyes < 2 && !big {
            for &s in &chain.stones {
                dead[s] = true;
            }
        }
    }
    (0..board.len()).filter(|&i| dead[i]).collect()
}

/// Whether the opponent of `color`, playing at `liberty`, captures and cannot be retaken at once.
fn captured_for_good(board: &Board, color: Color, liberty: usize) -> bool {
    let mut after = board.clone();
    let point = super::Point::from_index(liberty, board.size());
    if after.play(color.opponent(), point).is_err() {
        return false;
    }
    let Some(capturer) = after.chain(liberty) else {
        return false;
    };
    match capturer.liberties.as_slice() {
        [only] => {
            let retake = super::Point::from_index(*only, board.size());
            !matches!(after.play(color, retake), Ok(taken) if taken.contains(&liberty))
        }
        _ => true,
    }
}

/// For each stone, the index of its chain in `chains`.
fn chain_index(board: &Board, chains: &[super::board::Chain]) -> Vec<usize> {
    let mut of = vec![usize::MAX; board.len()];
    for (i, chain) in chains.iter().enumerate() {
        for &s in &chain.stones {
            of[s] = i;
        }
    }
    of
}

/// The eyes of the enclosure around `stone` (its colour's stones and empty points reachable
/// without crossing an opponent stone): the number of regions bordered by that colour alone,
/// and whether one of them is big.
fn eyes_in_enclosure(
    board: &Board,
    stone: usize,
    regions: &[Region],
    region_of: &[usize],
) -> (usize, bool) {
    let Some(color) = board.get(stone) else {
        return (0, false);
    };
    let mut seen = vec![false; board.len()];
    let mut stack = vec![stone];
    seen[stone] = true;
    let mut eye_regions: Vec<usize> = Vec::new();
    while let Some(p) = stack.pop() {
        if board.get(p).is_none() {
            let r = region_of[p];
            if regions[r].owner() == Some(color) && !eye_regions.contains(&r) {
                eye_regions.push(r);
            }
        }
        for n in board.neighbors(p) {
            if !seen[n] && board.get(n) != Some(color.opponent()) {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    let big = eye_regions
        .iter()
        .any(|&r| regions[r].points.len() >= BIG_EYE);
    (eye_regions.len(), big)
}

/// The suggested seki regions (§5.6 estimate) once `dead` is removed, as representatives.
///
/// A region R bordered only by colour C is suggested when a C chain bordering it has liberties
/// outside R, all of them dame touching a live opponent chain, and — narrowing the spec's
/// estimate so that ordinary groups next to unfilled dame are not flagged — R has at most two
/// points, the chain borders no other such region and has at most three liberties.
pub fn suggest_seki(board: &Board, dead: &[usize]) -> Vec<usize> {
    let alive = lifted(board, dead);
    let (regions, region_of) = regions(&alive);
    let mut seki = Vec::new();
    for chain in alive.chains() {
        let own: Vec<usize> = {
            let mut own: Vec<usize> = chain
                .liberties
                .iter()
                .map(|&l| region_of[l])
                .filter(|&r| regions[r].owner() == Some(chain.color))
                .collect();
            own.sort_unstable();
            own.dedup();
            own
        };
        let [r] = own.as_slice() else {
            continue;
        };
        let outside: Vec<usize> = chain
            .liberties
            .iter()
            .copied()
            .filter(|&l| region_of[l] != *r)
            .collect();
        let all_dame = outside.iter().all(|&l| {
            let region = &regions[region_of[l]];
            region.black && region.white
        });
        if !outside.is_empty()
            && all_dame
            && regions[*r].points.len() <= 2
            && chain.liberties.len() <= 3
        {
            seki.push(regions[*r].representative());
        }
    }
    seki.sort_unstable();
    seki.dedup();
    seki
}

/// Black's side of a score (§8.6).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlackScore {
    /// Points of territory (`area`: including seki eyes).
    pub territory: u32,
    /// Stones captured during play plus white stones marked dead.
    pub captures: u32,
    /// Black stones left on the board after removing the dead.
    pub stones: u32,
    /// The total by the chosen method.
    pub total: f64,
}

/// White's side of a score (§8.6).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhiteScore {
    /// Points of territory (`area`: including seki eyes).
    pub territory: u32,
    /// Stones captured during play plus black stones marked dead.
    pub captures: u32,
    /// White stones left on the board after removing the dead.
    pub stones: u32,
    /// Komi.
    pub komi: f64,
    /// Handicap compensation (B5).
    pub handicap_comp: u32,
    /// The total by the chosen method.
    pub total: f64,
}

/// A counted board (§6, §8.6 `score`).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    /// The counting method.
    pub method: ScoringMethod,
    /// Black's points.
    pub black: BlackScore,
    /// White's points.
    pub white: WhiteScore,
    /// The winner's lead (0 on a tie).
    pub margin: f64,
    /// Who each point belongs to: 0 nobody, 1 black, 2 white (dead stones count for the side
    /// that surrounds them).
    pub ownership: Vec<u8>,
}

impl Score {
    /// The side ahead, `None` on a tie (possible with integer komi only).
    pub fn winner(&self) -> Option<Color> {
        if self.black.total > self.white.total {
            Some(Color::Black)
        } else if self.white.total > self.black.total {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The Korean summary (§6.5): "흑 2집 반 승", "백 1.5점 승", "빅 (무승부)".
    pub fn summary_ko(&self) -> String {
        let Some(winner) = self.winner() else {
            return "빅 (무승부)".to_owned();
        };
        let halves = (self.margin * 2.0).round() as u64;
        let (whole, half) = (halves / 2, halves % 2 == 1);
        let margin = match self.method {
            ScoringMethod::Territory => match (whole, half) {
                (0, _) => "반집".to_owned(),
                (n, true) => format!("{n}집 반"),
                (n, false) => format!("{n}집"),
            },
            ScoringMethod::Area if half => format!("{whole}.5점"),
            ScoringMethod::Area => format!("{whole}점"),
        };
        format!("{} {margin} 승", winner.korean())
    }
}

/// Counts `board` with `dead` stones removed and `seki` regions (by representative) marked, for
/// the options' method, komi and handicap compensation (§6.1–§6.3). `captures` are the stones
/// each side took during play.
pub fn score(
    board: &Board,
    dead: &[usize],
    seki: &[usize],
    captures: ByColor<u32>,
    options: &BadukOptions,
) -> Score {
    let mut alive = board.clone();
    let mut captures = captures;
    for &d in dead {
        if let Some(stone) = alive.get(d) {
            *captures.get_mut(stone.opponent()) += 1;
            alive.set(d, None);
        }
    }
    let method = options.scoring;
    let (regions, _) = regions(&alive);
    let mut ownership: Vec<u8> = alive
        .cells()
        .iter()
        .map(|c| c.map_or(0, Color::cell))
        .collect();
    let mut territory = ByColor::new(0u32, 0u32);
    for region in &regions {
        let Some(owner) = region.owner() else {
            continue;
        };
        let is_seki = region.points.iter().any(|p| seki.contains(p));
        // Seki eyes are nobody's territory in Korean/Japanese counting, the owner's in area.
        if is_seki && method == ScoringMethod::Territory {
            continue;
        }
        *territory.get_mut(owner) += region.points.len() as u32;
        for &p in &region.points {
            ownership[p] = owner.cell();
        }
    }
    let stones = ByColor::new(
        alive.count(Color::Black) as u32,
        alive.count(Color::White) as u32,
    );
    let komi_halves = i64::from(options.komi_halves());
    let comp = options.handicap_comp();
    let (black_halves, white_halves) = match method {
        ScoringMethod::Territory => (
            2 * i64::from(territory.black + captures.black),
            2 * i64::from(territory.white + captures.white) + komi_halves,
        ),
        ScoringMethod::Area => (
            2 * i64::from(territory.black + stones.black),
            2 * i64::from(territory.white + stones.white + comp) + komi_halves,
        ),
    };
    let half = |h: i64| h as f64 / 2.0;
    Score {
        method,
        black: BlackScore {
            territory: territory.black,
            captures: captures.black,
            stones: stones.black,
            total: half(black_halves),
        },
        white: WhiteScore {
            territory: territory.white,
            captures: captures.white,
            stones: stones.white,
            komi: half(komi_halves),
            handicap_comp: comp,
            total: half(white_halves),
        },
        margin: half((black_halves - white_halves).abs()),
        ownership,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine(json: &str) -> BadukOptions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn summaries_use_jip_for_territory_and_jeom_for_area() {
        let b = Board::from_rows(&["X.O", "X.O", "X.O"]).unwrap();
        let o = nine(r#"{"komi": 0.5}"#);
        let s = score(&b, &[], &[], ByColor::new(3, 0), &o);
        assert_eq!(s.summary_ko(), "흑 2집 반 승");
        let o = nine(r#"{"komi": 1, "scoring": "area"}"#);
        let s = score(&b, &[], &[], ByColor::default(), &o);
        assert_eq!(s.summary_ko(), "백 1점 승");
        let o = nine(r#"{"komi": 0}"#);
        let s = score(&b, &[], &[], ByColor::default(), &o);
        assert_eq!((s.winner(), s.summary_ko().as_str()), (None, "빅 (무승부)"));
    }

    #[test]
    fn a_lone_stone_in_enemy_territory_is_suggested_dead_and_the_wall_lives() {
        let b = Board::from_rows(&[
            ".......", //
            ".X.....", ".......", "OOOOOOO", ".......", "XXXXXXX", ".......",
        ])
        .unwrap();
        assert_eq!(suggest_dead(&b), vec![8]);
    }

    #[test]
    fn a_chain_in_atari_is_dead_unless_it_can_take_back_at_once() {
        // White (1,1) has one liberty, (2,1); black there captures and keeps two liberties.
        let b = Board::from_rows(&[
            ".X...", //
            "XO.X.", ".X...", ".....", ".....",
        ])
        .unwrap();
        assert!(suggest_dead(&b).contains(&6));
        // A ko: black's capturing stone could be retaken at once, so nothing is suggested.
        let ko = Board::from_rows(&[
            ".XO..", //
            "XO.O.", ".XO..", ".....", ".....",
        ])
        .unwrap();
        let dead = suggest_dead(&ko);
        assert!(!dead.contains(&6), "{dead:?}");
    }

    #[test]
    fn toggling_follows_empty_points_and_dead_opponents() {
        let b = Board::from_rows(&["O.O", "XXX", "..."]).unwrap();
        assert_eq!(group(&b, 0, &[]), vec![0, 2]);
        assert_eq!(group(&b, 3, &[]), vec![3, 4, 5]);
    }
}
