//! Display names: what a player may call themself.
//!
//! A name is shown to everyone in the room, so it must not be able to lie about what it is:
//! control characters (NUL, newline), format characters (zero-width spaces, the bidi overrides
//! that reverse the text around them) and names that are nothing but invisible characters are
//! refused. Length is counted the way people see it — in grapheme clusters, so a family emoji
//! made of seven code points is one — after Unicode NFC normalisation, so the same name typed on
//! two keyboards is stored the same way.
//!
//! Look-alikes are refused too (issue 18): the zero-width joiner and the tag characters only
//! inside emoji sequences (👨‍👩‍👧, 🏴󠁧󠁢󠁳󠁣󠁴󠁿), never between letters; no Hangul filler anywhere (ㅤ after a name
//! makes a second `호스트` that looks like the first); at most [`MAX_MARKS_PER_GRAPHEME`]
//! combining marks on one character. Two members of one room never share a name
//! ([`PlayerName::same_as`], `NAME_TAKEN`).
//!
//! Names are compared folded ([`fold`], issue 28), so two that read alike are one name: NFKC
//! first (full-width `ＡＢＣ` is `ABC`, a Hangul compatibility jamo `ㄱ` the conjoining `ᄀ`,
//! ligatures and circled letters their letters), then white space dropped, then Unicode's
//! confusable skeleton (UTS #39: Cyrillic `а` and Latin `a`, `0` and `O`, `rn` and `m`) and
//! case. A spectator who names themself in chat may not take a seated member's name, nor a name
//! that reads as a computer player's (`컴퓨터 N`, [`spectator_name`]).

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use super::RoomError;

/// The longest name, in grapheme clusters (user-perceived characters).
pub const MAX_NAME_GRAPHEMES: usize = 20;

/// The longest name in UTF-8 bytes. Twenty graphemes can each carry any number of combining
/// marks; this keeps a name's share of the ≤ 1 KB DynamoDB item small whatever it holds (20
/// Hangul syllables are 60 bytes, three family emoji 75).
pub const MAX_NAME_BYTES: usize = 100;

/// The most combining marks one grapheme cluster may carry (Vietnamese needs two; 30 stacked
/// marks spill over the names around them).
pub const MAX_MARKS_PER_GRAPHEME: usize = 3;

/// A display name that passed [`player_name`]: made only by it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerName(String);

impl PlayerName {
    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as stored.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Whether `other` (a stored name) would read as this one: equal once both are folded
    /// ([`fold`]: `호스트` and `호 스트`, `Kim` and `kim`, `ＫＩＭ` and `Kіm` with a Cyrillic `і`).
    pub fn same_as(&self, other: &str) -> bool {
        fold(&self.0) == fold(other)
    }
}

/// A name folded for comparison: NFKC, no white space, lower case, then the confusable
/// skeleton, lower-cased again (a skeleton's prototypes may be capitals: `0`'s is `O`). Case
/// goes first so that `KIM` stays `kim` (the skeleton alone makes a capital `I` an `l`): a
/// capital `I` and a small `l` are the one look-alike pair this leaves apart.
pub fn fold(name: &str) -> String {
    let lower: String = name
        .nfkc()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    unicode_security::skeleton(&lower)
        .flat_map(char::to_lowercase)
        .collect()
}

/// What every computer player's name starts with ([`super::bot_name`]: `컴퓨터 1`, `컴퓨터 2`…).
pub const BOT_NAME_PREFIX: &str = "컴퓨터";

/// Whether `name` reads as a computer player's name: [`BOT_NAME_PREFIX`] and a number, once
/// folded (`컴퓨터 3`, `컴퓨터３`, `컴퓨터 l` with a letter l).
pub fn reads_as_bot_name(name: &str) -> bool {
    let folded = fold(name);
    let prefix = fold(BOT_NAME_PREFIX);
    let digits: String = fold("0123456789");
    folded
        .strip_prefix(&prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| digits.contains(c)))
}

