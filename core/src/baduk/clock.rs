//! Game clocks (§8.2, §8.5): byoyomi, Fischer, correspondence (days per move), or none (an idle
//! limit).

use serde::{Deserialize, Serialize};

use super::color::{ByColor, Color};
use super::options::{BadukOptions, ClockKind};
use crate::game::Millis;

/// Both players' clocks. Time only runs for the player to move while playing; the scoring
/// phase stops it (it has its own deadline).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Clock {
    /// Main time left (Fischer: the whole bank).
    pub main_ms: ByColor<u64>,
    /// Byoyomi periods left.
    pub periods_left: ByColor<u8>,
    /// Whether the player has entered byoyomi.
    pub in_byoyomi: ByColor<bool>,
    /// When the current turn began.
    pub turn_started_at: Millis,
}

/// The player's time ran out before the action arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expired;

impl Clock {
    /// Fresh clocks for `options`, the first turn starting at `now`.
    pub fn new(options: &BadukOptions, now: Millis) -> Self {
        let periods = u8::try_from(options.time_control.periods).unwrap_or(u8::MAX);
        // Correspondence: `mainMs` is the time of one move, given afresh at every turn.
        let main = if options.is_correspondence() {
            options.per_move_ms()
        } else {
            options.main_ms()
        };
        Clock {
            main_ms: ByColor::both(main),
            periods_left: ByColor::both(periods),
            in_byoyomi: ByColor::both(false),
            turn_started_at: now,
        }
    }

    /// The last instant `color` (to move) may still act; after it, the turn is lost on time.
    pub fn deadline(&self, color: Color, options: &BadukOptions) -> Millis {
        let start = self.turn_started_at;
        match options.time_control.kind {
            ClockKind::Byoyomi => {
                // Using up the current period starts the next one, so the periods add up.
                let periods = u64::from(*self.periods_left.get(color));
                start + self.main_ms.get(color) + periods * options.period_ms()
            }
            ClockKind::Fischer => start + self.main_ms.get(color),
            ClockKind::Correspondence => start + options.per_move_ms(),
            ClockKind::None => start + u64::from(options.idle_limit_sec) * 1000,
        }
    }

    /// Charges `color` for a move made at `now` and starts the opponent's turn. On `Err` the
    /// clock is unchanged: the move arrived after the last period (or bank, or idle limit).
    pub fn charge(
        &mut self,
        color: Color,
        options: &BadukOptions,
        now: Millis,
    ) -> Result<(), Expired> {
        let elapsed = now.saturating_sub(self.turn_started_at);
        match options.time_control.kind {
            ClockKind::Byoyomi => {
                let main = *self.main_ms.get(color);
                if elapsed <= main {
                    *self.main_ms.get_mut(color) = main - elapsed;
                } else {
                    let over = elapsed - main;
                    let period = options.period_ms().max(1);
                    // A move inside a period keeps it; each period overrun is used up.
                    let used = (over - 1) / period;
                    let left = u64::from(*self.periods_left.get(color));
                    if used >= left {
                        return Err(Expired);
                    }
                    *self.main_ms.get_mut(color) = 0;
                    *self.in_byoyomi.get_mut(color) = true;
                    *self.periods_left.get_mut(color) = (left - used) as u8;
                }
            }
            ClockKind::Fischer => {
                let bank = *self.main_ms.get(color);
                if elapsed > bank {
                    return Err(Expired);
                }
                let inc = u64::from(options.time_control.inc_sec) * 1000;
                *self.main_ms.get_mut(color) = bank - elapsed + inc;
            }
            ClockKind::Correspondence => {
                // The days do not add up: every turn starts with the whole allowance again.
                if elapsed > options.per_move_ms() {
                    return Err(Expired);
                }
                *self.main_ms.get_mut(color) = options.per_move_ms();
            }
            ClockKind::None => {
                if elapsed > u64::from(options.idle_limit_sec) * 1000 {
                    return Err(Expired);
                }
            }
        }
        self.turn_started_at = now;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byoyomi() -> BadukOptions {
        serde_json::from_str(r#"{"boardSize": 9, "timeControl": {"mainSec": 60}}"#).unwrap()
    }

    #[test]
    fn main_time_is_spent_before_the_periods() {
        let o = byoyomi();
        let mut c = Clock::new(&o, 0);
        c.charge(Color::Black, &o, 10_000).unwrap();
        assert_eq!(c.main_ms.black, 50_000);
        assert_eq!(c.turn_started_at, 10_000);
        assert_eq!(c.deadline(Color::White, &o), 10_000 + 60_000 + 90_000);
    }

    #[test]
    fn fischer_adds_the_increment() {
        let o: BadukOptions =
            serde_json::from_str(r#"{"timeControl": {"kind": "fischer", "mainSec": 60}}"#).unwrap();
        let mut c = Clock::new(&o, 0);
        c.charge(Color::Black, &o, 5_000).unwrap();
        assert_eq!(c.main_ms.black, 65_000);
        assert_eq!(c.charge(Color::White, &o, 5_000 + 60_001), Err(Expired));
    }

    #[test]
    fn correspondence_gives_each_move_its_days_afresh() {
        use crate::baduk::options::DAY_MS;
        let o: BadukOptions = serde_json::from_str(
            r#"{"timeControl": {"kind": "correspondence", "daysPerMove": 2}}"#,
        )
        .unwrap();
        let mut c = Clock::new(&o, 0);
        assert_eq!(c.main_ms, ByColor::both(2 * DAY_MS));
        assert_eq!(c.deadline(Color::Black, &o), 2 * DAY_MS);
        // Black takes almost two days; white still gets two whole days.
        c.charge(Color::Black, &o, 2 * DAY_MS).unwrap();
        assert_eq!(c.main_ms.black, 2 * DAY_MS);
        assert_eq!(c.deadline(Color::White, &o), 4 * DAY_MS);
        assert_eq!(c.charge(Color::White, &o, 4 * DAY_MS + 1), Err(Expired));
        assert_eq!(c.turn_started_at, 2 * DAY_MS, "unchanged on Err");
    }
}
