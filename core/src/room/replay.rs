//! The replay log of a game, and the replay it makes (DESIGN "Replay").
//!
//! A room keeps, from its `start` on, a [`GameLog`]: what happened at each step of the game (a
//! player's action, a timeout fired for someone, a computer player's move, a player leaving),
//! packed into a few bytes a step, with just enough to do it again: the same seed and the same
//! actions give the same state (`docs/contributing.md`, "Time and randomness are parameters").
//! [`Replay`] plays the log through the engine from the room's own generator, so a replay can
//! never disagree with what happened, and [`Replay::at`] gives the room as it stood after the
//! n-th step — the version it had then, nothing it learned later.
//!
//! What a step needs, and only that, is stored, because every save writes the whole room and
//! DynamoDB bills each started kilobyte:
//! - the seat (the player), the kind of step, and the game's own short code for its action
//!   ([`Game::log_action`]): a byte for most steps;
//! - its time, because the engines are given `now` (turn timers, 바둑 clocks), as the
//!   difference from the room's previous change in ms — except where the room can work it
//!   out again: a computer player moves at its due time, and most timeouts fire at the game's
//!   deadline;
//! - for a computer player's move, how many words of the generator its choice drew (the
//!   choice reads the room's generator outside [`Game::apply`]).
//!
//! # The encoding
//!
//! The most common step — an action of the player the game waits for, whose op is 0 and has no
//! payload (a 윷 throw; a 바둑 stone or pass, which the move list keeps), its time not before
//! the room's last change — is two bytes, little-endian: `ms << 1 | 1` (`ms` since the room's
//! last change, up to 32.766 s; all ones, then a varint of `ms`, past it). Every other step starts with a header byte whose low bit is 0:
//! `kind << 1 | seat << 3 | op << 6` (kinds: 0 an action, 1 a timeout, 2 a computer player's
//! move, 3 leaving), with `op` 3 meaning "the op, 3 to 7, is the next byte"; then the action's
//! payload ([`Game::log_action`]; actions and computer players' moves only), then for a computer
//! player's move the words its choice drew (a varint), and then the time: a zigzag varint of
//! `now` minus the room's `updatedAt` before the step, left out for a computer player's move
//! and for a timeout whose op is 1 (it fired at the game's own deadline). Varints are LEB128: 7
//! bits a byte, low bits first, no redundant high zero byte. Decoding is strict: a byte that
//! belongs to nothing, a varint that runs past the end or over 64 bits, an op, a kind or a seat
//! out of range, are refused, never misread.

use serde::{Deserialize, Serialize};

use super::{Member, Presence, Room, RoomAction};
use crate::game::{Actor, Game, Millis, PlayerId};

/// A replay checkpoint is kept every this many steps, so a step costs at most this many
/// engine steps once the replay has passed it (a 722-move 19줄 game: 23 checkpoints).
pub const CHECKPOINT_EVERY: usize = 32;

/// The most players a log can name: the seat is three bits of a step's header.
pub const MAX_LOGGED_SEATS: usize = 8;

const KIND_ACT: u8 = 0;
const KIND_TIMEOUT: u8 = 1;
const KIND_BOT: u8 = 2;
const KIND_LEAVE: u8 = 3;

/// The common step's two-byte time that says "the time follows as a varint" (32.767 s).
const COMMON_ESCAPE: u64 = (1 << 15) - 1;

/// A timeout's op: it fired at the game's own deadline, so its time is not stored.
const AT_DEADLINE: u8 = 1;

/// The log of a game as the room stores it: where it started, and its steps, packed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameLog {
    /// The room's version once the game had started (step 0).
    version: u64,
    /// When it started (the `now` the game was set up at).
    at: Millis,
    /// The room's `updatedAt` after the start, less `at` (0 unless a clock stepped back).
    lag: u64,
    /// The host's seat when the game started.
    host: u8,
    /// The generator's word position before the start (the setup draws from it).
    words: u64,
    /// How many steps.
    steps: u32,
    /// The steps, encoded as the module documentation says.
    bytes: Vec<u8>,
}

impl GameLog {
    /// How many steps the log holds (`of` in a replay).
    pub fn steps(&self) -> usize {
        self.steps as usize
    }

    /// How many bytes the steps take.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// The room's version at step `n`.
    pub fn version_at(&self, n: usize) -> u64 {
        self.version + n as u64
    }