/// The name a spectator may chat under: a valid name ([`player_name`]) that is not a seated
/// member's (`seated`, compared folded: [`RoomError::NameTaken`]) and does not read as a
/// computer player's ([`RoomError::BotName`]), so the gallery cannot speak as a player.
pub fn spectator_name<'a>(
    raw: &str,
    mut seated: impl Iterator<Item = &'a str>,
) -> Result<PlayerName, RoomError> {
    let name = player_name(raw)?;
    if reads_as_bot_name(name.as_str()) {
        return Err(RoomError::BotName);
    }
    if seated.any(|s| name.same_as(s)) {
        return Err(RoomError::NameTaken);
    }
    Ok(name)
}

impl std::fmt::Display for PlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The name to store for `raw`: NFC-normalised, trimmed, with at least one visible character,
/// no control, format or bidi characters, no Hangul filler, emoji glue only inside emoji, at
/// most [`MAX_MARKS_PER_GRAPHEME`] combining marks per character, and 1–[`MAX_NAME_GRAPHEMES`]
/// grapheme clusters. Anything else is [`RoomError::InvalidName`] (422 `INVALID_NAME`).
pub fn player_name(raw: &str) -> Result<PlayerName, RoomError> {
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
    Ok(PlayerName(name.to_owned()))
}

/// The Hangul fillers: blank letters that make a name look like another (`호스트ㅤ`).
fn hangul_filler(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Pictographs that emoji sequences are made of (the Extended_Pictographic blocks, coarsely),
/// with the regional indicators.
fn pictograph(c: char) -> bool {
    matches!(
        c,
        '\u{00A9}'
            | '\u{00AE}'
            | '\u{203C}'
            | '\u{2049}'
            | '\u{2122}'
            | '\u{2139}'
            | '\u{2194}'..='\u{21AA}'
            | '\u{2300}'..='\u{23FF}'
            | '\u{24C2}'
            | '\u{25A0}'..='\u{27BF}'
            | '\u{2934}'..='\u{2935}'
            | '\u{2B00}'..='\u{2BFF}'
            | '\u{3030}'
            | '\u{303D}'
            | '\u{3297}'
            | '\u{3299}'
            | '\u{1F000}'..='\u{1FAFF}'
    )
}

/// What may follow a pictograph inside one emoji: the emoji presentation selector and the skin
/// tones.
fn emoji_modifier(c: char) -> bool {
    matches!(c, '\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}')
}

/// Whether every zero-width joiner sits between two pictographs (each with its modifiers), and
/// every tag character in a tag sequence right after 🏴 (U+1F3F4) that ends with the cancel
/// tag U+E007F.
fn glue_only_in_emoji(name: &str) -> bool {
    let chars: Vec<char> = name.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\u{200D}' {
            let before = chars[..i]
                .iter()
                .rev()
                .find(|c| !emoji_modifier(**c))
                .is_some_and(|c| pictograph(*c));
            let after = chars.get(i + 1).is_some_and(|c| pictograph(*c));
            if !before || !after {
                return false;
            }
        } else if ('\u{E0020}'..='\u{E007F}').contains(&c) {
            // Only a whole tag run after the black flag: 🏴 tags… U+E007F.
            if i == 0 || chars[i - 1] != '\u{1F3F4}' {
                return false;
            }
            let mut j = i;
            while j < chars.len() && ('\u{E0020}'..'\u{E007F}').contains(&chars[j]) {
                j += 1;
            }
            if chars.get(j) != Some(&'\u{E007F}') {
                return false;
            }
            i = j;
        }
        i += 1;
    }
    true
}

