//! Fixed handicap placement (§4.3): the spec's table, not GTP's.

use super::point::Point;

/// The labels of the handicap stones for `stones` (2–9) on `size` lines, in the table's order;
/// empty for combinations the table does not have.
pub fn labels(size: u8, stones: u32) -> &'static [&'static str] {
    // Each row extends the one above it as the table says ("+ Q4", "4점 + K10", …).
    const NINETEEN: [&[&str]; 8] = [
        &["Q16", "D4"],
        &["Q16", "D4", "Q4"],
        &["Q16", "D4", "Q4", "D16"],
        &["Q16", "D4", "Q4", "D16", "K10"],
        &["Q16", "D4", "Q4", "D16", "D10", "Q10"],
        &["Q16", "D4", "Q4", "D16", "D10", "Q10", "K10"],
        &["Q16", "D4", "Q4", "D16", "D10", "Q10", "K4", "K16"],
        &["Q16", "D4", "Q4", "D16", "D10", "Q10", "K4", "K16", "K10"],
    ];
    const THIRTEEN: [&[&str]; 8] = [
        &["K10", "D4"],
        &["K10", "D4", "K4"],
        &["K10", "D4", "K4", "D10"],
        &["K10", "D4", "K4", "D10", "G7"],
        &["K10", "D4", "K4", "D10", "D7", "K7"],
        &["K10", "D4", "K4", "D10", "D7", "K7", "G7"],
        &["K10", "D4", "K4", "D10", "D7", "K7", "G4", "G10"],
        &["K10", "D4", "K4", "D10", "D7", "K7", "G4", "G10", "G7"],
    ];
    const NINE: [&[&str]; 4] = [
        &["G7", "C3"],
        &["G7", "C3", "G3"],
        &["G7", "C3", "G3", "C7"],
        &["G7", "C3", "G3", "C7", "E5"],
    ];
    let row = (stones as usize).wrapping_sub(2);
    let table: &[&[&str]] = match size {
        19 => &NINETEEN,
        13 => &THIRTEEN,
        9 => &NINE,
        _ => &[],
    };
    table.get(row).copied().unwrap_or(&[])
}

/// The handicap stones for `stones` on `size` lines as points.
pub fn points(size: u8, stones: u32) -> Vec<Point> {
    labels(size, stones)
        .iter()
        .filter_map(|label| Point::from_label(label, size))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_as_many_stones_as_it_says() {
        for (size, max) in [(9, 5), (13, 9), (19, 9)] {
            for n in 2..=max {
                assert_eq!(
                    points(size, n).len(),
                    n as usize,
                    "{size} lines, {n} stones"
                );
            }
            assert!(points(size, max + 1).is_empty());
        }
    }
}
