//! Lobby actions and what they do to a room. Their wire form — the one list of their `type`s,
//! with each one's fields (`LobbyActionSchema` in `functions/src/api/actions.rs`) — lives at the
//! HTTP edge, which hands the room typed actions only; so does the wire form of the events they
//! make (`functions/src/api/events.rs`).

use super::{Room, RoomError, Status, TokenHash};
use crate::game::{Game, Lineup, Millis, PlayerId};

/// An action on the lobby (the API contract's lobby actions; their wire `type`s are the edge's,
/// above). `O` is the game's options type: the edge reads the options with the action.
#[derive(Clone, Debug, PartialEq)]
pub enum LobbyAction<O> {
    /// Host: replace the options (validated by the game).
    SetOptions {
        /// The new options.
        options: O,
    },
    /// Host: move a player to another seat (the player there takes the mover's seat).
    MoveSeat {
        /// Who moves.
        player_id: PlayerId,
        /// Target seat, `0..players`.
        seat: usize,
    },
    /// Host: start the game with the seated players.
    Start,
    /// Anyone seated: leave the room (in a running game, the game decides what that does).
    Leave,
    /// Host: remove a player from the lobby. Their token is barred from joining again.
    Kick {
        /// Who is removed.
        player_id: PlayerId,
    },
    /// Host: lift the bar a kick set, so the kicked player may join again.
    Unkick {
        /// Who was kicked.
        player_id: PlayerId,
    },
    /// Any player of a finished game: play again (한 판 더) in a new lobby with the same players.
    /// It creates another room, so the service carries it out, not [`Room::act`].
    Rematch,
    /// Host: fill the next empty seat with a computer player of this level (`None`: the
    /// game's default level).
    AddBot {
        /// One of the game's `bots.levels`.
        level: Option<u8>,
    },
}

/// How many kicks a room remembers (8 bytes each in the stored room): a host who kicks more
/// than this many people has bigger problems than the ninth coming back.
pub const MAX_BARRED: usize = 8;

const BAR_MASK: u64 = (1 << 48) - 1;

/// What a room keeps of a token to recognise it on a join (48 bits of its hash; never 0, which
/// means "no token"). A kick binds the seat, not the network: the kicked member's token is
/// barred, so the client that held the seat cannot take another, and everyone else behind the
/// same address (a school's Wi-Fi, a carrier's NAT) still can.
pub fn bar_of(token: &TokenHash) -> u64 {
    (super::digest64(&[b"bar", &token.0]) & BAR_MASK).max(1)
}

/// A bar entry: the kicked member's number (`p7` → 7) over the 48 bits of [`bar_of`], so the
/// host can lift the bar by player id ([`LobbyAction::Unkick`]).
fn bar_entry(player: &PlayerId, token: &TokenHash) -> u64 {
    let number: u64 = player.as_str().trim_start_matches('p').parse().unwrap_or(0);
    (number.min(0xFFFF) << 48) | bar_of(token)
}

fn bar_player(entry: u64) -> u64 {
    entry >> 48
}

impl<G: Game> Room<G> {
    /// Whether a join that holds a token with [`bar_of`] `bar` comes from a kicked member.
    pub fn is_barred(&self, bar: u64) -> bool {
        bar != 0 && self.barred.iter().any(|e| e & BAR_MASK == bar & BAR_MASK)
    }
}

/// One action sent to `POST /rooms/{id}/actions`: a lobby action or one of the game's.
#[derive(Debug)]
pub enum RoomAction<G: Game> {
    /// A lobby action.
    Lobby(LobbyAction<G::Options>),
    /// A game action (`THROW`, `place`, …).
    Game(G::Action),
}

// Written out: a derive would demand `Clone` of the zero-sized game marker too.
impl<G: Game> Clone for RoomAction<G> {
    fn clone(&self) -> Self {
        match self {
            RoomAction::Lobby(a) => RoomAction::Lobby(a.clone()),
            RoomAction::Game(a) => RoomAction::Game(a.clone()),
        }
    }
}

/// Something that happened in the lobby (written on the wire tagged by `type`, by the API layer).
#[derive(Clone, Debug, PartialEq)]
pub enum LobbyEvent {
    /// The options changed.
    OptionsChanged,
    /// Seats were rearranged.
    SeatMoved {
        /// Who moved.
        player_id: PlayerId,
        /// Their new seat.
        seat: usize,
    },
    /// The game started.
    Started,
    /// A player left.
    Left {
        /// Who left.
        player_id: PlayerId,
    },
    /// The host removed a player.
    Kicked {
        /// Who was removed.
        player_id: PlayerId,
    },
    /// The host lifted a kick: that player may join again.
    Unkicked {
        /// Who was kicked.
        player_id: PlayerId,
    },
    /// The host role passed on (the host left).
    HostChanged {
        /// The new host.
        player_id: PlayerId,
    },
    /// The host seated a computer player.
    BotAdded {
        /// The computer player's id.
        player_id: PlayerId,
        /// Its level.
        level: u8,
    },
    /// A rematch lobby was opened for this finished game.
    RematchCreated {
        /// The new lobby's id.
        room_id: String,
    },
}

