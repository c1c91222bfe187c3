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
use std::time::{Duration, SystemTime};

use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use madang_core::Millis;
use madang_core::room::RoomId;

use super::{Cue, Cued, Thinker};
use crate::clock::ServerClock;

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
    invoker: Invoker,
    clock: Arc<ServerClock>,
    /// When each room's backstop invocation was last sent from this environment.
    backstops: Mutex<HashMap<String, Millis>>,
}

impl LambdaThinker {
    /// The bot function `MADANG_BOT_FUNCTION` names, invoked with the SDK's configuration from
    /// the environment (credentials and region; `AWS_ENDPOINT_URL_LAMBDA`, or
    /// `AWS_ENDPOINT_URL`, points it at an emulator); `None` if unset.
    pub async fn from_env(clock: Arc<ServerClock>) -> Option<Self> {
        let function = std::env::var(FUNCTION_VAR).ok()?;
        let function = function.trim();
        if function.is_empty() {
            return None;
        }
        let config = madang_infra::dynamo::sdk_config().load().await;
        let region = config.region().map_or_else(
            || {
                tracing::warn!(
                    "no AWS region configured; the bot function is invoked in us-east-1"
                );
                "us-east-1".to_owned()
            },
            |r| r.as_ref().to_owned(),
        );
        let endpoint = std::env::var("AWS_ENDPOINT_URL_LAMBDA")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .or_else(|| config.endpoint_url().map(str::to_owned))
            .unwrap_or_else(|| format!("https://lambda.{region}.amazonaws.com"));
        let Some(credentials) = config.credentials_provider() else {
            tracing::warn!(
                "no AWS credentials configured; computer players are left to the sweeper"
            );
            return None;
        };
        let invoker = match Invoker::new(&endpoint, function, region, credentials) {
            Ok(invoker) => invoker,
            Err(e) => {
                tracing::warn!(error = %crate::error::chain(&*e), "the bot function's client could not be built");
                return None;
            }
        };
        Some(LambdaThinker {
            invoker,
            clock,
            backstops: Mutex::default(),
        })
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
    fn due<'a>(&'a self, id: &'a RoomId, at: Millis, cue: Cue) -> Cued<'a> {
        Box::pin(async move {
            if cue == Cue::Seen && !self.backstop(id.as_str(), at) {
                return;
            }
            let event = BotEvent {
                room_id: id.to_string(),
                review: false,
            };
            self.invoke(id.as_str(), &event).await;
        })
    }

    fn review<'a>(&'a self, id: &'a RoomId) -> Cued<'a> {
        Box::pin(async move {
            let event = BotEvent {
                room_id: id.to_string(),
                review: true,
            };
            self.invoke(id.as_str(), &event).await;
        })
    }
}

impl LambdaThinker {
    /// Invokes the bot function asynchronously with `event`; a failure is logged only: the
    /// request itself succeeded, and the sweeper's backstop makes the move.
    async fn invoke(&self, id: &str, event: &BotEvent) {
        let Ok(payload) = serde_json::to_vec(event) else {
            return;
        };
        if let Err(e) = self.invoker.invoke_event(payload).await {
            tracing::warn!(
                room = %crate::api::ids::digest_of(id),
                error = %crate::error::chain(&*e),
                "the bot function could not be invoked"
            );
        }
    }
}

/// Lambda's `Invoke` with `InvocationType: Event`, as one SigV4-signed POST
/// (`/2015-03-31/functions/{name}/invocations`, answered `202 Accepted` once Lambda has queued
/// the event). It is the only Lambda call Madang makes: the SDK crate for it was a fifth of a
/// release build's time.
#[derive(Debug)]
struct Invoker {
    http: reqwest::Client,
    /// The invocation URL of the function.
    url: String,
    region: String,
    credentials: SharedCredentialsProvider,
}

/// How long one invocation may take, connection included: an `Event` invocation only queues.
const INVOKE_TIMEOUT: Duration = Duration::from_secs(3);

type InvokeError = Box<dyn std::error::Error + Send + Sync>;

impl Invoker {
    fn new(
        endpoint: &str,
        function: &str,
        region: String,
        credentials: SharedCredentialsProvider,
    ) -> Result<Self, InvokeError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(2))
            .timeout(INVOKE_TIMEOUT)
            .build()?;
        Ok(Invoker {
            http,
            url: invocation_url(endpoint, function),
            region,
            credentials,
        })
    }

    /// Queues one asynchronous invocation with `payload`; tried twice when the first attempt
    /// fails in transit or is answered 429 or 5xx (Lambda's own throttling and faults). A
    /// duplicate invocation is harmless: the bot function finds the move made, or makes it once.
    async fn invoke_event(&self, payload: Vec<u8>) -> Result<(), InvokeError> {
        let mut last = None;
        for attempt in 0..2 {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            match self.attempt(&payload).await {
                Ok(status) if status.is_success() => return Ok(()),
                Ok(status) if status.as_u16() == 429 || status.is_server_error() => {
                    last = Some(format!("Lambda answered {status}").into());
                }
                Ok(status) => return Err(format!("Lambda answered {status}").into()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| "no attempt was made".into()))
    }

    async fn attempt(&self, payload: &[u8]) -> Result<reqwest::StatusCode, InvokeError> {
        let identity = self.credentials.provide_credentials().await?.into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("lambda")
            .time(SystemTime::now())
            .settings(SigningSettings::default())
            .build()?
            .into();
        let headers = [
            ("content-type", "application/json"),
            ("x-amz-invocation-type", "Event"),
        ];
        let signable = SignableRequest::new(
            "POST",
            &self.url,
            headers.iter().copied(),
            SignableBody::Bytes(payload),
        )?;
        let (signing, _signature) = sign(signable, &params)?.into_parts();
        let mut request = self.http.post(&self.url).body(payload.to_vec());
        for (name, value) in headers.into_iter().chain(signing.headers()) {
            request = request.header(name, value);
        }
        Ok(request.send().await?.status())
    }
}

/// The invocation URL of `function` (a name, or an ARN whose colons are percent-encoded as the
/// SDK encodes its path label) at `endpoint`.
fn invocation_url(endpoint: &str, function: &str) -> String {
    let mut name = String::with_capacity(function.len());
    for b in function.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    format!(
        "{}/2015-03-31/functions/{name}/invocations",
        endpoint.trim_end_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_name_is_the_path_as_is_and_an_arn_is_percent_encoded() {
        assert_eq!(
            invocation_url("http://127.0.0.1:9001/", "madang-BotFunction-1"),
            "http://127.0.0.1:9001/2015-03-31/functions/madang-BotFunction-1/invocations"
        );
        assert_eq!(
            invocation_url(
                "https://lambda.ap-northeast-2.amazonaws.com",
                "arn:aws:lambda:ap-northeast-2:123456789012:function:bot"
            ),
            "https://lambda.ap-northeast-2.amazonaws.com/2015-03-31/functions/\
             arn%3Aaws%3Alambda%3Aap-northeast-2%3A123456789012%3Afunction%3Abot/invocations"
        );
    }
}
