//! Computer players: the host fills an empty seat with `addBot`, and a game may hand a
//! departed player's seat to one (윷놀이 `onLeave: bot`). Both are played the same way.
//!
//! A computer player's move is one more timeout of the room: it is due a short think time after
//! the room last changed ([`BOT_THINK_MIN_MS`]..=[`BOT_THINK_MAX_MS`], fixed by the room's id
//! and version, so every server computes the same moment), and it shows as the room's
//! `deadlineAt`. Unlike a person's timeout, a request's catch-up never makes it
//! ([`Room::catch_up`](super::Room::catch_up) stops before it): the move is a search, and one
//! thinker per room makes it ([`Room::play_out`](super::Room::play_out)) and saves it through the
//! one conditional save. The choice is a pure function of the stored room, its generator
//! included, so a search redone after a lost race chooses the same move, and only one save lands.
//!
//! A thinker that would rather not wait for the move's due time keeps its choice with the room
//! as a **plan** ([`BotChoice::plan`], opaque bytes the store keeps beside the room for that
//! version) and leaves. The plan then lands as a person's timeout does, in the catch-up of
//! whatever loads the room once it is due ([`Room::catch_up_planned`]): never searched there,
//! only played, and only while its turn is still the room's next one.

use serde::{Deserialize, Serialize};

use super::{
    BotTurn, CaughtUp, Fired, LobbyEvent, Member, Presence, Room, RoomError, RoomEvent, TokenHash,
    digest64,
};
use crate::game::BotError;
use crate::game::{Actor, Game, Millis, PlayerId};
use crate::rng::GameRng;

/// The shortest think time of a computer player (ms).
pub const BOT_THINK_MIN_MS: Millis = 800;
/// The longest think time of a computer player (ms).
pub const BOT_THINK_MAX_MS: Millis = 2_000;

/// What a due timeout is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Due {
    /// A person's deadline (or grace period) passed: the game's timeout action.
    Timeout,
    /// A computer player of this level moves.
    Bot(u8),
}

/// A computer player's choice for one turn ([`Room::choose`]), to be played on the room it was
/// made for ([`Room::play_choice`]). Made on one thread and played on another: the search
/// never runs where a request waits.
#[derive(Debug)]
#[derive_where::derive_where(Clone)]
pub struct BotChoice<G: Game> {
    turn: BotTurn,
    action: Result<G::Action, BotError>,
    /// The room's generator after the choice drew from it.
    rng: GameRng,
}

impl<G: Game> BotChoice<G> {
    /// The turn it was made for.
    pub fn turn(&self) -> &BotTurn {
        &self.turn
    }

    /// The choice as a kept plan: opaque bytes (JSON) to keep with the room at the turn's
    /// version, read back by [`Room::kept_plan`]. `took_us` (how long the search took, µs) rides
    /// along for the metrics of whoever lands it.
    pub fn plan(&self, took_us: u64) -> Vec<u8> {
        let form = PlanForm {
            v: self.turn.version,
            at: self.turn.at,
            p: self.turn.player.clone(),
            l: self.turn.level,
            a: self.action.as_ref().ok().cloned(),
            w: u64::try_from(self.rng.word_pos()).unwrap_or(u64::MAX),
            t: took_us,
        };
        // Plain data into a Vec: cannot fail; an empty plan would be refused when read.
        serde_json::to_vec(&form).unwrap_or_default()
    }
}

/// A kept plan's stored form ([`BotChoice::plan`]): the turn, the action (`None`: the engine
/// failed, and the fallback is played), the generator's position after the choice drew from
/// it, and the search time.
#[derive(Serialize, Deserialize)]
struct PlanForm<A> {
    v: u64,
    at: Millis,
    p: PlayerId,
    l: u8,
    a: Option<A>,
    w: u64,
    t: u64,
}

/// A kept plan played by a catch-up ([`Room::catch_up_planned`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanLanded {
    /// The computer player's level.
    pub level: u8,
    /// The engine had failed (or the rules refused its move) and the fallback was played.
    pub fallback: bool,
    /// How long its search took, µs (as the thinker that kept it measured).
    pub took_us: u64,
}

