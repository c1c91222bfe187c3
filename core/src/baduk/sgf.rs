//! SGF (`FF[4]`) export of a game, and an importer of game records (main line only).

use std::fmt::Write as _;

use super::Baduk;
use super::color::Color;
use super::options::{BadukOptions, ClockKind, ScoringMethod};
use super::point::Point;
use super::position::Played;
use super::result::EndReason;
use super::state::BadukState;
use crate::game::Millis;
use crate::room::Room;

/// Escapes an SGF text value (`]`, `\` and `:` are special inside values).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, ']' | '\\' | ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// The clock as SGF's `TM` (main time in seconds, per player) and `OT` (the overtime, free
/// text): byo-yomi `TM[1200]OT[3x30 byo-yomi]`, Fischer `TM[600]OT[Fischer +10s/move]`, and a
/// correspondence clock, which has no main time to give `TM`, only `OT[3 days per move]`. No
/// clock: neither.
fn time_properties(options: &BadukOptions) -> String {
    let tc = &options.time_control;
    let main = options.main_ms() / 1000;
    match tc.kind {
        ClockKind::Byoyomi => format!("TM[{main}]OT[{}x{} byo-yomi]", tc.periods, tc.period_sec),
        ClockKind::Fischer => format!("TM[{main}]OT[Fischer +{}s/move]", tc.inc_sec),
        ClockKind::Correspondence => {
            let days = tc.days_per_move;
            let unit = if days == 1 { "day" } else { "days" };
            format!("OT[{days} {unit} per move]")
        }
        ClockKind::None => String::new(),
    }
}

/// The game as an SGF record: `FF[4] GM[1] SZ KM HA` and the handicap stones `AB`, `RU`,
/// `TM`/`OT` (the clock), `PB`/`PW`, `DT` (as given, e.g. `2026-11-29`), `RE` once finished,
/// then every move and pass (`B[]`/`W[]`). Works for any state, finished or not.
pub fn export(state: &BadukState, black_name: &str, white_name: &str, date: &str) -> String {
    let options = state.options();
    let size = options.size();
    let mut out = String::with_capacity(64 + state.moves().len() * 6);
    // Komi alone: `RU[Chinese]` with `HA` implies white's handicap compensation (B5).
    let komi = f64::from(options.komi_halves()) / 2.0;
    let _ = write!(
        out,
        "(;FF[4]GM[1]CA[UTF-8]AP[Madang]SZ[{size}]KM[{}]",
        number(komi)
    );
    if options.handicap >= 2 {
        let _ = write!(out, "HA[{}]AB", options.handicap);
        for p in super::handicap::points(size, options.handicap) {
            let _ = write!(out, "[{}]", p.sgf());
        }
    }
    let rules = match options.scoring {
        ScoringMethod::Territory => "Korean",
        ScoringMethod::Area => "Chinese",
    };
    let _ = write!(
        out,
        "RU[{rules}]{}PB[{}]PW[{}]DT[{}]",
        time_properties(options),
        escape(black_name),
        escape(white_name),
        escape(date)
    );
    if let Some(result) = state.result() {
        let re = match (result.reason, result.winner) {
            (EndReason::Jigo, _) => "0".to_owned(),
            (_, None) => "Draw".to_owned(),
            (EndReason::Resign, Some(w)) => format!("{}+R", w.sgf()),
            (EndReason::TimeLoss, Some(w)) => format!("{}+T", w.sgf()),
            (_, Some(w)) => match &result.score {
                Some(score) => format!("{}+{}", w.sgf(), number(score.margin)),
                None => format!("{}+", w.sgf()),
            },
        };
        let _ = write!(out, "RE[{re}]");
    }
    for m in state.moves() {
        let at = m.point.map(Point::sgf).unwrap_or_default();
        let _ = write!(out, ";{}[{at}]", m.color.sgf());
    }
    out.push_str(")\n");
    out
}

/// Why a text is not a readable SGF record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SgfError {
    /// No `(;` game tree where one was expected.
    #[error("not an SGF game tree at byte {0}")]
    NotATree(usize),
    /// A value `[` was not closed.
    #[error("unterminated property value at byte {0}")]
    Unterminated(usize),
    /// A property value could not be read (e.g. `SZ[x]`).
    #[error("bad value for {0}")]
    BadValue(&'static str),
}

