//! Turn flow (§5.3): throwing, using results, the capture bonus, discarding what cannot be used,
//! passing the turn, finishing and conceding.
//!
//! [`YutState::act`] checks everything an action needs before it changes anything, so a refused
//! action leaves the state and the generator exactly as they were.

use super::AWAY_AFTER_TIMEOUTS;
use super::action::Action;
use super::board::Position;
use super::error::YutError;
use super::event::Event;
use super::movement::MovePlan;
use super::options::{Mode, OnLeave, Ranking};
use super::state::{Control, Phase, Piece, Recommendation, Seat, SideId, YutState};
use super::throw::{Throw, Toss};
use crate::game::{Actor, Millis, PlayerId};
use crate::rng::GameRng;
use strum::VariantArray;

impl YutState {
    /// Applies one action (see [`Game::apply`](crate::game::Game::apply)).
    pub(crate) fn act(
        &mut self,
        actor: Actor<'_>,
        action: &Action,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Event>, YutError> {
        let seat = self.seat_of(actor.id()).ok_or(YutError::NotAPlayer)?;
        if self.phase == Phase::Finished {
            return Err(YutError::GameOver);
        }
        let on_turn = self.current_seat();
        let mut events = Vec::new();
        match *action {
            Action::Throw => {
                self.check_turn(seat)?;
                if self.phase != Phase::Throw {
                    return Err(YutError::NotThrowPhase);
                }
                self.note_play(actor);
                self.throw(rng, now, &mut events);
            }
            Action::Move { throw_index, from } => {
                self.check_turn(seat)?;
                if self.phase != Phase::Move {
                    return Err(YutError::NotMovePhase);
                }
                if throw_index >= self.pending.len() {
                    return Err(YutError::BadThrowIndex);
                }
                let plan = self
                    .plan(self.current_side(), throw_index, from)
                    .ok_or(YutError::IllegalMove)?;
                self.note_play(actor);
                self.play(plan, now, &mut events);
            }
            Action::Concede => {
                self.check_can_concede(seat)?;
                self.concede(seat, now, &mut events);
            }
            Action::Recommend { throw_index, from } => {
                let plan = self.check_recommendation(seat, throw_index, from)?;
                self.recommend(seat, &plan, &mut events);
            }
            Action::TakeControl => {
                if self.members[usize::from(seat)].control != Control::Auto {
                    return Err(YutError::NotAutoPlaying);
                }
                self.take_control(seat, &mut events);
            }
        }
        self.count_timeout(seat, actor.is_timeout(), &mut events);
        // An action of someone not on turn (a concession, a recommendation, taking control
        // back) does not change what the player on turn must do, so their clock keeps running;
        // every other accepted action awaits a new action from now on.
        let same_wait = seat != on_turn && self.current_seat() == on_turn;
        if !same_wait {
            self.deadline_at = self.next_deadline(now);
        }
        Ok(events)
    }

    /// When the awaited action times out after an action at `now`: at once when the system
    /// plays the seat on turn (auto play, bot); else `turnSeconds` from now, but never later
    /// than `turnCapSeconds` after the turn began (then the rest of the turn plays itself).
    pub(crate) fn next_deadline(&self, now: Millis) -> Option<Millis> {
        if self.phase == Phase::Finished {
            return None;
        }
        if self.members[usize::from(self.current_seat())].control != Control::Player {
            return Some(now);
        }
        let per_action = self
            .options
            .turn_seconds
            .map(|s| now.saturating_add(u64::from(s) * 1000));
        let cap = self
            .options
            .turn_cap_seconds
            .map(|s| self.turn_started_at.saturating_add(u64::from(s) * 1000));
        match (per_action, cap) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        }
    }

    /// A throw or a move is about to be made: it changes the pending results, so the
    /// recommendations about them are void, and if the player made it themself, this turn is
    /// not idle.
    fn note_play(&mut self, actor: Actor<'_>) {
        self.recommendations.clear();
        if !actor.is_timeout() {
            self.acted = true;
        }
    }

    /// Who may recommend what: a member of the team on turn other than the player to move, in
    /// the move phase, a move that the player to move could make.
    fn check_recommendation(
        &self,
        seat: Seat,
        throw_index: usize,
        from: Position,
    ) -> Result<MovePlan, YutError> {
        let teammate = self.options.mode == Mode::Team
            && seat != self.current_seat()
            && self.side_of_seat(seat) == self.current_side();
        if !teammate {
            return Err(YutError::CannotRecommend);
        }
        if self.phase != Phase::Move {
            return Err(YutError::NotMovePhase);
        }
        if throw_index >= self.pending.len() || u8::try_from(throw_index).is_err() {
            return Err(YutError::BadThrowIndex);
        }
        self.plan(self.current_side(), throw_index, from)
            .ok_or(YutError::IllegalMove)
    }

