//! The sweeper racing a player, 1,000 times, on DynamoDB: never a double-applied timeout.
//!
//! Each repetition stores a fresh two-player 윷놀이 room whose turn timer ran out a second ago,
//! then starts at once the real [`sweeper::sweep`] and the current player's action through the
//! real request path ([`service::act`], without a pinned version, as an app sends it). Both go
//! through the store's one conditional save. Exactly one of the two legal orders must result:
//!
//! - the sweeper saves the timeout first, and the player acts on the room it left, or
//! - the player's request fires the timeout itself (catch-up) and saves it with the action, and
//!   the sweeper's save is refused (or it loads the room after and finds nothing due).
//!
//! A timeout applied twice would show three ways, each asserted: the firings reported by the
//! two sides (the sweeper's `timeouts_fired`, the timeout events in the player's answer) would
//! add up to two; the version would be three past the start instead of two; and the stored room
//! would differ byte for byte from the room computed in memory (timeout once, then the action).

use std::sync::Arc;
use std::time::Duration;

use madang_core::room::{AnyRoom, Room, RoomAction, TokenHash};
use madang_core::yut::Yut;
use madang_core::{Millis, PlayerId};
use madang_functions::api::events::Wire;
use madang_functions::service::{self, ActionRequest};
use madang_functions::{App, sweeper};
use madang_infra::{DynamoStore, RoomStore};
use madang_tests::games::yut_action;
use madang_tests::overdue::{OverdueRoom, overdue_turn};
use serde_json::{Value, json};
use tokio::sync::Barrier;

use madang_infra::emulator::dynalite_store;

/// How many times the two race: 1,000 in the soak (`madang_tests::race::long_races`), 250 in
/// the default run (each race is about ten requests to dynalite, which serves one at a time).
fn repetitions() -> usize {
    if madang_tests::race::long_races() {
        1_000
    } else {
        250
    }
}

/// What the player's request must produce at `now`: the room after the overdue timeout and the
/// action, the timeout's events, and the action's.
fn expected(
    fixture: &OverdueRoom,
    player: &PlayerId,
    action: &Value,
    now: Millis,
) -> (Room<Yut>, Vec<Value>, Vec<Value>) {
    let mut room = fixture.room.clone();
    let mut presence = fixture.presence.clone();
    presence.insert(player.clone(), now);
    let fired: Vec<Value> = room
        .catch_up(now, &presence)
        .iter()
        .map(|e| json!(e.wire()))
        .collect();
    assert_eq!(
        room.version,
        fixture.room.version + 1,
        "exactly one timeout was due"
    );
    let action = RoomAction::<Yut>::Game(serde_json::from_value(action.clone()).unwrap());
    let acted: Vec<Value> = room
        .act(player, action, now)
        .unwrap()
        .iter()
        .map(|e| json!(e.wire()))
        .collect();
    (room, fired, acted)
}

/// How one repetition went.
#[derive(Debug, Default)]
struct Tally {
    /// The sweeper saved the timeout; the player acted after.
    sweeper_first: usize,
    /// The player's request fired the timeout; the sweeper's reindex was refused.
    player_first_sweeper_refused: usize,
    /// The player's request fired the timeout before the sweeper loaded the room, or while it
    /// tried to save (its save was refused and redone on the fresh room: nothing left to fire).
    player_first_sweeper_late: usize,
}

/// The races run in this many lanes at once, each on a table of its own (a sweep lists the due
/// rooms of its whole table, so each lane must have its own), to keep the suite fast.
const LANES: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_racing_a_player_never_double_applies_a_timeout() {
    let started = std::time::Instant::now();
    let repetitions = repetitions();
    let lanes: Vec<_> = (0..LANES)
        .map(|lane| {
            tokio::spawn(async move {
                let store = Arc::new(dynalite_store("sweeper-race").await);
                let app = madang_tests::app_on(store.clone());
                let mut tally = Tally::default();
                for i in (lane..repetitions).step_by(LANES) {
                    race_once(&app, &store, i, &mut tally).await;
                }
                tally
            })
        })
        .collect();
    let mut tally = Tally::default();
    for lane in lanes {
        let lane = lane.await.unwrap();
        tally.sweeper_first += lane.sweeper_first;
        tally.player_first_sweeper_refused += lane.player_first_sweeper_refused;
        tally.player_first_sweeper_late += lane.player_first_sweeper_late;
    }
    println!(
        "sweeper vs player, {repetitions} races in {:.1} s: {tally:?}",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        tally.sweeper_first + tally.player_first_sweeper_refused + tally.player_first_sweeper_late,
        repetitions
    );
    // The race is real: both sides won some (the jitter below spreads the start times).
    assert!(
        tally.sweeper_first > 0
            && tally.player_first_sweeper_refused + tally.player_first_sweeper_late > 0,
        "{tally:?}"
    );
}

