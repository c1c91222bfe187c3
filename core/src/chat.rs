//! Table talk: room chat, team chat (yut.md §8.2: 같은 팀 다른 사람은 채팅·추천만) and emotes.
//!
//! Chat lives beside the room, never in it: a message never changes the room's version and never
//! goes through a game action's conditional write. What this module decides, purely:
//!
//! - what may be said: [`ChatText::parse`] (1–[`MAX_TEXT_GRAPHEMES`] grapheme clusters under the
//!   name rules: NFC, no control, format or bidi characters) or one of the fixed [`emotes`];
//! - to whom: [`Audience`] — a player's room message goes to everyone in the room, a team message
//!   to that team only, a spectator's message to spectators only (no coaching from the gallery);
//! - who may read it: [`ChatMessage::visible_to`] for a [`Viewer`] — the one rule both the poll
//!   (`GET /rooms/{id}/chat`) and the live channel apply;
//! - how fast: [`ChatHead::admit`], at most [`RATE_COUNT`] messages per [`RATE_WINDOW_MS`] per
//!   sender, from the times kept in the room's chat head;
//! - who is muted: [`ChatHead::muted`], set by the host — present members only, forgotten with
//!   them ([`ChatHead::keep_present`]), so the head stays under [`MAX_HEAD_BYTES`] whatever a host
//!   or the gallery does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

pub use crate::chat_setting::ChatSetting;
use crate::game::{Game, Millis, PlayerId};
use crate::room::{GameKind, Room};

/// The longest text, in grapheme clusters (what people see as characters).
pub const MAX_TEXT_GRAPHEMES: usize = 200;

/// The longest text in UTF-8 bytes: 200 Hangul syllables are 600 bytes; this leaves room for
/// emoji while keeping a stored message under one 1 KB DynamoDB write unit.
pub const MAX_TEXT_BYTES: usize = 800;

/// Messages kept per room: older ones are deleted as new ones arrive.
pub const KEPT_MESSAGES: u64 = 100;

/// Messages one sender may post per [`RATE_WINDOW_MS`].
pub const RATE_COUNT: usize = 5;

/// The window of the per-sender rate, in ms.
pub const RATE_WINDOW_MS: Millis = 10_000;

/// Senders (players and spectators' addresses) the rate keeps at once; past it, a new spectator
/// waits until an older one's window has passed. Bounds the chat head whatever the gallery does.
pub const MAX_RATE_SENDERS: usize = 24;

/// The most a room's chat head ([`ChatHead`]) takes encoded, in bytes, whatever anyone does: the
/// rate of at most [`MAX_RATE_SENDERS`] spectators and of the present players, and mutes of
/// present players only. Every record carries the head, so it is also what a record adds to a
/// read (a record stays under one 1 KB write unit plus this).
pub const MAX_HEAD_BYTES: usize = 2560;

/// The rate key of a spectator at a client address digest (players are keyed by their id, which
/// never starts with `~`).
pub fn spectator_key(client: u64) -> String {
    format!("~{client:016x}")
}

/// Emotes and set phrases every game has.
const COMMON_EMOTES: [&str; 10] = [
    "ㅋㅋ",
    "잘했다!",
    "빨리 해~",
    "한 판 더?",
    "아깝다!",
    "고마워요",
    "미안해요",
    "👍",
    "😂",
    "🎉",
];

const YUT_EMOTES: [&str; 4] = ["윷이야!", "모 나와라!", "잡았다!", "업어 가자"];

const BADUK_EMOTES: [&str; 3] = ["잘 부탁드립니다", "잘 두셨습니다", "한 수 배웠습니다"];

/// The fixed list of emotes and set phrases of a game, as `GET /games/{kind}` publishes it
/// (`chat.emotes`): the common ones, then the game's own.
pub fn emotes(kind: GameKind) -> Vec<&'static str> {
    let own: &[&str] = match kind {
        GameKind::Yut => &YUT_EMOTES,
        GameKind::Baduk => &BADUK_EMOTES,
    };
    COMMON_EMOTES.iter().chain(own).copied().collect()
}

