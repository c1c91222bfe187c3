//! Display names: what a player may call themself.
//!
//! A name is shown to everyone in the room, so it must not be able to lie about what it is:
//! control characters (NUL, newline), format characters (zero-width spaces, the bidi overrides
//! that reverse the text around them) and names that are nothing but invisible characters are
//! refused. Length is counted the way people see it — in grapheme clusters, so a family emoji
//! made of seven code points is one — after Unicode NFC normalisation, so the same name typed on
//! two keyboards is stored the same way.

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use super::RoomError;

/// The longest name, in grapheme clusters (user-perceived characters).
pub const MAX_NAME_GRAPHEMES: usize = 20;

/// The longest name in UTF-8 bytes. Twenty graphemes can each carry any number of combining
/// marks; this keeps a name's share of the ≤ 1 KB DynamoDB item small whatever it holds (20
/// Hangul syllables are 60 bytes, three family emoji 75).
pub const MAX_NAME_BYTES: usize = 100;

/// The name to store for `raw`: NFC-normalised, trimmed, with at least one visible character,
/// no control, format or bidi characters, and 1–[`MAX_NAME_GRAPHEMES`] grapheme clusters.
/// Anything else is [`RoomError::InvalidName`] (422 `INVALID_NAME`).
pub fn player_name(raw: &str) -> Result<String, RoomError> {
    let normalized: String = raw.nfc().collect();
    let name = normalized.trim();
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(RoomError::InvalidName);
    }
    if !clean_text(name) {
        return Err(RoomError::InvalidName);
    }
    if name.graphemes(true).count() > MAX_NAME_GRAPHEMES {
        return Err(RoomError::InvalidName);
    }
    Ok(name.to_owned())
}

/// Whether `text` (already NFC) holds no control, format or bidi character and at least one
/// visible one: the rule names and chat texts share.
pub fn clean_text(text: &str) -> bool {
    !text.chars().any(forbidden) && text.chars().any(visible)
}

/// Characters no name may hold: controls (general category Cc), line and paragraph separators,
/// and format characters (Cf) — except the zero-width joiner and the tag characters, which only
/// glue emoji together (👨‍👩‍👧, subdivision flags) and cannot reorder or hide text.
fn forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || (format(c) && !emoji_glue(c))
}

fn emoji_glue(c: char) -> bool {
    matches!(c, '\u{200D}' | '\u{E0020}'..='\u{E007F}')
}

/// General category Cf (Unicode 16), as ranges: no category table crate for one predicate.
fn format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// Whether `c` puts ink on the screen: not white space, not a format character, not a
/// variation selector or combining grapheme joiner, and not one of the blank letters (the
/// Hangul fillers, the braille blank) that people use to fake an empty name.
fn visible(c: char) -> bool {
    !(c.is_whitespace()
        || format(c)
        || matches!(
            c,
            '\u{034F}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{E0100}'..='\u{E01EF}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{FFA0}'
                | '\u{2800}'
                | '\u{180B}'..='\u{180F}'
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str) -> String {
        player_name(raw).unwrap_or_else(|e| panic!("{raw:?} refused: {e}"))
    }

    fn refused(raw: &str) {
        assert_eq!(player_name(raw), Err(RoomError::InvalidName), "{raw:?}");
    }

    #[test]
    fn ordinary_names_pass_trimmed() {
        assert_eq!(ok("  철수 "), "철수");
        assert_eq!(ok("Kim Young-hee"), "Kim Young-hee");
        assert_eq!(ok("a"), "a");
    }

    #[test]
    fn names_are_nfc() {
        // 한 typed as conjoining jamo (ᄒ ᅡ ᆫ) is stored as the precomposed syllable.
        assert_eq!(ok("\u{1112}\u{1161}\u{11AB}"), "한");
        assert_eq!(ok("e\u{0301}"), "\u{00E9}");
    }

    #[test]
    fn length_counts_what_people_see() {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦";
        assert_eq!(ok(&family.repeat(3)), family.repeat(3));
        assert_eq!(ok(&"가".repeat(20)), "가".repeat(20));
        refused(&"가".repeat(21));
        assert_eq!(ok("🏳️‍🌈🇰🇷"), "🏳️‍🌈🇰🇷");
    }

    #[test]
    fn controls_formats_and_bidi_are_refused() {
        for raw in [
            "a\0b",
            "a\nb",
            "a\tb",
            "abc\u{202E}fed",
            "\u{2066}x\u{2069}",
            "a\u{200B}b",
            "x\u{FEFF}",
            "a\u{2028}b",
            "\u{7F}",
        ] {
            refused(raw);
        }
    }

    #[test]
    fn invisible_names_are_refused() {
        for raw in [
            "",
            "   ",
            "\u{3164}",
            "\u{3164}\u{3164}",
            "\u{2800}",
            "\u{200D}",
            "\u{FE0F}",
        ] {
            refused(raw);
        }
    }

    #[test]
    fn a_name_heavy_with_combining_marks_is_refused() {
        refused(&format!("a{}", "\u{0301}".repeat(60)));
    }
}