/// Whether `text` (already NFC) holds no control, format or bidi character, no Hangul filler,
/// emoji glue only inside emoji, at most [`MAX_MARKS_PER_GRAPHEME`] combining marks per
/// character, and at least one visible character: the rule names and chat texts share.
pub fn clean_text(text: &str) -> bool {
    !text.chars().any(|c| forbidden(c) || hangul_filler(c))
        && text.chars().any(visible)
        && glue_only_in_emoji(text)
        && text.graphemes(true).all(|g| {
            g.chars()
                .filter(|c| unicode_normalization::char::is_combining_mark(*c))
                .count()
                <= MAX_MARKS_PER_GRAPHEME
        })
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
        player_name(raw)
            .unwrap_or_else(|e| panic!("{raw:?} refused: {e}"))
            .into_string()
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

    #[test]
    fn look_alikes_are_refused() {
        // A joiner between letters, tags outside a flag, a Hangul filler suffix, stacked marks.
        refused("호\u{200D}스트");
        refused("a\u{200D}");
        refused("호스트\u{E0041}");
        refused("\u{E0067}\u{E0062}\u{E007F}");
        refused("호스트\u{3164}");
        refused("\u{1160}호스트");
        refused(&format!("a{}", "\u{0301}".repeat(30)));
        refused(&format!("a{}", "\u{0301}".repeat(5)));
        // Emoji sequences keep their glue; Vietnamese keeps its two marks.
        ok("👨\u{200D}👩\u{200D}👧");
        ok("🧑🏽\u{200D}💻");
        ok("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}");
        ok("Nguyê\u{0303}n");
    }

    #[test]
    fn look_alike_names_fold_to_one() {
        let same = |a: &str, b: &str| {
            assert_eq!(fold(a), fold(b), "{a:?} and {b:?} read alike");
            assert!(player_name(a).unwrap().same_as(b), "{a:?} ~ {b:?}");
        };
        // Full width, compatibility characters, ligatures.
        same("ＫＩＭ", "kim");
        same("ｈｏｓｔ", "host");
        same("ﬁsh", "fish");
        same("①", "1");
        // Latin and Cyrillic (and Greek) look-alikes.
        same("Kim", "Kіm"); // Cyrillic і
        same("host", "һоѕt"); // Cyrillic һ о ѕ
        same("Apple", "Аррlе");
        same("ορ", "op"); // Greek ο ρ
        same("0", "O");
        same("1", "l");
        same("rn", "m");
        // Hangul: compatibility jamo are the conjoining ones; syllables typed as jamo are
        // syllables.
        same("ㄱ", "\u{1100}");
        same("한", "\u{1112}\u{1161}\u{11AB}");
        same("호스트", "호 스트");
        // Different names stay different.
        for (a, b) in [
            ("철수", "영희"),
            ("kim", "lee"),
            ("컴퓨터 1", "컴퓨터 2"),
            ("가", "각"),
        ] {
            assert_ne!(fold(a), fold(b), "{a:?} and {b:?}");
        }
    }

    #[test]
    fn spectators_may_not_take_a_seated_name_or_a_bots() {
        let seated = ["철수", "Kim", "컴퓨터 1"];
        let try_name = |raw: &str| spectator_name(raw, seated.iter().copied());
        assert_eq!(try_name("영희").unwrap().as_str(), "영희");
        for taken in ["철수", "철 수", "KIM", "Ｋim", "Kіm"] {
            assert_eq!(try_name(taken), Err(RoomError::NameTaken), "{taken:?}");
        }
        // A computer player's name, seated or not yet: any number, however written.
        for bot in [
            "컴퓨터 1",
            "컴퓨터 7",
            "컴퓨터12",
            "컴퓨터 ７",
            "컴 퓨 터 3",
            "컴퓨터 l",
        ] {
            assert_eq!(try_name(bot), Err(RoomError::BotName), "{bot:?}");
        }
        // The word alone, or with more than a number, is a name like any other.
        assert!(try_name("컴퓨터").is_ok());
        assert!(try_name("컴퓨터 박사").is_ok());
        assert!(reads_as_bot_name("컴퓨터 1"));
        assert!(!reads_as_bot_name("컴퓨터광"));
        // Invalid names stay invalid first.
        assert_eq!(try_name("a\u{200B}b"), Err(RoomError::InvalidName));
    }

    #[test]
    fn the_same_name_reads_the_same_whatever_the_case_or_spaces() {
        let name = player_name("호스트").unwrap();
        assert!(name.same_as("호스트"));
        assert!(name.same_as("호 스트"));
        assert!(player_name("Kim").unwrap().same_as("kim"));
        assert!(!name.same_as("손님"));
    }
}