/// What `GET /games/{kind}` says about chat: the emotes and the bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatRules {
    /// The emotes and set phrases `{"emote": E}` accepts, in the order a client shows them.
    pub emotes: Vec<&'static str>,
    /// The longest text, in grapheme clusters.
    pub max_text_graphemes: usize,
    /// Messages one sender may post per `rateWindowMs`.
    pub rate_count: usize,
    /// The rate's window, in ms.
    pub rate_window_ms: Millis,
    /// Messages kept per room (older ones go).
    pub kept_messages: u64,
}

impl ChatRules {
    /// The chat rules of `kind`.
    pub fn of(kind: GameKind) -> Self {
        ChatRules {
            emotes: emotes(kind),
            max_text_graphemes: MAX_TEXT_GRAPHEMES,
            rate_count: RATE_COUNT,
            rate_window_ms: RATE_WINDOW_MS,
            kept_messages: KEPT_MESSAGES,
        }
    }
}

/// Why a chat request is refused. `Display` is the Korean message; [`ChatError::code`] the stable
/// code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// Empty, invisible, too long, or with control, format or bidi characters.
    #[error("채팅은 보이는 글자로 1~200자까지 쓸 수 있어요. 제어·서식 문자는 쓸 수 없어요.")]
    InvalidText,
    /// Not one of the game's emotes.
    #[error("그런 이모티콘은 없어요. 게임 정보(GET /games/{{kind}})의 목록에서 골라 주세요.")]
    UnknownEmote,
    /// The host turned chat off.
    #[error("이 방은 채팅을 쓰지 않아요.")]
    ChatOff,
    /// The host allows emotes only.
    #[error("이 방에서는 이모티콘과 정해진 말만 보낼 수 있어요.")]
    EmotesOnly,
    /// `to: team` outside a team game, or from a spectator.
    #[error("팀 채팅은 윷놀이 팀전의 참가자만 쓸 수 있어요.")]
    NoTeam,
    /// The host muted this player.
    #[error("방장이 채팅을 막았어요.")]
    Muted,
    /// Too many messages from this sender.
    #[error("채팅이 너무 빨라요. 잠시 뒤에 다시 보내 주세요.")]
    RateLimited {
        /// When the next message is accepted, in ms from now.
        retry_after_ms: Millis,
    },
    /// The host tried to mute themself.
    #[error("자기 자신의 채팅은 막을 수 없어요.")]
    CannotMuteSelf,
    /// Too many spectators are chatting at once.
    #[error("관전석 채팅이 붐벼요. 잠시 뒤에 다시 보내 주세요.")]
    GalleryFull {
        /// When a place frees up, in ms from now.
        retry_after_ms: Millis,
    },
}

impl ChatError {
    /// The stable machine code clients switch on.
    pub fn code(&self) -> &'static str {
        match self {
            ChatError::InvalidText => "INVALID_CHAT_TEXT",
            ChatError::UnknownEmote => "UNKNOWN_EMOTE",
            ChatError::ChatOff => "CHAT_OFF",
            ChatError::EmotesOnly => "CHAT_EMOTES_ONLY",
            ChatError::NoTeam => "NO_TEAM",
            ChatError::Muted => "CHAT_MUTED",
            ChatError::RateLimited { .. } => "CHAT_RATE_LIMITED",
            ChatError::GalleryFull { .. } => "CHAT_GALLERY_FULL",
            ChatError::CannotMuteSelf => "CANNOT_MUTE_SELF",
        }
    }

    /// Every refusal (waits at zero), for the HTTP layer's table of codes and the OpenAPI
    /// document.
    pub const EVERY: [ChatError; 9] = [
        ChatError::InvalidText,
        ChatError::UnknownEmote,
        ChatError::ChatOff,
        ChatError::EmotesOnly,
        ChatError::NoTeam,
        ChatError::Muted,
        ChatError::RateLimited { retry_after_ms: 0 },
        ChatError::GalleryFull { retry_after_ms: 0 },
        ChatError::CannotMuteSelf,
    ];
}

/// A chat text that passed the rules: it can only exist valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatText(String);