/// The main line of the first game tree of an SGF file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SgfRecord {
    /// `SZ` (19 when absent).
    pub size: u32,
    /// `KM`, if given.
    pub komi: Option<f64>,
    /// `HA` (0 when absent).
    pub handicap: u32,
    /// `AB` before the first move (the root, or a Fox-style setup node after it).
    pub black_setup: Vec<Point>,
    /// `AW` before the first move.
    pub white_setup: Vec<Point>,
    /// Whether setup (`AB`, `AW`, `AE`) appears after the first move, or `AE` at all.
    pub later_setup: bool,
    /// `B`/`W` moves along the main line; `None` point for a pass.
    pub moves: Vec<Played>,
    /// `PB`.
    pub black_name: Option<String>,
    /// `PW`.
    pub white_name: Option<String>,
    /// `RE`.
    pub result: Option<String>,
    /// `RU`.
    pub rules: Option<String>,
    /// `TM` (seconds), if given.
    pub time_limit: Option<f64>,
    /// `OT`, if given.
    pub overtime: Option<String>,
    /// The concatenated `C` comments of the main line.
    pub comments: String,
    /// Game trees in the file (only the first is read).
    pub trees: usize,
}

impl SgfRecord {
    /// The options this record was played with (size, komi, handicap); other options default.
    pub fn options(&self) -> BadukOptions {
        BadukOptions {
            board_size: self.size,
            komi: self.komi,
            handicap: self.handicap,
            ..BadukOptions::default()
        }
    }
}

type Node = Vec<(String, Vec<String>)>;

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }

    /// Reads a game tree, returning its main line of nodes (first variation at each branch).
    fn tree(&mut self) -> Result<Vec<Node>, SgfError> {
        if self.peek() != Some(b'(') {
            return Err(SgfError::NotATree(self.at));
        }
        self.at += 1;
        let mut nodes = Vec::new();
        while self.peek() == Some(b';') {
            self.at += 1;
            nodes.push(self.node()?);
        }
        let mut first = true;
        while self.peek() == Some(b'(') {
            let variation = self.tree()?;
            if first {
                nodes.extend(variation);
                first = false;
            }
        }
        match self.peek() {
            Some(b')') => self.at += 1,
            // Leniency: a record cut off after its last node (no closing parentheses) is read
            // as if they were there.
            None => {}
            Some(_) => return Err(SgfError::NotATree(self.at)),
        }
        Ok(nodes)
    }

    fn node(&mut self) -> Result<Node, SgfError> {
        let mut node = Vec::new();
        loop {
            self.skip_space();
            let start = self.at;
            while self.at < self.text.len() && self.text[self.at].is_ascii_alphabetic() {
                self.at += 1;
            }
            if start == self.at {
                return Ok(node);
            }
            // FF[3] allows lowercase letters in identifiers ("AddBlack"); only capitals count.
            let ident: String = self.text[start..self.at]
                .iter()
                .filter(|b| b.is_ascii_uppercase())
                .map(|&b| b as char)
                .collect();
            let mut values = Vec::new();
            while self.peek() == Some(b'[') {
                values.push(self.value()?);
            }
            node.push((ident, values));
        }
    }

    fn value(&mut self) -> Result<String, SgfError> {
        let open = self.at;
        self.at += 1;
        let mut bytes = Vec::new();
        while let Some(&b) = self.text.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => {
                    if let Some(&next) = self.text.get(self.at) {
                        bytes.push(next);
                        self.at += 1;
                    }
                }
                b']' => return Ok(String::from_utf8_lossy(&bytes).into_owned()),
                _ => bytes.push(b),
            }
        }
        Err(SgfError::Unterminated(open))
    }
}