/// An event of a room action: the lobby's or the game's.
#[derive(Clone, Debug)]
pub enum RoomEvent<G: Game> {
    /// A lobby event.
    Lobby(LobbyEvent),
    /// A game event.
    Game(G::Event),
}

impl<G: Game> Room<G> {
    pub(super) fn act_lobby(
        &mut self,
        player: &PlayerId,
        action: LobbyAction<G::Options>,
        now: Millis,
    ) -> Result<Vec<RoomEvent<G>>, RoomError> {
        let host_only = !matches!(action, LobbyAction::Leave);
        if host_only && *player != self.host {
            return Err(RoomError::NotHost);
        }
        if !matches!(action, LobbyAction::Leave) && self.game.is_some() {
            return Err(RoomError::AlreadyStarted);
        }
        let events = match action {
            LobbyAction::SetOptions { options } => {
                G::validate_options(&options, None).map_err(RoomError::InvalidOptions)?;
                if self.seats.len() > G::max_players(&options) {
                    return Err(RoomError::InvalidOptions(crate::OptionsError::new(
                        "options",
                        format!(
                            "지금 {}명이 있어서 이 설정으로는 할 수 없어요.",
                            self.seats.len()
                        ),
                    )));
                }
                self.options = options;
                vec![LobbyEvent::OptionsChanged]
            }
            LobbyAction::MoveSeat { player_id, seat } => {
                let from = self.seat_of(&player_id).ok_or(RoomError::UnknownPlayer)?;
                if seat >= self.seats.len() {
                    return Err(RoomError::BadSeat);
                }
                self.seats.swap(from, seat);
                vec![LobbyEvent::SeatMoved { player_id, seat }]
            }
            LobbyAction::AddBot { level } => return self.add_bot(level, now),
            LobbyAction::Start => {
                if self.seats.iter().all(|m| m.bot.is_some()) {
                    return Err(RoomError::OnlyBots);
                }
                let lineup = Lineup {
                    players: self.seats.iter().map(|m| m.id.clone()).collect(),
                    host: self.host.clone(),
                };
                // Setup draws from a copy: if it refuses (wrong head count), the generator has
                // not moved.
                let mut rng = self.rng.clone();
                let mut state = G::setup(&lineup, &self.options, &mut rng, now)
                    .map_err(RoomError::InvalidOptions)?;
                for bot in self.seats.iter().filter(|m| m.bot.is_some()) {
                    G::seat_bot(&mut state, &bot.id);
                }
                self.log_start(now, self.rng.word_pos());
                self.rng = rng;
                self.game = Some(state);
                vec![LobbyEvent::Started]
            }
            // Opens another room: the service carries it out (it saves both rooms).
            LobbyAction::Rematch => {
                return Err(RoomError::BadAction(
                    "한 판 더는 끝난 게임에서만 할 수 있어요.".into(),
                ));
            }
            LobbyAction::Leave => return self.leave(player, now),
            LobbyAction::Kick { player_id } => {
                if player_id == *player {
                    return Err(RoomError::CannotKickSelf);
                }
                let seat = self.seat_of(&player_id).ok_or(RoomError::UnknownPlayer)?;
                let kicked = self.seats.remove(seat);
                // A computer player holds no token anyone could come back with: nothing to bar.
                if kicked.bot.is_none() {
                    self.barred.push(bar_entry(&kicked.id, &kicked.token));
                    let excess = self.barred.len().saturating_sub(MAX_BARRED);
                    self.barred.drain(..excess);
                }
                vec![LobbyEvent::Kicked { player_id }]
            }
            LobbyAction::Unkick { player_id } => {
                let number: u64 = player_id
                    .as_str()
                    .trim_start_matches('p')
                    .parse()
                    .map_err(|_| RoomError::UnknownPlayer)?;
                let before = self.barred.len();
                self.barred.retain(|e| bar_player(*e) != number);
                if self.barred.len() == before {
                    return Err(RoomError::UnknownPlayer);
                }
                vec![LobbyEvent::Unkicked { player_id }]
            }
        };
        Ok(events.into_iter().map(RoomEvent::Lobby).collect())
    }

    fn seat_of(&self, player: &PlayerId) -> Option<usize> {
        self.seats.iter().position(|m| &m.id == player)
    }