impl ChatText {
    /// The text to store for `raw`: NFC-normalised, trimmed, with at least one visible character,
    /// no control, format or bidi characters (the name rules, [`crate::room::player_name`]), and
    /// 1–[`MAX_TEXT_GRAPHEMES`] grapheme clusters in at most [`MAX_TEXT_BYTES`] bytes.
    pub fn parse(raw: &str) -> Result<Self, ChatError> {
        if raw.len() > 4 * MAX_TEXT_BYTES {
            return Err(ChatError::InvalidText);
        }
        let normalized: String = raw.nfc().collect();
        let text = normalized.trim();
        if text.is_empty() || text.len() > MAX_TEXT_BYTES {
            return Err(ChatError::InvalidText);
        }
        if !crate::room::clean_text(text) {
            return Err(ChatError::InvalidText);
        }
        if text.graphemes(true).count() > MAX_TEXT_GRAPHEMES {
            return Err(ChatError::InvalidText);
        }
        Ok(ChatText(text.to_owned()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a message says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChatBody {
    /// Free text (already [`ChatText::parse`]d).
    Text(String),
    /// One of the game's [`emotes`].
    Emote(String),
}

impl ChatBody {
    /// A text body.
    pub fn text(text: ChatText) -> Self {
        ChatBody::Text(text.0)
    }

    /// An emote body, if `emote` is one of `kind`'s.
    pub fn emote(kind: GameKind, emote: &str) -> Result<Self, ChatError> {
        emotes(kind)
            .into_iter()
            .find(|e| *e == emote)
            .map(|e| ChatBody::Emote(e.to_owned()))
            .ok_or(ChatError::UnknownEmote)
    }

    /// Whether the room's `chat` option allows this body.
    pub fn allowed(&self, setting: ChatSetting) -> Result<(), ChatError> {
        match (setting, self) {
            (ChatSetting::Off, _) => Err(ChatError::ChatOff),
            (ChatSetting::Emotes, ChatBody::Text(_)) => Err(ChatError::EmotesOnly),
            _ => Ok(()),
        }
    }
}

/// Who a message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Audience {
    /// Everyone in the room (a player's message).
    Room,
    /// One team (윷놀이 team mode): 0 = 청, 1 = 홍.
    Team(u8),
    /// The gallery (a spectator's message): players never see it.
    Spectators,
}

impl Audience {
    /// The wire name of `to`.
    pub fn wire(self) -> &'static str {
        match self {
            Audience::Room => "room",
            Audience::Team(_) => "team",
            Audience::Spectators => "spectators",
        }
    }
}

/// Who is reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// A seated member, with their team in a team game.
    Player {
        /// Their id.
        id: PlayerId,
        /// Their team (`None`: not a team game).
        team: Option<u8>,
    },
    /// Anyone without a seat.
    Spectator,
}

/// One stored message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Its number in the room: 1, 2, 3, … in the order the store accepted them.
    pub seq: u64,
    /// When it was accepted (epoch ms).
    pub at: Millis,
    /// The sender's player id; `None` for a spectator.
    pub from: Option<PlayerId>,
    /// The sender's display name (a spectator's as they gave it).
    pub name: String,
    /// Who it is for.
    pub audience: Audience,
    /// What it says.
    pub body: ChatBody,
}

/// The first byte of a stored [`ChatRecord`]: bump it when the layout changes incompatibly.
pub const RECORD_FORMAT: u8 = 1;

/// A stored record that cannot be read back.
#[derive(Debug, thiserror::Error)]
#[error("stored chat record does not decode")]
pub struct ChatDecodeError;

/// One record of a room's chat log, as the chat store keeps it (opaque bytes to the store): the
/// room's chat bookkeeping as of this record, and the message it adds — none for a record that
/// only changes the bookkeeping (a mute). The newest record's head is the current one, so an
/// append reads one record and writes one, and a record is whole or absent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRecord {
    /// The bookkeeping after this record.
    pub head: ChatHead,
    /// The message this record adds.
    pub message: Option<ChatMessage>,
}

