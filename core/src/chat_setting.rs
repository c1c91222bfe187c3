//! The room option `chat` on its own: every game's options name it and the [`Game`] contract
//! reads it, while the chat rules ([`crate::chat`]) need the room; a module of its own keeps
//! the options and the contract from importing the chat rules, and so out of a circle with them.
//!
//! [`Game`]: crate::game::Game

use serde::{Deserialize, Serialize};

/// The room option `chat` (DESIGN "Chat"): what the host allows.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "camelCase")]
pub enum ChatSetting {
    /// Text and emotes.
    #[default]
    On,
    /// Emotes and set phrases only (nothing to moderate).
    Emotes,
    /// No chat at all.
    Off,
}

impl ChatSetting {
    /// The option's short Korean label in the schema.
    pub const LABEL: &'static str = "채팅";

    /// The Korean label of each value of `ChatSetting::VARIANTS`, in the same order.
    pub const VALUE_LABELS: [&'static str; 3] =
        ["글과 이모티콘", "이모티콘·정해진 말만", "채팅 없음"];

    /// The option's help line in the schema.
    pub const HELP: &'static str = "방 안에서 주고받는 말이에요. 관전석의 말은 관전석에만 보여요.";
}
