//! The `sweeper` binary racing a player's request through the front door, on the Lambda path:
//! never a double-applied timeout.
//!
//! Each repetition stores a fresh two-player 윷놀이 room whose turn timer ran out a second ago,
//! then at once invokes the sweeper with a scheduled event and sends the current player's action
//! (unpinned, as an app sends it) through the front door to an `api` environment. Exactly one of
//! them may fire the timeout: the firings the two report (the sweep's `timeoutsFired`, the
//! timeout events in the player's answer) add up to one, and the room ends two versions on.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use madang_core::room::{AnyRoom, Presence, Room, RoomAction, TokenHash};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{GameRng, Millis, PlayerId};
use madang_infra::contract::fresh_id;
use madang_infra::{RoomStore, StoredRoom};
use madang_tests::games::yut_action;
use madang_tests::lambda::StackConfig;
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::Barrier;

use crate::stack;

/// How many times the two race (each costs a sweep, an action and a concession).
const REPETITIONS: usize = 150;
const TURN_MS: Millis = 30_000;
const OVERDUE_MS: Millis = 1_000;

fn now_ms() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as Millis
}

/// A started room whose first turn timed out a second ago, both players seen 5 s before the
/// deadline; its stored record and the players' tokens.
fn fixture(seed: u64) -> (StoredRoom, Room<Yut>, Presence, [(PlayerId, String); 2]) {
    let started = now_ms() - TURN_MS - OVERDUE_MS;
    let id = fresh_id("race");
    let tokens = [fresh_id("host-token"), fresh_id("guest-token")];
    let options = YutOptions {
        turn_seconds: Some(30),
        ..YutOptions::default()
    };
    let (mut room, host) = Room::<Yut>::create(
        id.clone(),
        "방장".into(),
        TokenHash::of(&tokens[0]),
        options,
        GameRng::seed_from_u64(seed),
        started,
    )
    .unwrap();
    let guest = room
        .join("손님".into(), TokenHash::of(&tokens[1]), started)
        .unwrap();
    let start = RoomAction::<Yut>::from_json(json!({"type": "start"})).unwrap();
    room.act(&host, start, started).unwrap();
    let seen = started + TURN_MS - 5_000;
    let presence = Presence::from([(host.clone(), seen), (guest.clone(), seen)]);
    let stored = StoredRoom {
        id,
        version: room.version,
        body: AnyRoom::from(room.clone()).encode(),
        due: room.due_at(&presence),
        expires_at: room.expires_at(),
        presence: presence
            .iter()
            .map(|(p, t)| (p.as_str().to_owned(), *t))
            .collect(),
        indexed_due: None,
        departed: Vec::new(),
    };
    let [host_token, guest_token] = tokens;
    (
        stored,
        room,
        presence,
        [(host, host_token), (guest, guest_token)],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_binary_racing_a_player_never_double_applies_a_timeout() {
    let stack = Arc::new(stack("l-sweeper-race", StackConfig::default()).await);
    let (mut sweeper_first, mut player_first) = (0, 0);
    for i in 0..REPETITIONS {
        let (stored, room, presence, tokens) = fixture(i as u64);
        let before = stored.version;
        stack.store.create(&stored).await.unwrap();
        let now = now_ms();
        let mut after = room.clone();
        let fired = after.catch_up(now, &presence).len();
        let view = serde_json::to_value(after.view(None, &presence, now)).unwrap();
        let current = PlayerId::new(view["state"]["currentPlayer"].as_str().unwrap());
        let mine = serde_json::to_value(after.view(Some(&current), &presence, now)).unwrap();
        let action = yut_action(&mine["state"]);
        let token = tokens
            .iter()
            .find(|(p, _)| *p == current)
            .unwrap()
            .1
            .clone();
        let own = after
            .clone()
            .act(
                &current,
                RoomAction::<Yut>::from_json(action.clone()).unwrap(),
                now,
            )
            .unwrap()
            .len();
        assert!(fired > 0, "exactly one timeout was due, and it has events");

        let barrier = Arc::new(Barrier::new(2));
        let sweeping = {
            let (stack, barrier) = (stack.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                stack.sweep().await
            })
        };
        let acting = {
            let (stack, barrier, id, token) = (
                stack.clone(),
                barrier.clone(),
                stored.id.clone(),
                token.clone(),
            );
            let jitter = Duration::from_micros((i as u64 * 7_919) % 12_000);
            let body = json!({"action": action});
            tokio::spawn(async move {
                barrier.wait().await;
                tokio::time::sleep(jitter).await;
                stack
                    .app
                    .post(&format!("/rooms/{id}/actions"), Some(&token), body)
                    .await
            })
        };
        let swept = sweeping.await.unwrap();
        let acted = acting.await.unwrap();
        assert_eq!(acted.status, StatusCode::OK, "race {i}: {:?}", acted.body);

        // The player's answer: the timeout's events and its own, or its own alone.
        let events = acted.body["events"].as_array().unwrap().len();
        let player_fired = if events == fired + own {
            1
        } else {
            assert_eq!(events, own, "race {i}: {:?}", acted.body["events"]);
            0
        };
        assert_eq!(swept["errors"], 0, "race {i}: {swept}");
        assert_eq!(
            swept["timeoutsFired"].as_u64().unwrap() + player_fired,
            1,
            "race {i}: the timeout fired exactly once (sweep {swept}, player {player_fired})"
        );
        let saved = stack.store.load(&stored.id, now_ms()).await.unwrap();
        assert_eq!(
            saved.version,
            before + 2,
            "race {i}: one timeout and one action"
        );
        assert_eq!(acted.body["version"], before + 2);
        if player_fired == 0 {
            sweeper_first += 1;
        } else {
            player_first += 1;
        }
        let concede = stack
            .app
            .post(
                &format!("/rooms/{}/actions", stored.id),
                Some(&token),
                json!({"action": {"type": "CONCEDE"}}),
            )
            .await;
        assert_eq!(concede.body["room"]["status"], "finished");
    }
    println!(
        "sweeper binary vs player, {REPETITIONS} races: sweeper first {sweeper_first}, player first {player_first}"
    );
    assert_eq!(sweeper_first + player_first, REPETITIONS);
    assert!(
        sweeper_first > 0 && player_first > 0,
        "both sides won some races"
    );
}