impl ChatRecord {
    /// The stored form: a format byte, then postcard (compact: varints, no field names).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![RECORD_FORMAT];
        if let Ok(bytes) = postcard::to_extend(self, Vec::new()) {
            out.extend(bytes);
        }
        out
    }

    /// Reads a stored record back.
    pub fn decode(bytes: &[u8]) -> Result<Self, ChatDecodeError> {
        match bytes.split_first() {
            Some((&RECORD_FORMAT, rest)) => match postcard::take_from_bytes(rest) {
                Ok((record, [])) => Ok(record),
                _ => Err(ChatDecodeError),
            },
            _ => Err(ChatDecodeError),
        }
    }
}

impl ChatMessage {
    /// Whether `viewer` may ever receive this message: the one visibility rule of chat.
    ///
    /// - a room message: everyone with a seat, and spectators too;
    /// - a team message: only the members of that team (never another team, not even after the
    ///   game, never a spectator);
    /// - a spectator's message: only spectators (no coaching from the gallery).
    pub fn visible_to(&self, viewer: &Viewer) -> bool {
        match (self.audience, viewer) {
            (Audience::Room, _) => true,
            (Audience::Team(team), Viewer::Player { team: Some(t), .. }) => team == *t,
            (Audience::Team(_), _) => false,
            (Audience::Spectators, Viewer::Spectator) => true,
            (Audience::Spectators, Viewer::Player { .. }) => false,
        }
    }

    /// The message as clients read it (`M` of DESIGN "Chat").
    pub fn view(&self) -> MessageView<'_> {
        let (text, emote) = match &self.body {
            ChatBody::Text(t) => (Some(t.as_str()), None),
            ChatBody::Emote(e) => (None, Some(e.as_str())),
        };
        MessageView {
            seq: self.seq,
            at: self.at,
            from: self.from.as_ref(),
            name: &self.name,
            to: self.audience.wire(),
            text,
            emote,
        }
    }
}

/// `M = {seq, at, from: playerId | null, name, to: "room"|"team"|"spectators", text | emote}`.
#[derive(Debug, Serialize)]
pub struct MessageView<'a> {
    /// The message's number in the room.
    pub seq: u64,
    /// When it was accepted (epoch ms).
    pub at: Millis,
    /// The sender's player id, `null` for a spectator.
    pub from: Option<&'a PlayerId>,
    /// The sender's name.
    pub name: &'a str,
    /// `room`, `team` or `spectators`.
    pub to: &'static str,
    /// The text, for a text message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// The emote, for an emote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emote: Option<&'a str>,
}

/// The per-room chat bookkeeping kept beside the messages (never in the room): each sender's
/// recent message times, for the rate, and the players the host muted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatHead {
    /// Sender key (a player id, or a spectator's address key) → times of their messages inside
    /// the current window, oldest first, at most [`RATE_COUNT`].
    pub rates: BTreeMap<String, Vec<Millis>>,
    /// Players the host muted.
    pub muted: Vec<PlayerId>,
}

impl ChatHead {
    /// Counts one message of `sender` at `now` if the rate allows it; otherwise says how long to
    /// wait. Forgets every time older than the window first, so the head stays bounded by the
    /// senders of the last [`RATE_WINDOW_MS`]. A `spectator` sender is refused when
    /// [`MAX_RATE_SENDERS`] others are already counted; players always have a place.
    pub fn admit(&mut self, sender: &str, spectator: bool, now: Millis) -> Result<(), ChatError> {
        let since = now.saturating_sub(RATE_WINDOW_MS);
        self.rates.retain(|_, times| {
            times.retain(|t| *t > since);
            !times.is_empty()
        });
        if spectator && !self.rates.contains_key(sender) && self.rates.len() >= MAX_RATE_SENDERS {
            let frees_at = self
                .rates
                .values()
                .filter_map(|times| times.last())
                .min()
                .map_or(RATE_WINDOW_MS, |t| t + RATE_WINDOW_MS - now);
            return Err(ChatError::GalleryFull {
                retry_after_ms: frees_at,
            });
        }
        let times = self.rates.entry(sender.to_owned()).or_default();
        if times.len() >= RATE_COUNT {
            let oldest = times[times.len() - RATE_COUNT];
            return Err(ChatError::RateLimited {
                retry_after_ms: oldest + RATE_WINDOW_MS - now,
            });
        }
        times.push(now);
        Ok(())
    }