    /// Starts a log for a game set up at `now` in a room whose version becomes `version`.
    pub(super) fn start(
        version: u64,
        at: Millis,
        updated_at: Millis,
        host: u8,
        words: u128,
    ) -> Self {
        GameLog {
            version,
            at,
            lag: updated_at.saturating_sub(at),
            host,
            words: u64::try_from(words).unwrap_or(u64::MAX),
            steps: 0,
            bytes: Vec::new(),
        }
    }

    /// Appends a step.
    fn push(&mut self, raw: &Raw) {
        raw.write(&mut self.bytes);
        self.steps += 1;
    }
}

/// A step as the log spells it, before its action is read ([`Raw::read`]) or after it was
/// written ([`Raw::write`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Raw {
    kind: u8,
    /// `None`: the player the game waited for (the common step).
    seat: Option<u8>,
    op: u8,
    payload: Vec<u8>,
    /// A computer player's move: the words its choice drew.
    words: Option<u64>,
    /// The time, as `now` less the room's `updatedAt` before the step, where stored.
    delta: Option<i64>,
}

impl Raw {
    /// Whether the step is the common one, written as a single varint.
    fn common(&self) -> bool {
        self.kind == KIND_ACT && self.seat.is_none()
    }

    fn write(&self, out: &mut Vec<u8>) {
        if self.common() {
            // Two bytes, little-endian, `ms << 1 | 1`, up to 32.766 s; past it the escape
            // (all ones) and a varint of the whole time.
            let ms = u64::try_from(self.delta.unwrap_or(0)).unwrap_or(0);
            let short = ms.min(COMMON_ESCAPE) as u16;
            out.extend_from_slice(&(short << 1 | 1).to_le_bytes());
            if ms >= COMMON_ESCAPE {
                put_varint(out, ms);
            }
            return;
        }
        let seat = self.seat.unwrap_or(0);
        let short = self.op.min(3);
        out.push(self.kind << 1 | seat << 3 | short << 6);
        if short == 3 {
            out.push(self.op);
        }
        out.extend_from_slice(&self.payload);
        if let Some(words) = self.words {
            put_varint(out, words);
        }
        if let Some(delta) = self.delta {
            put_varint(out, zigzag(delta));
        }
    }

    /// Reads one step (its action's payload measured by reading the action,
    /// [`Game::read_action`]) and the action, for actions and computer players' moves.
    fn read<G: Game>(
        input: &mut &[u8],
        options: &G::Options,
        seats: usize,
    ) -> Option<(Raw, Option<G::Action>)> {
        let first = *input.first()?;
        if first & 1 == 1 {
            let low = take_byte(input)?;
            let high = take_byte(input)?;
            let mut ms = u64::from(u16::from_le_bytes([low, high]) >> 1);
            if ms == COMMON_ESCAPE {
                ms = take_varint(input).filter(|&ms| ms >= COMMON_ESCAPE)?;
            }
            let raw = Raw {
                kind: KIND_ACT,
                seat: None,
                op: 0,
                payload: Vec::new(),
                words: None,
                delta: Some(i64::try_from(ms).ok()?),
            };
            let action = G::read_action(options, 0, &mut &[][..])?;
            return Some((raw, Some(action)));
        }
        let header = take_byte(input)?;
        let (kind, seat) = (header >> 1 & 3, header >> 3 & 7);
        if usize::from(seat) >= seats {
            return None;
        }
        let op = match header >> 6 {
            3 => match take_byte(input)? {
                op @ 3..=7 => op,
                _ => return None,
            },
            op => op,
        };
        let mut raw = Raw {
            kind,
            seat: Some(seat),
            op,
            payload: Vec::new(),
            words: None,
            delta: None,
        };
        let mut action = None;
        if kind == KIND_ACT || kind == KIND_BOT {
            let before = *input;
            action = Some(G::read_action(options, op, input)?);
            raw.payload = before[..before.len() - input.len()].to_vec();
        }
        let time = |input: &mut &[u8]| take_varint(input).map(unzigzag);
        match kind {
            KIND_ACT => raw.delta = Some(time(input)?),
            KIND_BOT => raw.words = Some(take_varint(input)?),
            KIND_TIMEOUT => match op {
                0 => raw.delta = Some(time(input)?),
                AT_DEADLINE => {}
                _ => return None,
            },
            _ => {
                if op != 0 {
                    return None;
                }
                raw.delta = Some(time(input)?);
            }
        }
        Some((raw, action))
    }
}

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint from the front of `input`, strictly: `None` if it runs past the end,
/// past 64 bits, or ends with a redundant zero byte.
pub(crate) fn take_varint(input: &mut &[u8]) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        let bits = u64::from(byte & 0x7f);
        if shift == 63 && bits > 1 {
            return None;
        }
        v |= bits << shift;
        if byte & 0x80 == 0 {
            // A last byte of 0 after others adds nothing: the encoder never writes it.
            if byte == 0 && shift > 0 {
                return None;
            }
            return Some(v);
        }
    }
    None
}

