//! On AWS: computer players' moves are made by a function of their own (`BotFunction`,
//! `bin/bot`), sized for the engine, so the `api` function is sized for requests alone.
//!
//! The `api` function's thinker ([`LambdaThinker`]) invokes the bot function asynchronously
//! (`InvocationType: Event`: queued by Lambda, never awaited) with `{"roomId": R}` when its own
//! save has made a computer player's move due. One save makes one move due, so a move is
//! searched once, however many read the room meanwhile. The function keeps its choice with the
//! room as a plan and returns at once, not billed for the think time; readers, long-polls,
//! actions and the sweeper that load the room after the move's `deadlineAt` play that plan in
//! their catch-up (never a search), and the save that lands it invokes the function again if
//! another computer player's move comes next. A reader that finds a move long overdue ([`BACKSTOP_AFTER_MS`]: the
//! invocation was lost, or the function failed) invokes it again, at most once per room and
//! period in each execution environment; the sweeper does the same every minute (and lands an
//! overdue plan itself). A second invocation for a move already made or already kept finds
//! nothing to do, and two that race search the same pure choice, of which one plan (the same
//! bytes) or one save lands.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::InvocationType;
use madang_core::Millis;

use super::{Cue, Cued, Thinker};
use crate::app::Clock;

/// The environment variable naming the bot function (`template.yaml` sets it).
pub const FUNCTION_VAR: &str = "MADANG_BOT_FUNCTION";

/// A move this overdue, seen by a reader or the sweeper, invokes the bot function again.
pub const BACKSTOP_AFTER_MS: Millis = 15_000;

/// The most rooms whose last backstop invocation one execution environment remembers.
const REMEMBERED: usize = 1_024;

/// The bot-function event: the room whose computer player's move is due.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BotEvent {
    /// The room's id.
    pub room_id: String,
    /// `true`: compute the room's review ([`crate::service::review`]) instead of its moves.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub review: bool,
}

/// Invokes the bot function when a computer player's move becomes due.
#[derive(Debug)]
pub struct LambdaThinker {
    client: aws_sdk_lambda::Client,
    function: String,
    clock: Arc<Clock>,
    /// When each room's backstop invocation was last sent from this environment.
    backstops: Mutex<HashMap<String, Millis>>,
}

impl LambdaThinker {
    /// A thinker invoking `function` through `client`.
    pub fn new(client: aws_sdk_lambda::Client, function: String, clock: Arc<Clock>) -> Self {
        LambdaThinker {
            client,
            function,
            clock,
            backstops: Mutex::default(),
        }
    }

    /// The bot function `MADANG_BOT_FUNCTION` names, invoked with the SDK's configuration from
    /// the environment (`AWS_ENDPOINT_URL_LAMBDA` points it at an emulator); `None` if unset.
    pub async fn from_env(clock: Arc<Clock>) -> Option<Self> {
        let function = std::env::var(FUNCTION_VAR).ok()?;
        let function = function.trim();
        if function.is_empty() {
            return None;
        }
        let config = madang_infra::dynamo::sdk_config().load().await;
        let client = aws_sdk_lambda::Client::new(&config);
        Some(LambdaThinker::new(client, function.to_owned(), clock))
    }

    /// Whether a reader's (or the sweeper's) cue should invoke again: only for a move long
    /// overdue, and once per room and period in this environment.
    fn backstop(&self, id: &str, at: Millis) -> bool {
        let now = self.clock.now();
        if now < at.saturating_add(BACKSTOP_AFTER_MS) {
            return false;
        }
        let Ok(mut sent) = self.backstops.lock() else {
            return false;
        };
        if sent
            .get(id)
            .is_some_and(|last| now < last.saturating_add(BACKSTOP_AFTER_MS))
        {
            return false;
        }
        if sent.len() >= REMEMBERED {
            sent.clear();
        }
        sent.insert(id.to_owned(), now);
        true
    }
}

impl Thinker for LambdaThinker {
    fn due<'a>(&'a self, id: &'a str, at: Millis, cue: Cue) -> Cued<'a> {
        Box::pin(async move {
            if cue == Cue::Seen && !self.backstop(id, at) {
                return;
            }
            let event = BotEvent {
                room_id: id.to_owned(),
                review: false,
            };
            self.invoke(id, &event).await;
        })
    }

    fn review<'a>(&'a self, id: &'a str) -> Cued<'a> {
        Box::pin(async move {
            let event = BotEvent {
                room_id: id.to_owned(),
                review: true,
            };
            self.invoke(id, &event).await;
        })
    }
}

impl LambdaThinker {
    /// Invokes the bot function asynchronously with `event`; a failure is logged only.
    async fn invoke(&self, id: &str, event: &BotEvent) {
        {
            let Ok(payload) = serde_json::to_vec(event) else {
                return;
            };
            let sent = self
                .client
                .invoke()
                .function_name(&self.function)
                .invocation_type(InvocationType::Event)
                .payload(Blob::new(payload))
                .send()
                .await;
            if let Err(e) = sent {
                // The request itself succeeded; the sweeper's backstop makes the move.
                tracing::warn!(
                    room = %crate::api::ids::digest_of(id),
                    error = %crate::error::chain(&e),
                    "the bot function could not be invoked"
                );
            }
        }
    }
}
