//! 64 clients race to act on one room, each pinning the version it saw and keying every request;
//! some send an accepted request again, as after a lost answer. Shared by every suite: every
//! version must be accepted exactly once, nothing may be lost, every retry of a key gets the
//! first answer (or, once the room has forgotten the key under its per-player bound, a conflict,
//! never a second application), and the final state must equal a replay of the accepted actions through the
//! engine.

use std::sync::Arc;
use std::time::Duration;

use madang_core::room::ANSWERS_PER_PLAYER;
use madang_core::yut::{Action, Yut, YutOptions};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::games::yut_action;
use crate::{Player, TestApp};

/// How many clients race.
pub const CLIENTS: usize = 64;
/// The room's seed (the replay uses it too).
pub const SEED: u64 = 2024;
/// The race stops after this many accepted actions (or at the end of the game).
pub const ACTIONS: u64 = 120;

/// Whether this run makes the long races (`MADANG_LONG_RACES=1`, set by `scripts/soak`): the
/// races on dynalite, which serves one request at a time, are bounded in the default run (the
/// 64-client race to 40 actions instead of [`ACTIONS`], the sweeper race 250 times instead of
/// 1,000) and made whole by the soak. Every assertion is the same in both.
pub fn long_races() -> bool {
    std::env::var("MADANG_LONG_RACES").is_ok_and(|v| v == "1")
}

/// The state without its clock readings (the replay runs at time 0).
fn without_deadline(mut state: Value) -> Value {
    let fields = state.as_object_mut().unwrap();
    fields.remove("deadlineAt");
    fields.remove("turnStartedAt");
    state
}

/// How a client whose player is not on turn waits for the room to change.
#[derive(Clone, Copy, Debug)]
pub enum Waiting {
    /// A long-poll (`?since=V&wait=2`), as the apps wait: one request per change, and every
    /// device of the player whose turn comes wakes on the same save, so all of them race for
    /// the next version at once.
    LongPoll,
    /// A read every so often: through the Lambda emulator, where a long-poll would hold one of
    /// the four `api` environments for its whole wait and queue the racing actions behind it.
    Poll(Duration),
}