    /// Forgets what no longer matters once members go: the mutes of members no longer present
    /// (a mute applies to present members only; one who comes back is a new member), and the
    /// rate of players no longer present (they cannot post). Spectators' rates stay, bounded by
    /// their window and [`MAX_RATE_SENDERS`]. Run on every new record, so a host looping
    /// add-bot, mute, kick leaves no trace.
    pub fn keep_present(&mut self, present: impl Fn(&PlayerId) -> bool) {
        self.muted.retain(|p| present(p));
        self.rates
            .retain(|key, _| key.starts_with('~') || present(&PlayerId::new(key)));
    }

    /// Whether the host muted `player`.
    pub fn is_muted(&self, player: &PlayerId) -> bool {
        self.muted.contains(player)
    }

    /// Mutes or unmutes `player`; returns whether anything changed.
    pub fn set_muted(&mut self, player: &PlayerId, muted: bool) -> bool {
        let present = self.is_muted(player);
        match (present, muted) {
            (false, true) => self.muted.push(player.clone()),
            (true, false) => self.muted.retain(|p| p != player),
            _ => return false,
        }
        true
    }
}

impl<G: Game> Room<G> {
    /// Who the holder of a seat (`Some`) or a spectator (`None`) is, for chat: their team comes
    /// from their seat as the room view shows it. An id without a seat reads as a spectator.
    pub fn chat_viewer(&self, player: Option<&PlayerId>) -> Viewer {
        let Some(player) = player else {
            return Viewer::Spectator;
        };
        match self.seats.iter().position(|m| &m.id == player) {
            Some(seat) => Viewer::Player {
                id: player.clone(),
                team: G::team_of(&self.options, seat),
            },
            None => Viewer::Spectator,
        }
    }

