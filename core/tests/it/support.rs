//! Shared helpers for the 윷놀이 integration tests: a table of players around one game.
#![allow(dead_code)]

use madang_core::yut::{
    Action, Event, Node, Position, Throw, Toss, Yut, YutError, YutOptions, YutState,
};
use madang_core::{Actor, Game, GameRng, Lineup, Millis, PlayerId};

/// One game, its generator and a clock.
pub struct Table {
    pub state: YutState,
    pub rng: GameRng,
    pub now: Millis,
}

pub fn players(n: usize) -> Vec<PlayerId> {
    (0..n).map(|i| PlayerId::new(format!("p{i}"))).collect()
}

pub fn lineup(n: usize) -> Lineup {
    let players = players(n);
    Lineup {
        host: players[0].clone(),
        players,
    }
}

pub fn node(n: u8) -> Position {
    Position::Board(Node::new(n).unwrap())
}

impl Table {
    pub fn new(n: usize, options: YutOptions) -> Table {
        Table::with_seed(n, options, 1)
    }

    pub fn with_seed(n: usize, options: YutOptions, seed: u64) -> Table {
        let mut rng = GameRng::seed_from_u64(seed);
        let state = Yut::setup(&lineup(n), &options, &mut rng, 0).unwrap();
        Table { state, rng, now: 0 }
    }

    /// A table whose next throws come out as `wanted` (`None` = 낙): searches seeds, so the
    /// throws themselves still go through `apply` and the generator.
    pub fn rigged(n: usize, options: YutOptions, wanted: &[Option<Throw>]) -> Table {
        for seed in 0..1_000_000 {
            let table = Table::with_seed(n, options.clone(), seed);
            let mut rng = table.rng.clone();
            if wanted
                .iter()
                .all(|&w| Toss::draw(&mut rng, &options).result() == w)
            {
                return table;
            }
        }
        panic!("no seed throws {wanted:?}");
    }

    pub fn p(&self, seat: usize) -> PlayerId {
        self.state.players()[seat].clone()
    }

    pub fn act(&mut self, seat: usize, action: Action) -> Result<Vec<Event>, YutError> {
        let player = self.p(seat);
        self.now += 1_000;
        Yut::apply(
            &mut self.state,
            Actor::Player(&player),
            &action,
            &mut self.rng,
            self.now,
        )
    }

    pub fn throw(&mut self, seat: usize) -> Vec<Event> {
        self.act(seat, Action::Throw).unwrap()
    }

    pub fn mv(&mut self, seat: usize, throw_index: usize, from: Position) -> Vec<Event> {
        self.act(seat, Action::Move { throw_index, from }).unwrap()
    }

    /// Moves using the first pending result equal to `throw`.
    pub fn use_throw(&mut self, seat: usize, throw: Throw, from: Position) -> Vec<Event> {
        let i = self
            .state
            .pending()
            .iter()
            .position(|&t| t == throw)
            .unwrap();
        self.mv(seat, i, from)
    }

    pub fn place(&mut self, side: u8, piece: usize, at: Position, trail: &[u8]) {
        self.state.debug_place(side, piece, at, trail);
    }

    pub fn turn(&mut self, seat: usize, pending: &[Throw]) {
        let player = self.p(seat);
        self.state.debug_set_turn(&player, pending);
    }

    pub fn at(&self, side: u8, piece: usize) -> Position {
        self.state.sides()[usize::from(side)].pieces()[piece].position()
    }

    pub fn current(&self) -> Option<PlayerId> {
        self.state.current_player().cloned()
    }
}
