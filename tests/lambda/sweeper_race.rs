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

use madang_core::room::RoomAction;
use madang_core::yut::Yut;
use madang_core::{Millis, PlayerId};
use madang_infra::RoomStore;
use madang_tests::games::yut_action;
use madang_tests::lambda::StackConfig;
use madang_tests::overdue::{OverdueRoom, overdue_turn};
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::Barrier;

use super::stack;

/// How many times the two race (each costs a sweep, an action and a concession).
const REPETITIONS: usize = 150;

fn now_ms() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as Millis
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_binary_racing_a_player_never_double_applies_a_timeout() {
    let stack = Arc::new(stack("l-sweeper-race", StackConfig::default()).await);
    let (mut sweeper_first, mut player_first) = (0, 0);
    for i in 0..REPETITIONS {
        let overdue = overdue_turn(now_ms(), i as u64);
        let stored = overdue.stored();
        let OverdueRoom {
            room,
            presence,
            tokens,
            ..
        } = overdue;
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
                RoomAction::<Yut>::Game(serde_json::from_value(action.clone()).unwrap()),
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
                // Deliberate jitter, not a wait for anything: it varies the interleaving from
                // one round to the next, and every outcome is checked whichever side wins.
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
        let saved = stack
            .store
            .load(
                &madang_core::room::RoomId::parse(&stored.id).unwrap(),
                now_ms(),
            )
            .await
            .unwrap();
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