    /// The room's `chat` option.
    pub fn chat_setting(&self) -> ChatSetting {
        G::chat_setting(&self.options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(audience: Audience) -> ChatMessage {
        ChatMessage {
            seq: 1,
            at: 10,
            from: Some(PlayerId::new("p1")),
            name: "철수".into(),
            audience,
            body: ChatBody::Text("안녕".into()),
        }
    }

    fn player(team: Option<u8>) -> Viewer {
        Viewer::Player {
            id: PlayerId::new("p2"),
            team,
        }
    }

    #[test]
    fn team_messages_reach_only_their_team() {
        let m = message(Audience::Team(0));
        assert!(m.visible_to(&player(Some(0))));
        assert!(!m.visible_to(&player(Some(1))));
        assert!(!m.visible_to(&player(None)));
        assert!(!m.visible_to(&Viewer::Spectator));
    }

    #[test]
    fn spectators_messages_reach_only_spectators() {
        let m = message(Audience::Spectators);
        assert!(m.visible_to(&Viewer::Spectator));
        assert!(!m.visible_to(&player(Some(0))));
        assert!(!m.visible_to(&player(None)));
        assert!(message(Audience::Room).visible_to(&Viewer::Spectator));
    }

    #[test]
    fn texts_follow_the_name_rules_up_to_200_graphemes() {
        assert_eq!(ChatText::parse("  안녕 ").unwrap().as_str(), "안녕");
        assert_eq!(
            ChatText::parse("\u{1112}\u{1161}\u{11AB}")
                .unwrap()
                .as_str(),
            "한"
        );
        assert!(ChatText::parse(&"가".repeat(200)).is_ok());
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦";
        assert!(ChatText::parse(&family.repeat(30)).is_ok());
        for bad in [
            String::new(),
            "   ".into(),
            "가".repeat(201),
            "a\u{202E}b".into(),
            "a\nb".into(),
            "\u{3164}".into(),
            "a\u{200B}".into(),
            format!("a{}", "\u{0301}".repeat(900)),
        ] {
            assert_eq!(
                ChatText::parse(&bad),
                Err(ChatError::InvalidText),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn emotes_come_from_the_games_list() {
        assert!(ChatBody::emote(GameKind::Yut, "윷이야!").is_ok());
        assert!(ChatBody::emote(GameKind::Baduk, "ㅋㅋ").is_ok());
        assert_eq!(
            ChatBody::emote(GameKind::Baduk, "윷이야!"),
            Err(ChatError::UnknownEmote)
        );
    }

    #[test]
    fn the_option_decides_what_may_be_said() {
        let text = ChatBody::Text("x".into());
        let emote = ChatBody::Emote("ㅋㅋ".into());
        assert_eq!(text.allowed(ChatSetting::On), Ok(()));
        assert_eq!(
            text.allowed(ChatSetting::Emotes),
            Err(ChatError::EmotesOnly)
        );
        assert_eq!(emote.allowed(ChatSetting::Emotes), Ok(()));
        assert_eq!(emote.allowed(ChatSetting::Off), Err(ChatError::ChatOff));
    }

    #[test]
    fn five_messages_per_ten_seconds_then_a_wait() {
        let mut head = ChatHead::default();
        for i in 0..5 {
            head.admit("p1", false, 1_000 + i * 100).unwrap();
        }
        assert_eq!(
            head.admit("p1", false, 2_000),
            Err(ChatError::RateLimited {
                retry_after_ms: 9_000
            })
        );
        head.admit("p2", false, 2_000).unwrap();
        head.admit("p1", false, 11_001).unwrap();
    }

    #[test]
    fn the_gallery_holds_a_bounded_number_of_senders() {
        let mut head = ChatHead::default();
        for i in 0..MAX_RATE_SENDERS {
            head.admit(&format!("s{i}"), true, 1_000).unwrap();
        }
        assert!(matches!(
            head.admit("s-new", true, 2_000),
            Err(ChatError::GalleryFull { .. })
        ));
        head.admit("p1", false, 2_000).unwrap();
        head.admit("s-new", true, 11_001).unwrap();
        assert!(head.rates.len() <= MAX_RATE_SENDERS + 1);
    }

    #[test]
    fn mutes_and_rates_go_with_the_members() {
        let mut head = ChatHead::default();
        let (stays, goes) = (PlayerId::new("p1"), PlayerId::new("p9"));
        head.set_muted(&stays, true);
        head.set_muted(&goes, true);
        head.admit("p1", false, 1_000).unwrap();
        head.admit("p9", false, 1_000).unwrap();
        head.admit(&spectator_key(7), true, 1_000).unwrap();
        head.keep_present(|p| *p == stays);
        assert_eq!(head.muted, vec![stays.clone()]);
        let senders: Vec<&str> = head.rates.keys().map(String::as_str).collect();
        assert_eq!(senders, ["p1", &spectator_key(7)]);
    }

    #[test]
    fn the_fullest_head_stays_under_its_bound() {
        // Every sender at the rate's limit with the largest times, the gallery full, and every
        // seat of the largest game present and muted.
        let mut head = ChatHead::default();
        let now = Millis::MAX / 2;
        for i in 0..MAX_RATE_SENDERS {
            head.rates
                .insert(spectator_key(u64::MAX - i as u64), vec![now; RATE_COUNT]);
        }
        for seat in 0..8 {
            let id = PlayerId::new(format!("p{}", 4_000_000_000u64 + seat));
            head.rates.insert(id.0.clone(), vec![now; RATE_COUNT]);
            head.muted.push(id);
        }
        let record = ChatRecord {
            head,
            message: None,
        };
        let bytes = record.encode().len();
        assert!(bytes <= MAX_HEAD_BYTES, "{bytes} bytes");
    }

    #[test]
    fn records_round_trip() {
        let mut head = ChatHead::default();
        head.admit("p1", false, 5).unwrap();
        head.set_muted(&PlayerId::new("p3"), true);
        let record = ChatRecord {
            head,
            message: Some(message(Audience::Team(1))),
        };
        assert_eq!(ChatRecord::decode(&record.encode()).unwrap(), record);
        assert!(ChatRecord::decode(&[]).is_err());
        assert!(ChatRecord::decode(&[9, 0]).is_err());
    }
}