async fn race_once(app: &App<DynamoStore>, store: &Arc<DynamoStore>, i: usize, tally: &mut Tally) {
    let fixture = overdue_turn(app.clock.now(), i as u64);
    let before = fixture.room.version;
    store.create(&fixture.stored()).await.unwrap();

    // The player whose turn it is once the overdue timeout has fired (the timeout may have
    // thrown for them and left them to move, or passed the turn on), and the action their app
    // would send seeing that room.
    let now = app.clock.now();
    let mut after_timeout = fixture.room.clone();
    after_timeout.catch_up(now, &fixture.presence);
    let view = serde_json::to_value(after_timeout.view(None, &fixture.presence, now)).unwrap();
    let current = PlayerId::new(view["state"]["currentPlayer"].as_str().unwrap());
    let mine =
        serde_json::to_value(after_timeout.view(Some(&current), &fixture.presence, now)).unwrap();
    let action = yut_action(&mine["state"]);
    let token = &fixture
        .tokens
        .iter()
        .find(|(p, _)| *p == current)
        .unwrap()
        .1;

    // Both start together; the player is held back 0–11 ms so that either may win.
    let barrier = Arc::new(Barrier::new(2));
    let sweeping = {
        let (store, barrier, clock) = (store.clone(), barrier.clone(), app.clock.clone());
        tokio::spawn(async move {
            barrier.wait().await;
            sweeper::sweep(
                &*store,
                &madang_functions::announce::NoAnnouncer,
                &madang_functions::thinker::NoThinker,
                clock.now(),
                100,
            )
            .await
        })
    };
    let acting = {
        let (app, barrier, id) = (app.clone(), barrier.clone(), fixture.id.clone());
        let (hash, text) = (TokenHash::of(token), action.to_string());
        let jitter = Duration::from_micros((i as u64 * 7_919) % 12_000);
        tokio::spawn(async move {
            barrier.wait().await;
            // Deliberate jitter, not a wait for anything: it varies the interleaving from one
            // round to the next, and every outcome is checked whichever side wins.
            tokio::time::sleep(jitter).await;
            service::act(
                &app,
                &madang_core::room::RoomId::parse(&id).unwrap(),
                &hash,
                request_of(&text),
                None,
            )
            .await
        })
    };
    let swept = sweeping.await.unwrap();
    let acted = acting.await.unwrap().unwrap();

    // The room as stored, and as it must be: the player's `now` is the room's last update.
    let saved = store
        .load(
            &madang_core::room::RoomId::parse(&fixture.id).unwrap(),
            app.clock.now(),
        )
        .await
        .unwrap();
    let AnyRoom::Yut(room) = AnyRoom::decode(&saved.body).unwrap() else {
        panic!("not a 윷놀이 room")
    };
    let (mut want, fired, own) = expected(&fixture, &current, &action, room.updated_at);
    // The ids of the requests that saved it are random: the rest must match to the byte.
    want.ledger = room.ledger.clone();
    assert!(!fired.is_empty(), "a fired timeout has events");

    let events: Vec<Value> = acted
        .events
        .iter()
        .map(|e| serde_json::from_str(e.get()).unwrap())
        .collect();
    let player_fired = if events == [fired.clone(), own.clone()].concat() {
        1
    } else {
        assert_eq!(
            events, own,
            "the player's events: the timeout's and its own, or its own"
        );
        0
    };
    assert_eq!(
        swept.timeouts_fired + player_fired,
        1,
        "race {i}: the timeout fired exactly once (sweeper {swept:?}, player {player_fired})"
    );
    assert_eq!(swept.errors, 0, "{swept:?}");
    assert_eq!(
        saved.version,
        before + 2,
        "race {i}: one timeout and one action"
    );
    assert_eq!(acted.version, before + 2);
    assert_eq!(
        saved.body,
        AnyRoom::from(want).encode(),
        "race {i}: the stored room is the timeout once, then the action"
    );
    match (swept.timeouts_fired, swept.lost_races) {
        (1, 0) => tally.sweeper_first += 1,
        (0, 1) => tally.player_first_sweeper_refused += 1,
        (0, 0) => tally.player_first_sweeper_late += 1,
        other => panic!("race {i}: impossible sweep {other:?}: {swept:?}"),
    }

    // End the game, so the room leaves the due index and later sweeps see only their own room.
    let concede = json!({"type": "CONCEDE"}).to_string();
    let ended = service::act(
        app,
        &madang_core::room::RoomId::parse(&fixture.id).unwrap(),
        &TokenHash::of(token),
        request_of(&concede),
        None,
    )
    .await
    .unwrap();
    let room: serde_json::Value = serde_json::from_str(ended.room.get()).unwrap();
    assert_eq!(room["status"], "finished");
}

/// An action request as the edge checks it from the body's `action`, borrowing its text.
fn request_of(action: &str) -> ActionRequest<'_> {
    let (kind, action) = madang_functions::api::actions::parse_action(action).unwrap();
    ActionRequest {
        expected_version: None,
        kind,
        action,
    }
}