/// Reads one byte from the front of `input`.
pub(crate) fn take_byte(input: &mut &[u8]) -> Option<u8> {
    let (&byte, rest) = input.split_first()?;
    *input = rest;
    Some(byte)
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Why a replay cannot be given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The room is still a lobby: no game to replay.
    #[error("아직 시작하지 않은 게임이에요.")]
    NotStarted,
    /// The game started before rooms kept a replay log (or its log was dropped).
    #[error("이 게임은 다시 보기 기록이 없어요. 다시 보기가 생기기 전에 시작한 게임이에요.")]
    NotKept,
    /// No step `at`: the game has `of` steps.
    #[error("{at}번째 수는 없어요. 이 게임은 {of}수까지 있어요.")]
    StepNotFound {
        /// The step asked for.
        at: u64,
        /// How many steps the game has.
        of: usize,
    },
    /// The log does not decode, or a step does not replay: a bug, never the client's fault.
    #[error("replay log broken at step {0}")]
    Broken(usize),
}

impl ReplayError {
    /// The stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ReplayError::NotStarted | ReplayError::StepNotFound { .. } => "STEP_NOT_FOUND",
            ReplayError::NotKept => "REPLAY_NOT_KEPT",
            ReplayError::Broken(_) => "INTERNAL",
        }
    }

    /// The codes a client can be answered with (`Broken` is a bug, answered `INTERNAL`).
    pub const CODES: [&'static str; 2] = ["STEP_NOT_FOUND", "REPLAY_NOT_KEPT"];
}

/// One decoded step. `seat: None`: the player the game waited for.
#[derive(Debug)]
#[derive_where::derive_where(Clone)]
enum Step<G: Game> {
    Act {
        seat: Option<usize>,
        action: G::Action,
        delta: i64,
    },
    Timeout {
        seat: usize,
        delta: Option<i64>,
    },
    Bot {
        seat: usize,
        action: G::Action,
        words: u64,
    },
    Leave {
        seat: usize,
        delta: i64,
    },
}

impl<G: Game> Step<G> {
    fn of(raw: Raw, action: Option<G::Action>) -> Option<Step<G>> {
        let seat = raw.seat.map(usize::from);
        Some(match raw.kind {
            KIND_ACT => Step::Act {
                seat,
                action: action?,
                delta: raw.delta?,
            },
            KIND_TIMEOUT => Step::Timeout {
                seat: seat?,
                delta: raw.delta,
            },
            KIND_BOT => Step::Bot {
                seat: seat?,
                action: action?,
                words: raw.words?,
            },
            _ => Step::Leave {
                seat: seat?,
                delta: raw.delta?,
            },
        })
    }
}

/// A step as read: its raw form and, for actions and computer players' moves, the action.
type Read<G> = (Raw, Option<<G as Game>::Action>);

/// Reads every step of `log`, strictly: `Broken(n)` names the first step that does not read
/// (or the last, when bytes follow it).
fn read_raw<G: Game>(
    log: &GameLog,
    options: &G::Options,
    seats: usize,
) -> Result<Vec<Read<G>>, ReplayError> {
    let mut input = log.bytes.as_slice();
    let mut steps = Vec::with_capacity(log.steps());
    for i in 0..log.steps() {
        steps.push(Raw::read::<G>(&mut input, options, seats).ok_or(ReplayError::Broken(i + 1))?);
    }
    if !input.is_empty() {
        return Err(ReplayError::Broken(log.steps()));
    }
    Ok(steps)
}