/// The name of the next computer player in a room whose seats are named `taken`: 컴퓨터 1,
/// 컴퓨터 2, … (the smallest number nobody in the room is called by, names compared folded as
/// joins compare them: a `컴퓨터１` seated takes 1).
pub fn bot_name<'a>(taken: impl Iterator<Item = &'a str> + Clone) -> String {
    let taken: Vec<String> = taken.map(super::name::fold).collect();
    (1..)
        .map(|n| format!("{} {n}", super::name::BOT_NAME_PREFIX))
        .find(|name| !taken.contains(&super::name::fold(name)))
        .unwrap_or_default()
}

impl<G: Game> Room<G> {
    /// The level of the computer player in `player`'s seat, if one plays it: one the host
    /// added, or one the game put there when the player left (level 1, the spec's timeout
    /// policy).
    pub fn bot_level(&self, state: &G::State, player: &PlayerId) -> Option<u8> {
        let member = self.member(player)?;
        member.bot.or_else(|| G::is_bot(state, player).then_some(1))
    }

    /// How long a computer player thinks before the move that follows the room's current
    /// version: fixed by the room's id and version, so every server computes the same due time.
    /// No think time when no person is left in the room to watch (everyone left a 윷놀이 game
    /// that bots play on): the game plays itself out at once, as it always did.
    pub(super) fn think_ms(&self) -> Millis {
        let watched = self.seats.iter().any(|m| m.bot.is_none() && !m.left);
        if !watched {
            return 0;
        }
        let span = BOT_THINK_MAX_MS - BOT_THINK_MIN_MS + 1;
        let roll = digest64(&[b"think", self.id.as_bytes(), &self.version.to_le_bytes()]);
        BOT_THINK_MIN_MS + roll % span
    }