    fn leave(&mut self, player: &PlayerId, now: Millis) -> Result<Vec<RoomEvent<G>>, RoomError> {
        let seat = self.seat_of(player).ok_or(RoomError::NotAPlayer)?;
        let mut events = Vec::new();
        match self.status() {
            Status::Lobby => {
                self.seats.remove(seat);
            }
            Status::Playing => {
                // The seat stays: the game knows the player and decides what their leaving does
                // (a forfeit, or a bot taking the seat over). It works on copies, so a refusal
                // leaves the room untouched.
                if let Some(state) = self.game.as_mut() {
                    let mut next = state.clone();
                    let mut rng = self.rng.clone();
                    let fired =
                        G::leave(&mut next, player, &mut rng, now).map_err(super::rule_error)?;
                    *state = next;
                    self.rng = rng;
                    events.extend(fired.into_iter().map(RoomEvent::Game));
                }
                self.log_leave(player, now);
                self.seats[seat].left = true;
            }
            Status::Finished => self.seats[seat].left = true,
        }
        events.push(RoomEvent::Lobby(LobbyEvent::Left {
            player_id: player.clone(),
        }));
        if *player == self.host
            && let Some(next) = self.next_host(seat)
        {
            self.host = next.clone();
            events.push(RoomEvent::Lobby(LobbyEvent::HostChanged {
                player_id: next,
            }));
        }
        Ok(events)
    }

    /// The member after `seat` (wrapping) who is still present: the host role passes to them.
    /// In the lobby the leaver's seat is already gone, so `seat` now holds the next member.
    fn next_host(&self, seat: usize) -> Option<PlayerId> {
        let n = self.seats.len();
        let start = if self.game.is_none() { seat } else { seat + 1 };
        (0..n)
            .map(|i| &self.seats[(start + i) % n.max(1)])
            .find(|m| !m.left && m.bot.is_none())
            .map(|m| m.id.clone())
    }
}

impl<G: Game> Room<G> {
    /// Ids of the members whose presence still matters: seated and not gone. A player who left
    /// the lobby or was kicked has no seat; one who left a running game keeps the seat but can
    /// no longer authenticate. Stores drop the presence entries of everyone else on save, so
    /// join/leave cycles cannot grow a room's presence without bound.
    pub fn present_ids(&self) -> impl Iterator<Item = &PlayerId> {
        self.seats
            .iter()
            .filter(|m| !m.left && m.bot.is_none())
            .map(|m| &m.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;
    use crate::room::TokenHash;
    use crate::yut::Yut;

    fn lobby() -> (Room<Yut>, PlayerId) {
        Room::<Yut>::create(
            "r".into(),
            "방장".into(),
            TokenHash::of("h"),
            Default::default(),
            GameRng::seed_from_u64(1),
            0,
        )
        .unwrap()
    }

    #[test]
    fn a_kick_bars_the_token_not_the_address_and_the_host_can_lift_it() {
        let (mut room, host) = lobby();
        let pest = TokenHash::of("a");
        let p2 = room.join_from("손님".into(), pest, 0, 1).unwrap();
        room.act(
            &host,
            RoomAction::Lobby(LobbyAction::Kick {
                player_id: p2.clone(),
            }),
            2,
        )
        .unwrap();
        // The kicked client, still holding its token, is refused; anyone else is welcome.
        assert_eq!(
            room.join_from("손님2".into(), TokenHash::of("b"), bar_of(&pest), 3),
            Err(RoomError::Kicked)
        );
        assert!(
            room.join_from("친구".into(), TokenHash::of("c"), 0, 4)
                .is_ok()
        );
        room.act(
            &host,
            RoomAction::Lobby(LobbyAction::Unkick { player_id: p2 }),
            5,
        )
        .unwrap();
        assert!(
            room.join_from("손님".into(), TokenHash::of("d"), bar_of(&pest), 6)
                .is_ok()
        );
    }

    #[test]
    fn a_room_remembers_a_bounded_number_of_kicks() {
        let (mut room, host) = lobby();
        for i in 0..(MAX_BARRED as u8 + 3) {
            let p = room
                .join_from(format!("손님{i}"), TokenHash::of(&i.to_string()), 0, 1)
                .unwrap();
            room.act(
                &host,
                RoomAction::Lobby(LobbyAction::Kick { player_id: p }),
                2,
            )
            .unwrap();
        }
        assert_eq!(room.barred.len(), MAX_BARRED);
        // The oldest bars went first.
        assert!(!room.is_barred(bar_of(&TokenHash::of("0"))));
        assert!(room.is_barred(bar_of(&TokenHash::of(&(MAX_BARRED + 2).to_string()))));
    }

    #[test]
    fn a_name_in_use_is_taken() {
        let (mut room, _) = lobby();
        assert_eq!(
            room.join_from("방 장".into(), TokenHash::of("b"), 0, 1),
            Err(RoomError::NameTaken)
        );
    }
}