fn decode_steps<G: Game>(
    log: &GameLog,
    options: &G::Options,
    seats: usize,
) -> Result<Vec<Step<G>>, ReplayError> {
    read_raw::<G>(log, options, seats)?
        .into_iter()
        .enumerate()
        .map(|(i, (raw, action))| Step::of(raw, action).ok_or(ReplayError::Broken(i + 1)))
        .collect()
}

impl GameLog {
    /// Spells out, oldest first, the last `spelled.len()` steps whose action the state's record
    /// kept ([`Game::recorded_op`]) and no longer keeps (an action took them back): each gets
    /// its player's seat, the op and the payload given, and keeps its time. `None`: the log does
    /// not have that many such steps, or does not read (the caller drops it).
    fn take_back<G: Game>(
        &mut self,
        options: &G::Options,
        seats: usize,
        spelled: Vec<(usize, u8, Vec<u8>)>,
    ) -> Option<()> {
        let mut raws = read_raw::<G>(self, options, seats).ok()?;
        let recorded: Vec<usize> = raws
            .iter()
            .enumerate()
            .filter(|(_, (raw, _))| {
                (raw.kind == KIND_ACT || raw.kind == KIND_BOT) && G::recorded_op(raw.op)
            })
            .map(|(i, _)| i)
            .collect();
        let first = recorded.len().checked_sub(spelled.len())?;
        for (&i, (seat, op, payload)) in recorded[first..].iter().zip(spelled) {
            let raw = &mut raws[i].0;
            raw.seat = Some(
                u8::try_from(seat)
                    .ok()
                    .filter(|&s| usize::from(s) < MAX_LOGGED_SEATS)?,
            );
            raw.op = op;
            raw.payload = payload;
        }
        let mut bytes = Vec::with_capacity(self.bytes.len() + 3 * recorded.len().min(8));
        for (raw, _) in &raws {
            raw.write(&mut bytes);
        }
        self.bytes = bytes;
        Some(())
    }
}

/// What the room works out before an action is applied, to log it after.
pub(super) struct Before {
    /// The seat of the player the game waited for.
    awaited: Option<usize>,
    /// What the action takes off the state's record ([`Game::taken_back`]), with each step's
    /// player.
    back: Vec<(PlayerId, u8, Vec<u8>)>,
}

impl<G: Game> Room<G> {
    /// The seat of `player` if the log can name it.
    fn log_seat(&self, player: &PlayerId) -> Option<usize> {
        self.seats
            .iter()
            .position(|m| &m.id == player)
            .filter(|&s| s < MAX_LOGGED_SEATS)
    }

    /// Starts the log of the game that starts now (at version `version`, `updated_at`).
    pub(super) fn log_start(&mut self, now: Millis, words: u128) {
        let host = self.log_seat(&self.host.clone());
        let too_many = self.seats.len() > MAX_LOGGED_SEATS;
        self.replay = match host {
            Some(host) if !too_many => Some(GameLog::start(
                self.version + 1,
                now,
                self.updated_at.max(now),
                host as u8,
                words,
            )),
            _ => None,
        };
    }

    /// What logging `action` on `before` needs to know of the state before it: the player the
    /// game waits for, and what the action takes off the state's record. Nothing when the room
    /// keeps no log.
    pub(super) fn before_logging(&self, before: &G::State, action: &G::Action) -> Before {
        if self.replay.is_none() {
            return Before {
                awaited: None,
                back: Vec::new(),
            };
        }
        Before {
            awaited: G::active_players(before)
                .first()
                .and_then(|p| self.log_seat(p)),
            back: G::taken_back(&self.options, before, action),
        }
    }

    /// Logs an accepted action (before the room's `accept`); `before`: [`Room::before_logging`].
    pub(super) fn log_act(
        &mut self,
        player: &PlayerId,
        action: &G::Action,
        now: Millis,
        before: Before,
    ) {
        let delta = self.delta(now);
        self.log_action(KIND_ACT, player, action, Some(delta), None, before);
    }

    /// Logs a computer player's move whose choice drew `words` words of the generator.
    pub(super) fn log_bot(
        &mut self,
        player: &PlayerId,
        action: &G::Action,
        words: u64,
        before: Before,
    ) {
        self.log_action(KIND_BOT, player, action, None, Some(words), before);
    }

