//! Turn flow (§5.3): throwing, using results, the capture bonus, discarding what cannot be used,
//! passing the turn, finishing and conceding.
//!
//! [`State::act`] checks everything an action needs before it changes anything, so a refused
//! action leaves the state and the generator exactly as they were.

use super::AWAY_AFTER_TIMEOUTS;
use super::action::Action;
use super::board::Position;
use super::error::YutError;
use super::event::Event;
use super::movement::Plan;
use super::options::{Mode, Ranking};
use super::state::{Phase, Piece, Seat, SideId, State};
use super::throw::{Throw, Toss};
use crate::game::{Actor, Millis};
use crate::rng::GameRng;

impl State {
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
                self.throw(rng, &mut events);
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
                self.play(plan, &mut events);
            }
            Action::Concede => {
                self.check_can_concede(seat)?;
                self.concede(seat, &mut events);
            }
        }
        self.count_timeout(seat, actor.is_timeout(), &mut events);
        // Someone else conceding does not change what the player on turn must do, so their
        // clock keeps running; every other accepted action awaits a new action from now on.
        let same_wait =
            *action == Action::Concede && seat != on_turn && self.current_seat() == on_turn;
        self.deadline_at = match (self.phase, self.options.turn_seconds) {
            (Phase::Finished, _) | (_, None) => None,
            _ if same_wait => self.deadline_at,
            (_, Some(s)) => Some(now.saturating_add(u64::from(s) * 1000)),
        };
        Ok(events)
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
    fn throw(&mut self, rng: &mut GameRng, events: &mut Vec<Event>) {
        let player = self.players[usize::from(self.current_seat())].clone();
        let toss = Toss::draw(rng, &self.options);
        self.last_throw = Some(toss);
        self.throws_owed = self.throws_owed.saturating_sub(1);
        match toss {
            Toss::Nak => {
                self.stats.throws[Throw::ALL.len()] += 1;
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
        self.carry_on(events);
    }

    /// Move phase: carries out a planned move, then whatever follows from it.
    fn play(&mut self, plan: Plan, events: &mut Vec<Event>) {
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
        // covers the pieces that were already there.
        if plan.to != Position::Goal {
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
                self.finish_side(plan.side, events);
                return;
            }
        }
        let bonus = plan.throw != Throw::Backdo || self.options.backdo_capture_bonus;
        if plan.victim.is_some() && bonus {
            self.throws_owed += 1;
            events.push(Event::BonusThrow {
                player: self.players[usize::from(self.current_seat())].clone(),
            });
        }
        self.carry_on(events);
    }

    /// After a throw or a move: throw again if owed, else move if any result can be used, else
    /// discard what is left and pass the turn (§5.3).
    fn carry_on(&mut self, events: &mut Vec<Event>) {
        if self.throws_owed > 0 {
            self.phase = Phase::Throw;
        } else if self.pending.is_empty() {
            self.pass_turn(events);
        } else if self.can_use_any(self.current_side()) {
            self.phase = Phase::Move;
        } else {
            events.push(Event::Discarded {
                throws: std::mem::take(&mut self.pending),
            });
            self.pass_turn(events);
        }
    }

    /// A side has all its pieces home: rank it, then end the game or pass the turn on.
    fn finish_side(&mut self, side: SideId, events: &mut Vec<Event>) {
        let rank = 1 + self
            .sides
            .iter()
            .filter(|s| s.finished_rank.is_some())
            .count() as u8;
        self.sides[usize::from(side)].finished_rank = Some(rank);
        events.push(Event::SideFinished { side, rank });
        if self.options.ranking == Ranking::First || self.sides_in_play() <= 1 {
            self.end_game(events);
        } else {
            // Results and throws still owed die with the side's last piece (Y8).
            self.throws_owed = 0;
            if !self.pending.is_empty() {
                events.push(Event::Discarded {
                    throws: std::mem::take(&mut self.pending),
                });
            }
            self.pass_turn(events);
        }
    }

    /// A player gives up (ruling Y10).
    fn concede(&mut self, seat: Seat, events: &mut Vec<Event>) {
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
            self.pass_turn(events);
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

    /// Hands the turn to the next player still in play, with one throw owed.
    fn pass_turn(&mut self, events: &mut Vec<Event>) {
        self.rotate(true);
        self.pending.clear();
        self.throws_owed = 1;
        self.phase = Phase::Throw;
        events.push(Event::TurnChanged {
            player: self.players[usize::from(self.current_seat())].clone(),
        });
    }

    /// Drops seats whose side is out of play from the turn order and points `turn_index` at the
    /// current player (`advance = false`, when still in play) or the next one in play.
    fn rotate(&mut self, advance: bool) {
        let in_play: Vec<bool> = (0..self.players.len())
            .map(|s| self.sides[usize::from(self.side_of_seat(s as Seat))].in_play())
            .collect();
        let n = self.turn_order.len();
        let start = usize::from(self.turn_index) + usize::from(advance);
        let next = (0..n)
            .map(|k| self.turn_order[(start + k) % n])
            .find(|&s| in_play[usize::from(s)]);
        self.turn_order.retain(|&s| in_play[usize::from(s)]);
        if let Some(i) = next.and_then(|s| self.turn_order.iter().position(|&t| t == s)) {
            self.turn_index = i as u8;
        }
    }

    fn end_game(&mut self, events: &mut Vec<Event>) {
        self.phase = Phase::Finished;
        self.throws_owed = 0;
        self.pending.clear();
        let winners = self
            .standings()
            .into_iter()
            .filter(|s| s.rank == 1)
            .flat_map(|s| s.players)
            .collect();
        events.push(Event::GameOver { winners });
    }
}