/// Reads the main line of the first game tree of `text`.
pub fn parse(text: &str) -> Result<SgfRecord, SgfError> {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let nodes = parser.tree()?;
    let mut trees = 1;
    while parser.peek() == Some(b'(') {
        parser.tree()?;
        trees += 1;
    }
    let mut record = SgfRecord {
        size: 19,
        trees,
        ..SgfRecord::default()
    };
    for node in &nodes {
        for (ident, values) in node {
            let first = values.first().map(String::as_str).unwrap_or("");
            match ident.as_str() {
                "SZ" => {
                    record.size = first
                        .split(':')
                        .next()
                        .and_then(|s| s.trim().parse().ok())
                        .ok_or(SgfError::BadValue("SZ"))?;
                }
                "KM" => record.komi = first.trim().parse().ok(),
                "HA" => {
                    record.handicap = first.trim().parse().map_err(|_| SgfError::BadValue("HA"))?
                }
                "AB" | "AW" if record.moves.is_empty() => {
                    let points = values.iter().filter_map(|v| Point::from_sgf(v));
                    if ident == "AB" {
                        record.black_setup.extend(points);
                    } else {
                        record.white_setup.extend(points);
                    }
                }
                "AB" | "AW" | "AE" => record.later_setup = true,
                "B" | "W" => {
                    let color = if ident == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    // `tt` is the FF[3] pass on boards up to 19 lines.
                    let point = match first {
                        "" => None,
                        "tt" if record.size <= 19 => None,
                        v => Some(Point::from_sgf(v).ok_or(SgfError::BadValue("B/W"))?),
                    };
                    record.moves.push(Played { color, point });
                }
                "PB" => record.black_name = Some(first.to_owned()),
                "PW" => record.white_name = Some(first.to_owned()),
                "RE" => record.result = Some(first.to_owned()),
                "RU" => record.rules = Some(first.to_owned()),
                "TM" => record.time_limit = first.trim().parse().ok(),
                "OT" => record.overtime = Some(first.to_owned()),
                "C" => {
                    record.comments.push_str(first);
                    record.comments.push('\n');
                }
                _ => {}
            }
        }
    }
    Ok(record)
}

/// The SGF record of a 바둑 room, with its players' names and the day it was created (an empty
/// game record before the game starts).
pub fn of_room(room: &Room<Baduk>) -> String {
    match &room.game {
        Some(state) => {
            let name = |color: Color| {
                let id = state.players().get(color);
                room.member(id).map_or(id.as_str(), |m| m.name.as_str())
            };
            let date = date_of(room.created_at);
            export(state, name(Color::Black), name(Color::White), &date)
        }
        None => String::from("(;FF[4]GM[1])"),
    }
}

/// `YYYY-MM-DD` of an epoch-ms time (UTC), for the SGF `DT` property.
fn date_of(ms: Millis) -> String {
    // Civil-from-days (Howard Hinnant's algorithm): no date crate needed for one field.
    let days = (ms / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_line_follows_first_variations() {
        let r = parse("(;SZ[9]KM[6.5];B[aa](;W[bb];B[])(;W[cc]))").unwrap();
        assert_eq!(r.size, 9);
        assert_eq!(r.komi, Some(6.5));
        assert_eq!(r.moves.len(), 3);
        assert_eq!(r.moves[1].point, Some(Point::new(1, 1)));
        assert_eq!(r.moves[2].point, None);
    }

    #[test]
    fn escaped_brackets_stay_inside_values() {
        let r = parse(r"(;C[a \] b]PB[x])").unwrap();
        assert_eq!(r.comments, "a ] b\n");
        assert_eq!(r.black_name.as_deref(), Some("x"));
        assert!(parse("not sgf").is_err());
        assert!(parse("(;C[open").is_err());
    }

    #[test]
    fn the_clock_is_written_as_tm_and_ot_and_read_back() {
        let with = |json: &str| time_properties(&serde_json::from_str(json).unwrap());
        assert_eq!(with("{}"), "TM[1200]OT[3x30 byo-yomi]");
        assert_eq!(
            with(r#"{"boardSize": 9, "timeControl": {"kind": "fischer"}}"#),
            "TM[180]OT[Fischer +10s/move]"
        );
        assert_eq!(
            with(r#"{"timeControl": {"kind": "correspondence", "daysPerMove": 3}}"#),
            "OT[3 days per move]"
        );
        assert_eq!(
            with(r#"{"timeControl": {"kind": "correspondence"}}"#),
            "OT[1 day per move]"
        );
        assert_eq!(with(r#"{"timeControl": {"kind": "none"}}"#), "");
        let r = parse("(;SZ[19]TM[1200]OT[3x30 byo-yomi])").unwrap();
        assert_eq!(r.time_limit, Some(1200.0));
        assert_eq!(r.overtime.as_deref(), Some("3x30 byo-yomi"));
    }

    #[test]
    fn dates_are_civil_utc_days() {
        assert_eq!(super::date_of(0), "1970-01-01");
        assert_eq!(super::date_of(1_795_990_000_000), "2026-11-29");
        assert_eq!(super::date_of(951_782_400_000), "2000-02-29");
    }
}