    fn log_action(
        &mut self,
        kind: u8,
        player: &PlayerId,
        action: &G::Action,
        delta: Option<i64>,
        words: Option<u64>,
        before: Before,
    ) {
        let Some(seat) = self.log_seat(player) else {
            self.replay = None;
            return;
        };
        self.spell_out(before.back);
        let mut payload = Vec::new();
        let op = G::log_action(&self.options, action, &mut payload);
        let common =
            kind == KIND_ACT && op == 0 && payload.is_empty() && before.awaited == Some(seat);
        let raw = Raw {
            kind,
            seat: (!common).then_some(seat as u8),
            op,
            payload,
            words,
            delta,
        };
        if let Some(log) = self.replay.as_mut() {
            log.push(&raw);
        }
    }

    fn spell_out(&mut self, back: Vec<(PlayerId, u8, Vec<u8>)>) {
        if back.is_empty() {
            return;
        }
        let seats = self.seats.len();
        let spelled: Option<Vec<(usize, u8, Vec<u8>)>> = back
            .into_iter()
            .map(|(p, op, payload)| Some((self.log_seat(&p)?, op, payload)))
            .collect();
        let kept = spelled.and_then(|spelled| {
            self.replay
                .as_mut()
                .and_then(|log| log.take_back::<G>(&self.options, seats, spelled))
        });
        if kept.is_none() {
            // Never a log that would replay something else: none at all.
            self.replay = None;
        }
    }

    /// Logs a timeout fired for `player` at `at`; `deadline` is the game's own deadline then.
    pub(super) fn log_timeout(&mut self, player: &PlayerId, at: Millis, deadline: Option<Millis>) {
        let Some(seat) = self.log_seat(player) else {
            self.replay = None;
            return;
        };
        let (op, delta) = if deadline == Some(at) {
            (AT_DEADLINE, None)
        } else {
            (0, Some(self.delta(at)))
        };
        let raw = Raw {
            kind: KIND_TIMEOUT,
            seat: Some(seat as u8),
            op,
            payload: Vec::new(),
            words: None,
            delta,
        };
        if let Some(log) = self.replay.as_mut() {
            log.push(&raw);
        }
    }

    /// Logs `player` leaving the running game at `now`.
    pub(super) fn log_leave(&mut self, player: &PlayerId, now: Millis) {
        let Some(seat) = self.log_seat(player) else {
            self.replay = None;
            return;
        };
        let raw = Raw {
            kind: KIND_LEAVE,
            seat: Some(seat as u8),
            op: 0,
            payload: Vec::new(),
            words: None,
            delta: Some(self.delta(now)),
        };
        if let Some(log) = self.replay.as_mut() {
            log.push(&raw);
        }
    }

    fn delta(&self, now: Millis) -> i64 {
        (now as i64).wrapping_sub(self.updated_at as i64)
    }

    /// The game's log, if the room keeps one.
    pub fn game_log(&self) -> Option<&GameLog> {
        self.replay.as_ref()
    }

    /// Replays one step on this (replayed) room; `record`: the latest state, whose record
    /// fills in the steps the log left to it ([`Game::resolve_logged`]).
    fn replay_step(&mut self, step: &Step<G>, record: &G::State) -> Option<()> {
        let player = |room: &Self, seat: usize| room.seats.get(seat).map(|m| m.id.clone());
        match step {
            Step::Act {
                seat,
                action,
                delta,
            } => {
                let state = self.game.as_ref()?;
                let player = match seat {
                    Some(seat) => player(self, *seat)?,
                    None => G::active_players(state).into_iter().next()?,
                };
                let now = self.updated_at.wrapping_add_signed(*delta);
                let action = G::resolve_logged(record, state, action.clone())?;
                self.act(&player, RoomAction::Game(action), now).ok()?;
            }
            Step::Leave { seat, delta } => {
                let player = player(self, *seat)?;
                let now = self.updated_at.wrapping_add_signed(*delta);
                self.act(&player, RoomAction::Lobby(super::LobbyAction::Leave), now)
                    .ok()?;
            }
            Step::Timeout { seat, delta } => {
                let player = player(self, *seat)?;
                let state = self.game.as_mut()?;
                let at = match delta {
                    Some(delta) => self.updated_at.wrapping_add_signed(*delta),
                    None => G::deadline(state)?,
                };
                let action = G::on_timeout(state, &player, at)?;
                G::apply(state, Actor::Timeout(&player), &action, &mut self.rng, at).ok()?;
                self.accept(at);
            }
            Step::Bot {
                seat,
                action,
                words,
            } => {
                let player = player(self, *seat)?;
                let at = self.updated_at + self.think_ms();
                let pos = self.rng.word_pos() + u128::from(*words);
                self.rng.set_word_pos(pos);
                let action = G::resolve_logged(record, self.game.as_ref()?, action.clone())?;
                let state = self.game.as_mut()?;
                G::apply(state, Actor::Player(&player), &action, &mut self.rng, at).ok()?;
                self.accept(at);
            }
        }
        Some(())
    }

