//! Shared helpers for the 바둑 integration tests: a table with two players, a seeded generator
//! and a clock the test moves by hand.

#![allow(dead_code)]

use madang_core::baduk::{
    Baduk, BadukAction, BadukError, BadukEvent, BadukOptions, BadukState, Color, Point,
};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

/// A game between `black` and `white` (host `black`, `hostBlack`), with a hand-moved clock.
pub struct Table {
    pub state: BadukState,
    pub rng: GameRng,
    pub now: u64,
    pub black: PlayerId,
    pub white: PlayerId,
}

/// Options from JSON; `colorAssignment` is forced to `hostBlack` unless given.
pub fn options(json: &str) -> BadukOptions {
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value
        .as_object_mut()
        .unwrap()
        .entry("colorAssignment")
        .or_insert("hostBlack".into());
    serde_json::from_value(value).unwrap()
}

impl Table {
    /// A fresh game with these options (JSON).
    pub fn new(json: &str) -> Self {
        Self::with_options(options(json))
    }

    /// A fresh game with these options.
    pub fn with_options(options: BadukOptions) -> Self {
        let black = PlayerId::new("hana");
        let white = PlayerId::new("dul");
        let lineup = Lineup {
            players: vec![black.clone(), white.clone()],
            host: black.clone(),
        };
        let mut rng = GameRng::seed_from_u64(42);
        let state = Baduk::setup(&lineup, &options, &mut rng, 1_000).unwrap();
        assert_eq!(state.players().black, black);
        Table {
            state,
            rng,
            now: 1_000,
            black,
            white,
        }
    }

    /// The player of `color`.
    pub fn player(&self, color: Color) -> PlayerId {
        match color {
            Color::Black => self.black.clone(),
            Color::White => self.white.clone(),
        }
    }

    /// `color` acts, one second after the previous action.
    pub fn act(
        &mut self,
        color: Color,
        action: BadukAction,
    ) -> Result<Vec<BadukEvent>, BadukError> {
        self.now += 1_000;
        let player = self.player(color);
        Baduk::apply(
            &mut self.state,
            Actor::Player(&player),
            &action,
            &mut self.rng,
            self.now,
        )
    }

    /// The system fires `color`'s timeout.
    pub fn timeout(&mut self, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
        let player = self.player(color);
        let action = Baduk::on_timeout(&self.state, &player, self.now).expect("an awaited player");
        Baduk::apply(
            &mut self.state,
            Actor::Timeout(&player),
            &action,
            &mut self.rng,
            self.now,
        )
    }

    /// The side to move plays at `label` (`D4`).
    pub fn play(&mut self, label: &str) -> Result<Vec<BadukEvent>, BadukError> {
        let p =
            Point::from_label(label, self.state.options().size()).expect("a label on the board");
        self.play_at(p.x, p.y)
    }

    /// The side to move plays at `{x, y}`.
    pub fn play_at(&mut self, x: u8, y: u8) -> Result<Vec<BadukEvent>, BadukError> {
        let turn = self.state.turn();
        self.act(
            turn,
            BadukAction::Place {
                x: i32::from(x),
                y: i32::from(y),
            },
        )
    }

    /// The side to move passes.
    pub fn pass(&mut self) -> Result<Vec<BadukEvent>, BadukError> {
        let turn = self.state.turn();
        self.act(turn, BadukAction::Pass {})
    }

    /// Plays black's and white's stones alternately (black's first), padding the shorter list
    /// with passes, so that the stones stand without capturing anything.
    pub fn build(&mut self, black: &[(u8, u8)], white: &[(u8, u8)]) {
        for i in 0..black.len().max(white.len()) {
            for (color, list) in [(Color::Black, black), (Color::White, white)] {
                assert_eq!(
                    self.state.turn(),
                    color,
                    "build expects black to move first"
                );
                match list.get(i) {
                    Some(&(x, y)) => {
                        self.play_at(x, y).unwrap();
                    }
                    None => {
                        self.pass().unwrap();
                    }
                }
            }
        }
    }

    /// The stone at `{x, y}`.
    pub fn at(&self, x: u8, y: u8) -> Option<Color> {
        self.state.position().board().at(Point::new(x, y))
    }
}

/// Stones as `(x, y)` pairs.
pub type Stones = Vec<(u8, u8)>;

/// The ko shape of the tests, at offset `(ox, oy)`: black `(1,0) (0,1) (1,2)`, white
/// `(2,0) (3,1) (2,2)`, and the stone inside — white at `(1,1)` when `white_inside`, black at
/// `(2,1)` otherwise. Returns (black stones, white stones).
pub fn ko_shape(ox: u8, oy: u8, white_inside: bool) -> (Stones, Stones) {
    let mut black = vec![(ox + 1, oy), (ox, oy + 1), (ox + 1, oy + 2)];
    let mut white = vec![(ox + 2, oy), (ox + 3, oy + 1), (ox + 2, oy + 2)];
    if white_inside {
        white.push((ox + 1, oy + 1));
    } else {
        black.push((ox + 2, oy + 1));
    }
    (black, white)
}