    /// The computer players that have something to do, each with when it is due.
    pub(super) fn bots_due<'a>(
        &'a self,
        state: &'a G::State,
    ) -> impl Iterator<Item = (Millis, PlayerId, Due)> + 'a {
        let at = self.updated_at + self.think_ms();
        self.seats.iter().filter_map(move |m| {
            let level = self.bot_level(state, &m.id)?;
            G::bot_awaited(state, &m.id).then(|| (at, m.id.clone(), Due::Bot(level)))
        })
    }

    /// What the computer player of `turn` chooses: the engine's search, the expensive step, on
    /// copies (the room is not changed). A pure function of the room at `turn.version`.
    pub fn choose(&self, turn: &BotTurn) -> Option<BotChoice<G>> {
        let state = self.game.as_ref()?;
        let mut rng = self.rng.clone();
        let action = G::bot_action(state, &turn.player, turn.level, &mut rng);
        Some(BotChoice {
            turn: turn.clone(),
            action,
            rng,
        })
    }

    /// Plays `choice` if its turn is still the room's next one ([`Room::bot_turn`]: same
    /// player, level, due time and version): the choice itself, or — if the engine failed or
    /// the rules refused it — the game's fallback (바둑 resigns), so an engine error never
    /// stalls the room. `None` (nothing changed) if the turn is not the room's or neither can be
    /// applied; else the step, which says whether it was the fallback.
    pub fn play_choice(
        &mut self,
        choice: BotChoice<G>,
        presence: &Presence,
    ) -> Option<CaughtUp<G>> {
        if self.bot_turn(presence).as_ref() != Some(&choice.turn) {
            return None;
        }
        let BotChoice { turn, action, rng } = choice;
        let drawn = rng.word_pos().saturating_sub(self.rng.word_pos());
        let state = self.game.as_ref()?;
        // Worked on copies: the room changes only if an action is accepted.
        let mut next = state.clone();
        let mut after = rng;
        let applied = action.as_ref().ok().and_then(|action| {
            G::apply(
                &mut next,
                Actor::Player(&turn.player),
                action,
                &mut after,
                turn.at,
            )
            .ok()
        });
        let (events, fallback, played) = match applied {
            Some(events) => (events, false, action.ok()),
            None => {
                // Why-log is the caller's business (core does no I/O); the fallback is the
                // whole recovery.
                after = self.rng.clone();
                next = state.clone();
                let action = G::bot_fallback(state, &turn.player)?;
                let events = G::apply(
                    &mut next,
                    Actor::Player(&turn.player),
                    &action,
                    &mut after,
                    turn.at,
                )
                .ok()?;
                (events, true, Some(action))
            }
        };
        let before = played
            .as_ref()
            .map(|action| self.before_logging(state, action));
        self.game = Some(next);
        self.rng = after;
        if let (Some(action), Some(before)) = (played, before) {
            // The fallback is played from the generator as it was: its choice drew nothing.
            let words = if fallback { 0 } else { drawn };
            self.log_bot(
                &turn.player,
                &action,
                u64::try_from(words).unwrap_or(u64::MAX),
                before,
            );
        }
        self.accept(turn.at);
        Some(CaughtUp {
            fired: Fired::Bot {
                level: turn.level,
                fallback,
            },
            events,
        })
    }

    /// A plan kept with the room ([`BotChoice::plan`]) read back as the choice it was, with its
    /// search time (µs), if it is one and was made for the room's version (`None` otherwise: a
    /// stale or unreadable plan is no plan). Whether its turn is still the room's next one is
    /// [`Room::play_choice`]'s to check.
    pub fn kept_plan(&self, plan: &[u8]) -> Option<(BotChoice<G>, u64)> {
        let form: PlanForm<G::Action> = serde_json::from_slice(plan).ok()?;
        if form.v != self.version {
            return None;
        }
        let mut rng = self.rng.clone();
        rng.set_word_pos(u128::from(form.w));
        let choice = BotChoice {
            turn: BotTurn {
                player: form.p,
                level: form.l,
                at: form.at,
                version: form.v,
            },
            action: form
                .a
                .ok_or_else(|| BotError("the engine failed when the plan was made".into())),
            rng,
        };
        Some((choice, form.t))
    }

    /// When the kept `plan` is due, if it is one for the room's next timeout (a computer
    /// player's move, at this version): what a catch-up at that time or later plays.
    pub fn plan_due(&self, plan: &[u8], presence: &Presence) -> Option<Millis> {
        let (choice, _) = self.kept_plan(plan)?;
        (self.bot_turn(presence).as_ref() == Some(&choice.turn)).then_some(choice.turn.at)
    }

    /// A request's catch-up ([`Room::catch_up`]) that also plays the kept `plan`, if there is
    /// one for the room's next timeout and it is due at `now`: the persons' timeouts due before
    /// it, the planned move (its choice as searched, never a search here), then whatever fell
    /// due behind it. Returns the events, and the plan if it landed.
    pub fn catch_up_planned(
        &mut self,
        now: Millis,
        presence: &Presence,
        plan: Option<&[u8]>,
    ) -> (Vec<G::Event>, Option<PlanLanded>) {
        let mut events = self.catch_up(now, presence);
        let Some((choice, took_us)) = plan.and_then(|plan| self.kept_plan(plan)) else {
            return (events, None);
        };
        if choice.turn.at > now {
            return (events, None);
        }
        let Some(mut step) = self.play_choice(choice, presence) else {
            return (events, None);
        };
        events.append(&mut step.events);
        let landed = match step.fired {
            Fired::Bot { level, fallback } => Some(PlanLanded {
                level,
                fallback,
                took_us,
            }),
            Fired::Timeout => None,
        };
        events.append(&mut self.catch_up(now, presence));
        (events, landed)
    }

    /// The host fills the next empty seat with a computer player of `level` (one of
    /// [`Game::bot_levels`]; `None`: [`Game::default_bot_level`]).
    pub(super) fn add_bot(
        &mut self,
        level: Option<u8>,
        now: Millis,
    ) -> Result<Vec<RoomEvent<G>>, RoomError> {
        let levels = G::bot_levels();
        let level = match level {
            None if levels.is_empty() => return Err(RoomError::NoBots),
            None => G::default_bot_level(),
            Some(l) if levels.iter().any(|b| b.level == l) => l,
            Some(_) => return Err(RoomError::BadBotLevel),
        };
        if self.seats.len() >= G::max_players(&self.options) {
            return Err(RoomError::RoomFull);
        }
        let name = bot_name(self.seats.iter().map(|m| m.name.as_str()));
        let id = PlayerId::new(format!("p{}", self.next_player_no));
        self.next_player_no += 1;
        self.seats.push(Member {
            id: id.clone(),
            name,
            // Never matched: `authenticate` skips computer players.
            token: TokenHash([0; 16]),
            joined_at: now,
            left: false,
            client: 0,
            bot: Some(level),
        });
        Ok(vec![RoomEvent::Lobby(LobbyEvent::BotAdded {
            player_id: id,
            level,
        })])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_are_named_by_the_smallest_free_number() {
        assert_eq!(bot_name(["철수"].into_iter()), "컴퓨터 1");
        assert_eq!(bot_name(["컴퓨터 1", "컴퓨터 3"].into_iter()), "컴퓨터 2");
    }
}