    /// Everyone still in the room seen at the room's last change: how a replayed step is
    /// viewed (a replay has no presence; its `deadlineAt` is the game's own).
    pub fn replay_presence(&self) -> Presence {
        self.seats
            .iter()
            .map(|m| (m.id.clone(), self.updated_at))
            .collect()
    }
}

/// A game's replay: its decoded log and the room at every [`CHECKPOINT_EVERY`]-th step it has
/// replayed so far. Pure and reusable: keep one per room to step through a game cheaply
/// ([`Replay::extend`] takes the log of a newer version of the same room).
#[derive(Debug)]
#[derive_where::derive_where(Clone)]
pub struct Replay<G: Game> {
    log: GameLog,
    /// The latest state: its record fills in the steps the log left to it.
    record: G::State,
    steps: Vec<Step<G>>,
    /// `checkpoints[k]`: the room after step `k · CHECKPOINT_EVERY`.
    checkpoints: Vec<Room<G>>,
}

impl<G: Game> Replay<G> {
    /// The replay of `room`'s game: its log decoded, and the room at step 0.
    pub fn new(room: &Room<G>) -> Result<Self, ReplayError> {
        if room.game.is_none() {
            return Err(ReplayError::NotStarted);
        }
        let record = room.game.clone().ok_or(ReplayError::NotStarted)?;
        let log = room.replay.clone().ok_or(ReplayError::NotKept)?;
        let steps = decode_steps::<G>(&log, &room.options, room.seats.len())?;
        let start = Self::start(room, &log).ok_or(ReplayError::Broken(0))?;
        Ok(Replay {
            log,
            record,
            steps,
            checkpoints: vec![start],
        })
    }

    /// The room right after its `start`, from the stored room and its log.
    fn start(room: &Room<G>, log: &GameLog) -> Option<Room<G>> {
        let host = room.seats.get(usize::from(log.host))?.id.clone();
        let mut rng = room.rng.clone();
        rng.set_word_pos(u128::from(log.words));
        let mut start = Room {
            id: room.id.clone(),
            version: log.version.checked_sub(1)?,
            host: host.clone(),
            seats: room
                .seats
                .iter()
                .map(|m| Member {
                    left: false,
                    ..m.clone()
                })
                .collect(),
            options: room.options.clone(),
            game: None,
            rng,
            created_at: room.created_at,
            updated_at: log.at,
            next_player_no: room.next_player_no,
            ledger: Default::default(),
            barred: Vec::new(),
            rematch: None,
            push: Vec::new(),
            reminded: None,
            replay: None,
        };
        start
            .act(&host, RoomAction::Lobby(super::LobbyAction::Start), log.at)
            .ok()?;
        start.replay = None;
        start.updated_at = log.at + log.lag;
        Some(start)
    }

    /// How many steps the game has (`of`).
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// Takes the log of a newer version of the same room, keeping the checkpoints already made
    /// when the new log continues this one (a game in progress only ever appends); else starts
    /// over from `room`.
    pub fn extend(&mut self, room: &Room<G>) -> Result<(), ReplayError> {
        let continues = room.replay.as_ref().is_some_and(|log| {
            log.version == self.log.version
                && log.at == self.log.at
                && log.words == self.log.words
                && log.bytes.starts_with(&self.log.bytes)
        });
        if !continues {
            *self = Replay::new(room)?;
            return Ok(());
        }
        if room.replay.as_ref() == Some(&self.log) {
            return Ok(());
        }
        let fresh = Replay::new(room)?;
        self.log = fresh.log;
        self.record = fresh.record;
        self.steps = fresh.steps;
        Ok(())
    }