    /// Records a member's recommendation (replacing their previous one). The event goes to the
    /// recommender alone; their teammates see it in their view.
    fn recommend(&mut self, seat: Seat, plan: &MovePlan, events: &mut Vec<Event>) {
        self.recommendations.retain(|r| r.by != seat);
        self.recommendations.push(Recommendation {
            by: seat,
            // Checked to fit by `check_recommendation`.
            throw_index: u8::try_from(plan.throw_index).unwrap_or(u8::MAX),
            from: plan.from,
        });
        events.push(Event::Recommended {
            player: self.players[usize::from(seat)].clone(),
            throw_index: plan.throw_index,
            from: plan.from,
            to: plan.to,
        });
    }

    /// The player takes their seat back from auto play (the rules page's [직접 하기]).
    fn take_control(&mut self, seat: Seat, events: &mut Vec<Event>) {
        let member = &mut self.members[usize::from(seat)];
        member.control = Control::Player;
        member.idle_turns = 0;
        if seat == self.current_seat() {
            self.acted = true;
        }
        events.push(Event::AutoPlay {
            player: self.players[usize::from(seat)].clone(),
            auto: false,
        });
    }

    /// A player leaves a running game: under `onLeave: bot` a bot takes the seat over (same
    /// team, pieces and turn order); otherwise they concede (ruling Y10). A player whose side
    /// is already out leaves nothing behind to change.
    pub(crate) fn leave(
        &mut self,
        player: &PlayerId,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Event>, YutError> {
        let seat = self.seat_of(player).ok_or(YutError::NotAPlayer)?;
        let member = &self.members[usize::from(seat)];
        let out = !self.sides[usize::from(self.side_of_seat(seat))].in_play() || member.conceded;
        if self.phase == Phase::Finished || out {
            return Ok(Vec::new());
        }
        match self.options.on_leave {
            OnLeave::Concede => self.act(Actor::Player(player), &Action::Concede, rng, now),
            OnLeave::Bot => {
                self.members[usize::from(seat)].control = Control::Bot;
                if seat == self.current_seat() {
                    self.deadline_at = self.next_deadline(now);
                }
                Ok(vec![Event::ReplacedByBot {
                    player: player.clone(),
                }])
            }
        }
    }

    /// A computer player (`addBot`) plays `player`'s seat from the start.
    pub(crate) fn seat_bot(&mut self, player: &PlayerId) {
        let Some(seat) = self.seat_of(player) else {
            return;
        };
        self.members[usize::from(seat)].control = Control::Bot;
        if seat == self.current_seat() {
            self.deadline_at = self.next_deadline(self.turn_started_at);
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<(), YutError> {
        if seat == self.current_seat() {
            Ok(())
        } else {
            Err(YutError::NotYourTurn)
        }
    }

    fn check_can_concede(&self, seat: Seat) -> Result<(), YutError> {
        let side = &self.sides[usize::from(self.side_of_seat(seat))];
        if !side.in_play() || self.members[usize::from(seat)].conceded {
            return Err(YutError::AlreadyOut);
        }
        Ok(())
    }

    /// Throw phase: draw, record, and carry on (윷 and 모 keep the throw owed).
    fn throw(&mut self, rng: &mut GameRng, now: Millis, events: &mut Vec<Event>) {
        let player = self.players[usize::from(self.current_seat())].clone();
        let toss = Toss::draw(rng, &self.options);
        self.last_throw = Some(toss);
        self.throws_owed = self.throws_owed.saturating_sub(1);
        match toss {
            Toss::Nak => {
                self.stats.throws[Throw::VARIANTS.len()] += 1;
                events.push(Event::Nak { player });
            }
            Toss::Landed { sticks, result } => {
                self.stats.throws[result as usize] += 1;
                self.pending.push(result);
                if result.throws_again() {
                    self.throws_owed += 1;
                }
                events.push(Event::Thrown {
                    player,
                    sticks,
                    result,
                });
            }
        }
        self.carry_on(now, events);
    }

    /// Move phase: carries out a planned move, then whatever follows from it.
    fn play(&mut self, plan: MovePlan, now: Millis, events: &mut Vec<Event>) {
        let side = usize::from(plan.side);
        self.pending.remove(plan.throw_index);
        events.push(Event::Moved {
            side: plan.side,
            result: plan.throw,
            from: plan.from,
            to: plan.to,
            path: plan.path.clone(),
            count: plan.movers.len() as u8,
        });
        if let (Some((victim, count)), Some(at)) = (plan.victim, plan.to.node()) {
            for piece in &mut self.sides[usize::from(victim)].pieces {
                if piece.position == plan.to {
                    *piece = Piece::WAITING;
                }
            }
            self.stats.captures[side] += 1;
            events.push(Event::Captured {
                side: plan.side,
                victim_side: victim,
                at,
                count,
            });
        }
        let pieces = &mut self.sides[side].pieces;
        for &id in &plan.movers {
            pieces[id].position = plan.to;
        }
        // Everything standing on the destination now shares the movers' trail (Y5), which also
        // covers the pieces that were already there. Off the board (finished, or sent home by
        // 빽도 from 도) pieces keep no trail: a stack sent home breaks up.
        if let Position::Board(_) = plan.to {
            for piece in pieces.iter_mut().filter(|p| p.position == plan.to) {
                piece.trail.clone_from(&plan.trail);
            }
        } else {
            for &id in &plan.movers {
                pieces[id].trail.clear();
            }
        }
        if let (true, Some(at)) = (plan.joins > 0, plan.to.node()) {
            events.push(Event::Stacked {
                side: plan.side,
                at,
                count: plan.joins + plan.movers.len() as u8,
            });
        }
        if plan.to == Position::Goal {
            events.push(Event::FinishedPieces {
                side: plan.side,
                count: plan.movers.len() as u8,
            });
            if self.sides[side].finished_pieces() == self.sides[side].pieces.len() {
                self.finish_side(plan.side, now, events);
                return;
            }
        }
        // One extra throw per capturing move, however many pieces it captured.
        if plan.victim.is_some() && self.options.capture_bonus(plan.throw) {
            self.throws_owed += 1;
            events.push(Event::BonusThrow {
                player: self.players[usize::from(self.current_seat())].clone(),
            });
        }
        self.carry_on(now, events);
    }

    /// After a throw or a move: throw again if owed, else move if any result can be used, else
    /// discard what is left and pass the turn (§5.3).
    fn carry_on(&mut self, now: Millis, events: &mut Vec<Event>) {
        if self.throws_owed > 0 {
            self.phase = Phase::Throw;
        } else if self.pending.is_empty() {
            self.pass_turn(now, events);
        } else if self.can_use_any(self.current_side()) {
            self.phase = Phase::Move;
        } else {
            events.push(Event::Discarded {
                throws: std::mem::take(&mut self.pending),
            });
            self.pass_turn(now, events);
        }
    }

    /// A side has all its pieces home: rank it, then end the game or pass the turn on.
    fn finish_side(&mut self, side: SideId, now: Millis, events: &mut Vec<Event>) {
        let rank = 1 + self
            .sides
            .iter()
            .filter(|s| s.finished_rank.is_some())
            .count() as u8;
        self.sides[usize::from(side)].finished_rank = Some(rank);
        events.push(Event::SideFinished { side, rank });
        if self.options.ranking != Ranking::All || self.sides_in_play() <= 1 {
            self.end_game(events);
        } else {
            // Results and throws still owed die with the side's last piece (Y8).
            self.throws_owed = 0;
            if !self.pending.is_empty() {
                events.push(Event::Discarded {
                    throws: std::mem::take(&mut self.pending),
                });
            }
            self.pass_turn(now, events);
        }
    }

    /// A player gives up (ruling Y10).
    fn concede(&mut self, seat: Seat, now: Millis, events: &mut Vec<Event>) {
        let side = self.side_of_seat(seat);
        self.members[usize::from(seat)].conceded = true;
        let side_out = match self.options.mode {
            Mode::Individual => true,
            Mode::Team => self
                .members
                .iter()
                .enumerate()
                .filter(|&(s, _)| self.side_of_seat(s as Seat) == side)
                .all(|(_, m)| m.conceded),
        };
        events.push(Event::Conceded {
            player: self.players[usize::from(seat)].clone(),
            side,
            side_out,
        });
        if !side_out {
            return;
        }
        self.concessions += 1;
        let out = &mut self.sides[usize::from(side)];
        out.conceded = Some(self.concessions);
        // Its pieces leave the board; finished ones stay finished.
        for piece in out
            .pieces
            .iter_mut()
            .filter(|p| p.position != Position::Goal)
        {
            *piece = Piece::WAITING;
        }
        if self.sides_in_play() <= 1 {
            self.end_game(events);
        } else if side == self.current_side() {
            self.throws_owed = 0;
            self.pending.clear();
            self.pass_turn(now, events);
        } else {
            self.rotate(false);
        }
    }

    /// Counts a timeout action towards the away flag, or resets it on the player's own action
    /// (ruling Y15).
    fn count_timeout(&mut self, seat: Seat, timeout: bool, events: &mut Vec<Event>) {
        let member = &mut self.members[usize::from(seat)];
        let was_away = member.timeouts >= AWAY_AFTER_TIMEOUTS;
        member.timeouts = if timeout {
            member.timeouts.saturating_add(1)
        } else {
            0
        };
        let away = member.timeouts >= AWAY_AFTER_TIMEOUTS;
        if away != was_away {
            events.push(Event::Away {
                player: self.players[usize::from(seat)].clone(),
                away,
            });
        }
    }

    fn sides_in_play(&self) -> usize {
        self.sides.iter().filter(|s| s.in_play()).count()
    }

    /// Ends the current turn and hands the next to the next player still in play, with one
    /// throw owed — unless the round is over and so is the time of a timed game.
    fn pass_turn(&mut self, now: Millis, events: &mut Vec<Event>) {
        self.count_idle_turn(events);
        let last = self.current_seat();
        let round_over = self.rotate(true);
        self.pending.clear();
        self.recommendations.clear();
        if round_over && self.time_up_at.is_some_and(|at| now >= at) {
            // The game ends on the last turn of the round: it stays the one shown as last.
            if let Some(i) = self.turn_order.iter().position(|&s| s == last) {
                self.turn_index = i as u8;
            }
            self.time_up = true;
            events.push(Event::TimeUp);
            self.end_game(events);
            return;
        }
        self.throws_owed = 1;
        self.phase = Phase::Throw;
        self.turn_started_at = now;
        self.acted = false;
        events.push(Event::TurnChanged {
            player: self.players[usize::from(self.current_seat())].clone(),
        });
    }

    /// The turn of the player on turn ends: one more idle turn if they did nothing themself,
    /// and at `idleTurnsToAuto` their seat switches to auto play.
    fn count_idle_turn(&mut self, events: &mut Vec<Event>) {
        let Some(limit) = self.options.idle_turns_to_auto else {
            return;
        };
        let seat = self.current_seat();
        let member = &mut self.members[usize::from(seat)];
        member.idle_turns = if self.acted {
            0
        } else {
            member.idle_turns.saturating_add(1)
        };
        if member.idle_turns >= limit && member.control == Control::Player {
            member.control = Control::Auto;
            events.push(Event::AutoPlay {
                player: self.players[usize::from(seat)].clone(),
                auto: true,
            });
        }
    }

    /// Drops seats whose side is out of play from the turn order and points `turn_index` at the
    /// current player (`advance = false`, when still in play) or the next one in play. Returns
    /// whether that went round past the end of the turn order: the round is over.
    fn rotate(&mut self, advance: bool) -> bool {
        let in_play: Vec<bool> = (0..self.players.len())
            .map(|s| self.sides[usize::from(self.side_of_seat(s as Seat))].in_play())
            .collect();
        let n = self.turn_order.len();
        let start = usize::from(self.turn_index) + usize::from(advance);
        let next = (0..n)
            .map(|k| start + k)
            .find(|&i| in_play[usize::from(self.turn_order[i % n])]);
        let seat = next.map(|i| self.turn_order[i % n]);
        self.turn_order.retain(|&s| in_play[usize::from(s)]);
        if let Some(i) = seat.and_then(|s| self.turn_order.iter().position(|&t| t == s)) {
            self.turn_index = i as u8;
        }
        next.is_some_and(|i| i >= n)
    }

    fn end_game(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Finished;
        self.throws_owed = 0;
        self.pending.clear();
        let winners = self
            .standings()
            .into_iter()
            .filter(|s| s.rank == Some(1))
            .flat_map(|s| s.players)
            .collect();
        events.push(Event::GameOver { winners });
    }
}