/// Races [`CLIENTS`] clients (devices of the two players) on one room until `actions` actions
/// landed or the game ended; returns the accepted `(version, player, action)` log, by version.
///
/// The devices of the player on turn race each other: each reads the room, acts on the version
/// it saw, and on a conflict reads again at once. The other player's devices wait as `waiting`
/// says (before, they read in a loop as fast as the server answered, which made the race a
/// flood of reads: on dynalite, two minutes of the test suite for no more conflicts).
pub async fn race(
    app: Arc<TestApp>,
    room: String,
    players: Vec<Player>,
    start: u64,
    actions: u64,
    waiting: Waiting,
) -> Vec<(u64, String, Value)> {
    let log = Arc::new(Mutex::new(Vec::new()));
    // Retries whose key the room had already forgotten: (version, player) of the first answer.
    let forgotten = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (app, room, log, forgotten) =
                (app.clone(), room.clone(), log.clone(), forgotten.clone());
            let me = players[i % players.len()].clone();
            tokio::spawn(async move {
                let mut sent = 0u64;
                let mut woken = None;
                loop {
                    let view = match woken.take() {
                        Some(view) => view,
                        None => app.room(&room, Some(&me)).await,
                    };
                    let version = view["version"].as_u64().unwrap();
                    if view["status"] == "finished" || version >= start + actions {
                        return;
                    }
                    if view["state"]["currentPlayer"] != me.id.as_str() {
                        match waiting {
                            Waiting::LongPoll => {
                                let path = format!("/rooms/{room}?since={version}&wait=2");
                                let r = app.get(&path, Some(&me.token)).await;
                                match r.status {
                                    StatusCode::OK => woken = Some(r.body),
                                    // Nothing saved within the wait: the race is over.
                                    StatusCode::NOT_MODIFIED => {}
                                    other => panic!("long-poll answered {other}: {:?}", r.body),
                                }
                            }
                            Waiting::Poll(pause) => tokio::time::sleep(pause).await,
                        }
                        continue;
                    }
                    let action = yut_action(&view["state"]);
                    let body = json!({"expectedVersion": version, "action": action});
                    // Every request is keyed, as the client library sends them; every third
                    // accepted one is sent again, as after a lost answer.
                    sent += 1;
                    let key = format!("client-{i}-{sent}");
                    let r = app.keyed(&room, &me, &key, body.clone()).await;
                    match r.status {
                        StatusCode::OK => {
                            assert_eq!(r.body["version"], version + 1);
                            log.lock().await.push((version + 1, me.id.clone(), action));
                            if sent.is_multiple_of(3) {
                                let again = app.keyed(&room, &me, &key, body).await;
                                match again.status {
                                    StatusCode::OK => {
                                        assert_eq!(again.headers["idempotent-replayed"], "true");
                                        assert_eq!(again.body["version"], r.body["version"]);
                                        assert_eq!(
                                            again.body["events"],
                                            json!([]),
                                            "not acted again"
                                        );
                                    }
                                    // The room keeps a player's last `ANSWERS_PER_PLAYER` keyed
                                    // answers, and 31 other devices of the same player race
                                    // this one: on a loaded machine they can land that many
                                    // actions before this retry goes out, and then the key is
                                    // forgotten. The retry is then a new request on a stale
                                    // version: refused, never applied twice. Checked after the
                                    // race: that many later actions of this player did land.
                                    StatusCode::CONFLICT => {
                                        assert_eq!(again.body["code"], "VERSION_CONFLICT");
                                        forgotten.lock().await.push((version + 1, me.id.clone()));
                                    }
                                    other => panic!("retry answered {other}: {:?}", again.body),
                                }
                            }
                        }
                        StatusCode::CONFLICT => {
                            assert!(r.body["room"]["version"].as_u64().unwrap() > version)
                        }
                        other => panic!("unexpected {other}: {:?}", r.body),
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let mut log = Arc::try_unwrap(log).unwrap().into_inner();
    log.sort_by_key(|(v, _, _)| *v);
    for (version, player) in Arc::try_unwrap(forgotten).unwrap().into_inner() {
        let later = log
            .iter()
            .filter(|(v, p, _)| *v > version && *p == player)
            .count();
        assert!(
            later >= ANSWERS_PER_PLAYER,
            "the key of version {version} was forgotten after only {later} later answers of {player}"
        );
    }
    log
}

/// The whole race check on `app`: a two-player 윷놀이 room, [`CLIENTS`] racing clients, then
/// every version accepted exactly once and the final state equal to the engine's replay of the
/// accepted log from the same seed.
pub async fn check_racing_clients_never_double_apply(app: Arc<TestApp>, waiting: Waiting) {
    check_racing_clients_never_double_apply_for(app, ACTIONS, waiting).await;
}

/// [`check_racing_clients_never_double_apply`] until `actions` actions landed: a shorter race,
/// for a test that needs conflicts rather than a long game (each action through the Lambda
/// emulator costs the suite about half a second).
pub async fn check_racing_clients_never_double_apply_for(
    app: Arc<TestApp>,
    actions: u64,
    waiting: Waiting,
) {
    let options = json!({"turnSeconds": null});
    let (room, host) = app.create("yut", options.clone(), SEED).await;
    let guest = app.join(&room, "손님").await;
    let start = app.act_ok(&room, &host, json!({"type": "start"})).await["version"]
        .as_u64()
        .unwrap();

    let log = race(
        app.clone(),
        room.clone(),
        vec![host.clone(), guest.clone()],
        start,
        actions,
        waiting,
    )
    .await;
    let end = app.room(&room, None).await;
    let last = end["version"].as_u64().unwrap();
    let versions: Vec<u64> = log.iter().map(|(v, _, _)| *v).collect();
    assert_eq!(
        versions,
        (start + 1..=last).collect::<Vec<_>>(),
        "each version accepted exactly once, none lost"
    );

    // Replay the accepted log through the engine from the same seed.
    let lineup = Lineup {
        players: vec![PlayerId::new(&host.id), PlayerId::new(&guest.id)],
        host: PlayerId::new(&host.id),
    };
    let opts: YutOptions = serde_json::from_value(options).unwrap();
    let mut rng = GameRng::seed_from_u64(SEED);
    let mut state = Yut::setup(&lineup, &opts, &mut rng, 0).unwrap();
    for (_, player, action) in &log {
        let action: Action = serde_json::from_value(action.clone()).unwrap();
        Yut::apply(
            &mut state,
            Actor::Player(&PlayerId::new(player)),
            &action,
            &mut rng,
            0,
        )
        .unwrap();
    }
    let replayed = serde_json::to_value(Yut::room_view(&state, None, last)).unwrap();
    assert_eq!(
        without_deadline(replayed),
        without_deadline(end["state"].clone())
    );
}
