//! Throwing the sticks (§5.1, §8.4): 낙 first, then four sticks one by one, then the result.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::options::YutOptions;
use crate::rng::GameRng;

/// A throw's result: how far it moves a piece and whether it earns another throw.
///
/// JSON: `"do" | "gae" | "geol" | "yut" | "mo" | "backdo"`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "lowercase")]
pub enum Throw {
    /// 도: one flat side up (not the marked stick), 1 forward.
    Do,
    /// 개: two up, 2 forward.
    Gae,
    /// 걸: three up, 3 forward.
    Geol,
    /// 윷: all four up, 4 forward and throw again.
    Yut,
    /// 모: none up, 5 forward and throw again.
    Mo,
    /// 빽도: only the marked stick up, 1 back.
    Backdo,
}

impl Throw {
    /// Steps forward; 빽도 is −1.
    pub const fn steps(self) -> i8 {
        match self {
            Throw::Do => 1,
            Throw::Gae => 2,
            Throw::Geol => 3,
            Throw::Yut => 4,
            Throw::Mo => 5,
            Throw::Backdo => -1,
        }
    }

    /// Whether this result earns another throw (윷 and 모).
    pub const fn throws_again(self) -> bool {
        matches!(self, Throw::Yut | Throw::Mo)
    }

    /// The result of four sticks (`true` = flat side up; index 0 is the marked stick). With
    /// `backdo` off, the marked stick alone up is plain 도.
    pub fn from_sticks(sticks: [bool; 4], backdo: bool) -> Throw {
        match sticks.iter().filter(|&&up| up).count() {
            0 => Throw::Mo,
            1 if backdo && sticks[0] => Throw::Backdo,
            1 => Throw::Do,
            2 => Throw::Gae,
            3 => Throw::Geol,
            _ => Throw::Yut,
        }
    }

    /// The chance of this result when each stick lands flat side up with probability `flat`
    /// (sticks independent, as [`Toss::draw`] throws them): `C(4,k)·p^k·(1−p)^(4−k)` for `k`
    /// sticks up, the marked stick alone up being 빽도 when `backdo` is on (§5.1).
    pub fn probability(self, flat: f64, backdo: bool) -> f64 {
        let (p, q) = (flat, 1.0 - flat);
        let one_up = p * q * q * q;
        match self {
            Throw::Do if backdo => 3.0 * one_up,
            Throw::Do => 4.0 * one_up,
            Throw::Backdo if backdo => one_up,
            Throw::Backdo => 0.0,
            Throw::Gae => 6.0 * p * p * q * q,
            Throw::Geol => 4.0 * p * p * p * q,
            Throw::Yut => p * p * p * p,
            Throw::Mo => q * q * q * q,
        }
    }

    /// The API name (`"do"`, …, `"backdo"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Throw::Do => "do",
            Throw::Gae => "gae",
            Throw::Geol => "geol",
            Throw::Yut => "yut",
            Throw::Mo => "mo",
            Throw::Backdo => "backdo",
        }
    }

    /// The Korean name players use (`도`, …, `빽도`).
    pub const fn korean(self) -> &'static str {
        match self {
            Throw::Do => "도",
            Throw::Gae => "개",
            Throw::Geol => "걸",
            Throw::Yut => "윷",
            Throw::Mo => "모",
            Throw::Backdo => "빽도",
        }
    }
}

impl fmt::Display for Throw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.korean())
    }
}

/// What one throw produced: 낙 (no result, no sticks drawn — ruling Y7) or four sticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Toss {
    /// A stick fell off the mat: the throw is void.
    Nak,
    /// The sticks landed.
    Landed {
        /// Each stick, `true` = flat side up; index 0 is the marked (빽도) stick.
        sticks: [bool; 4],
        /// What they read as.
        result: Throw,
    },
}

impl Toss {
    /// Throws the sticks: when `nakPercent > 0`, first `rng.unit() < nak/100` decides 낙 (and
    /// nothing else is drawn); otherwise each stick in turn lands flat side up when
    /// `rng.unit() < p` (§8.4), so the animation and the probabilities agree stick by stick.
    pub fn draw(rng: &mut GameRng, options: &YutOptions) -> Toss {
        if options.nak_percent > 0 && rng.unit() < options.nak_probability() {
            return Toss::Nak;
        }
        let p = options.stick_model.flat_probability();
        let sticks = std::array::from_fn(|_| rng.unit() < p);
        Toss::Landed {
            sticks,
            result: Throw::from_sticks(sticks, options.backdo),
        }
    }

    /// The result, or `None` for 낙.
    pub const fn result(self) -> Option<Throw> {
        match self {
            Toss::Nak => None,
            Toss::Landed { result, .. } => Some(result),
        }
    }
}

/// The house rules that depend on the throw: here, beside the throws, so that the options
/// need not know them (and the two modules do not import each other).
impl YutOptions {
    /// Whether a capture made with `throw` earns the extra throw.
    pub fn capture_bonus(&self, throw: Throw) -> bool {
        match throw {
            Throw::Backdo => self.backdo_capture_bonus,
            Throw::Yut | Throw::Mo => self.capture_bonus_on_yut_mo,
            Throw::Do | Throw::Gae | Throw::Geol => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn probabilities_are_those_of_the_spec_table_and_add_up_to_one() {
        let table = [
            (0.6, [0.1152, 0.3456, 0.3456, 0.1296, 0.0256, 0.0384]),
            (0.5, [0.1875, 0.375, 0.25, 0.0625, 0.0625, 0.0625]),
        ];
        for (p, odds) in table {
            for (&throw, want) in Throw::VARIANTS.iter().zip(odds) {
                assert!(
                    (throw.probability(p, true) - want).abs() < 1e-9,
                    "{throw} {p}"
                );
            }
            for backdo in [true, false] {
                let sum: f64 = Throw::VARIANTS
                    .iter()
                    .map(|t| t.probability(p, backdo))
                    .sum();
                assert!((sum - 1.0).abs() < 1e-12);
            }
            assert_eq!(Throw::Backdo.probability(p, false), 0.0);
        }
    }

    #[test]
    fn sticks_read_as_the_table_says() {
        let t = |s, b| Throw::from_sticks(s, b);
        assert_eq!(t([false; 4], true), Throw::Mo);
        assert_eq!(t([true; 4], true), Throw::Yut);
        assert_eq!(t([true, false, false, false], true), Throw::Backdo);
        assert_eq!(t([true, false, false, false], false), Throw::Do);
        assert_eq!(t([false, false, true, false], true), Throw::Do);
        assert_eq!(t([true, true, false, false], true), Throw::Gae);
        assert_eq!(t([false, true, true, true], true), Throw::Geol);
    }

    #[test]
    fn y7_nak_draws_no_sticks() {
        let options = YutOptions {
            nak_percent: 10,
            ..Default::default()
        };
        let mut rng = GameRng::seed_from_u64(3);
        let mut naks = 0;
        for _ in 0..1000 {
            let before = rng.clone();
            if Toss::draw(&mut rng, &options) == Toss::Nak {
                naks += 1;
                // Exactly one number was drawn: the 낙 check.
                let mut replay = before;
                replay.unit();
                assert_eq!(replay, rng);
            }
        }
        assert!((50..150).contains(&naks), "{naks} 낙 in 1000 throws at 10%");
    }

    #[test]
    fn no_nak_check_is_drawn_when_nak_is_off() {
        let mut rng = GameRng::seed_from_u64(4);
        let mut expected = rng.clone();
        Toss::draw(&mut rng, &YutOptions::default());
        for _ in 0..4 {
            expected.unit();
        }
        assert_eq!(rng, expected);
    }
}
