//! Ruling B7: every game ends. Two bounds, both plain data.
//!
//! - **A move limit from the board size**: [`move_limit`] is twice the number of points
//!   (162 on 9×9, 338 on 13×13, 722 on 19×19), passes counted. The move that reaches it starts
//!   the scoring phase as two passes would, and that phase cannot be resumed: the game is
//!   counted as it stands, dead stones decided by the marks (suggested, then toggled and agreed,
//!   or taken as they are when the scoring deadline passes).
//! - **A cap on resumes**: each player may leave the scoring phase with `resumePlay` at most
//!   [`RESUMES_PER_PLAYER`] times a game.
//!
//! Why these figures: the longest professional game on record is 411 moves on 19×19 (Yamabe
//! vs. Hoshino, 1950), and 2 × points is the maximum game length AlphaZero's self-play used for
//! 19×19 Go (722), so the limit ends only games that are no longer being played for the board.
//! Without it `pass, pass, resumePlay` repeats for ever, and since every save rewrites the whole
//! move list, the stored room grows until the store refuses it (DynamoDB's 400 KB item near
//! 360,000 moves). Resuming is a dispute about life and death; a real one is played out once or
//! twice, and a cap per player means one player's disputes never use up the other's.

use super::options::BadukOptions;

/// How many times each player may resume play from the scoring phase in one game (B7).
pub const RESUMES_PER_PLAYER: u8 = 2;

/// How many moves a game may hold, passes counted: twice the points of the board (B7).
pub fn move_limit(options: &BadukOptions) -> usize {
    let size = usize::from(options.size());
    2 * size * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_move_limit_is_twice_the_points_of_the_board() {
        let limits = [9, 13, 19].map(|size| {
            let options: BadukOptions =
                serde_json::from_str(&format!(r#"{{"boardSize": {size}}}"#)).unwrap();
            move_limit(&options)
        });
        assert_eq!(limits, [162, 338, 722]);
    }
}