    /// The room as it stood after step `n` (0: right after the start), replayed from the
    /// nearest checkpoint at or before it; checkpoints passed on the way are kept.
    pub fn at(&mut self, n: u64) -> Result<Room<G>, ReplayError> {
        let of = self.steps.len();
        let step = usize::try_from(n)
            .ok()
            .filter(|&s| s <= of)
            .ok_or(ReplayError::StepNotFound { at: n, of })?;
        let known = (self.checkpoints.len() - 1) * CHECKPOINT_EVERY;
        let from = known.min(step / CHECKPOINT_EVERY * CHECKPOINT_EVERY);
        let mut room = self.checkpoints[from / CHECKPOINT_EVERY].clone();
        for i in from..step {
            room.replay_step(&self.steps[i], &self.record)
                .ok_or(ReplayError::Broken(i + 1))?;
            let done = i + 1;
            if done % CHECKPOINT_EVERY == 0 && done / CHECKPOINT_EVERY == self.checkpoints.len() {
                self.checkpoints.push(room.clone());
            }
        }
        Ok(room)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baduk::{Baduk, BadukAction, BadukOptions};
    use crate::yut::{Action, Position, Yut, YutOptions};

    #[test]
    fn varints_round_trip_and_read_strictly() {
        for v in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut input = out.as_slice();
            assert_eq!(take_varint(&mut input), Some(v));
            assert!(input.is_empty());
        }
        for d in [0i64, -1, 1, -5_000, 86_400_000, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
        // Cut short, a redundant zero byte, more than 64 bits: refused.
        for bad in [
            &[0x80][..],
            &[0x80, 0x00],
            &[0xff; 10],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
        ] {
            assert_eq!(take_varint(&mut &bad[..]), None, "{bad:?}");
        }
    }

    fn round_trip<G: Game>(options: &G::Options, action: G::Action) -> usize {
        let mut out = Vec::new();
        let op = G::log_action(options, &action, &mut out);
        assert!(op < 8);
        let mut input = out.as_slice();
        assert_eq!(G::read_action(options, op, &mut input), Some(action));
        assert!(input.is_empty());
        out.len()
    }

    #[test]
    fn every_yut_action_round_trips_in_a_byte_or_two() {
        let o = YutOptions::default();
        assert_eq!(round_trip::<Yut>(&o, Action::Throw), 0);
        for code in 0..31 {
            let from = Position::from_code(code).unwrap();
            assert_eq!(
                round_trip::<Yut>(
                    &o,
                    Action::Move {
                        throw_index: 3,
                        from
                    }
                ),
                1
            );
            round_trip::<Yut>(
                &o,
                Action::Recommend {
                    throw_index: 9,
                    from,
                },
            );
        }
        round_trip::<Yut>(&o, Action::Concede);
        round_trip::<Yut>(&o, Action::TakeControl);
        // Unknown ops and positions are refused.
        assert_eq!(Yut::read_action(&o, 5, &mut &[][..]), None);
        assert_eq!(Yut::read_action(&o, 1, &mut &[31][..]), None);
        assert_eq!(Yut::read_action(&o, 1, &mut &[][..]), None);
    }

    #[test]
    fn every_baduk_action_round_trips_and_points_off_the_board_are_refused() {
        let o = BadukOptions::default();
        // Stones and passes are the move list's: the log writes no point for them.
        let mut out = Vec::new();
        let op = Baduk::log_action(&o, &BadukAction::Place { x: 18, y: 18 }, &mut out);
        assert!(out.is_empty() && Baduk::recorded_op(op));
        assert_eq!(
            Baduk::read_action(&o, op, &mut &[][..]),
            Some(crate::baduk::action::FROM_THE_RECORD)
        );
        // A move an undo took back is spelled out: a point, or size² for a pass.
        let (op, payload) = crate::baduk::action::spell_out(None, 19);
        assert!(!Baduk::recorded_op(op));
        assert_eq!(
            Baduk::read_action(&o, op, &mut payload.as_slice()),
            Some(BadukAction::Pass {})
        );
        let p = crate::baduk::Point { x: 18, y: 17 };
        let (op, payload) = crate::baduk::action::spell_out(Some(p), 19);
        assert_eq!(payload.len(), 2);
        assert_eq!(
            Baduk::read_action(&o, op, &mut payload.as_slice()),
            Some(BadukAction::Place { x: 18, y: 17 })
        );
        assert_eq!(
            round_trip::<Baduk>(&o, BadukAction::ToggleDead { x: 0, y: 0 }),
            1
        );
        round_trip::<Baduk>(&o, BadukAction::ToggleSeki { x: 5, y: 9 });
        for a in [
            BadukAction::AgreeScore {},
            BadukAction::ResumePlay {},
            BadukAction::Resign {},
        ] {
            assert_eq!(round_trip::<Baduk>(&o, a), 0);
        }
        for a in crate::baduk::action::MORE {
            assert_eq!(round_trip::<Baduk>(&o, a), 1);
        }
        let mut off = Vec::new();
        put_varint(&mut off, 361);
        assert_eq!(Baduk::read_action(&o, 2, &mut off.as_slice()), None);
        let mut past = Vec::new();
        put_varint(&mut past, 362);
        assert_eq!(Baduk::read_action(&o, 1, &mut past.as_slice()), None);
        assert_eq!(Baduk::read_action(&o, 7, &mut &[8][..]), None);
    }

    fn raw(kind: u8, seat: Option<u8>, op: u8, delta: Option<i64>) -> Raw {
        Raw {
            kind,
            seat,
            op,
            payload: Vec::new(),
            words: None,
            delta,
        }
    }

    #[test]
    fn steps_round_trip_and_the_common_one_is_two_bytes() {
        let o = YutOptions::default();
        let mut log = GameLog::start(5, 1_000, 1_000, 0, 0);
        let steps = [
            raw(KIND_ACT, None, 0, Some(5_000)),
            raw(KIND_ACT, None, 0, Some(32_766)),
            raw(KIND_ACT, None, 0, Some(32_767)),
            raw(KIND_ACT, None, 0, Some(86_400_000)),
            raw(KIND_ACT, Some(1), 0, Some(-3)),
            Raw {
                payload: vec![0x21],
                ..raw(KIND_ACT, Some(1), 1, Some(700))
            },
            Raw {
                words: Some(0),
                ..raw(KIND_BOT, Some(2), 0, None)
            },
            raw(KIND_TIMEOUT, Some(0), AT_DEADLINE, None),
            raw(KIND_TIMEOUT, Some(0), 0, Some(30_000)),
            raw(KIND_LEAVE, Some(2), 0, Some(1)),
            raw(KIND_ACT, Some(0), 4, Some(2)),
        ];
        for step in &steps {
            log.push(step);
        }
        // 5 s: two bytes, `5000 << 1 | 1` little-endian.
        assert_eq!(&log.bytes[..2], &[0x11, 0x27]);
        let back: Vec<Raw> = read_raw::<Yut>(&log, &o, 3)
            .unwrap()
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        assert_eq!(back, steps);
        assert_eq!(decode_steps::<Yut>(&log, &o, 3).unwrap().len(), steps.len());
    }

    #[test]
    fn a_log_with_a_byte_too_many_or_a_seat_nobody_has_does_not_decode() {
        let o = YutOptions::default();
        let mut log = GameLog::start(5, 1_000, 1_000, 0, 0);
        log.push(&raw(KIND_ACT, Some(1), 0, Some(700)));
        assert_eq!(decode_steps::<Yut>(&log, &o, 2).map(|s| s.len()), Ok(1));
        assert_eq!(
            decode_steps::<Yut>(&log, &o, 1).err(),
            Some(ReplayError::Broken(1))
        );
        let mut longer = log.clone();
        longer.bytes.push(0);
        assert_eq!(
            decode_steps::<Yut>(&longer, &o, 2).err(),
            Some(ReplayError::Broken(1))
        );
        let mut cut = log.clone();
        cut.bytes.pop();
        assert_eq!(
            decode_steps::<Yut>(&cut, &o, 2).err(),
            Some(ReplayError::Broken(1))
        );
        // A timeout with an op it never writes; an op byte of 0–2 after the escape.
        for bad in [
            vec![KIND_TIMEOUT << 1 | 2 << 6, 0],
            vec![KIND_ACT << 1 | 3 << 6, 2, 0],
            vec![KIND_LEAVE << 1 | 1 << 6, 0],
        ] {
            let odd = GameLog {
                steps: 1,
                bytes: bad.clone(),
                ..GameLog::start(5, 1_000, 1_000, 0, 0)
            };
            assert_eq!(
                decode_steps::<Yut>(&odd, &o, 2).err(),
                Some(ReplayError::Broken(1)),
                "{bad:?}"
            );
        }
    }
}
