//! The replay log (DESIGN "Replay"): a replayed step is the room exactly as it stood at that
//! version, for both games, with people acting, timeouts firing (at the deadline and after a
//! grace period), computer players moving and players leaving; and the log survives the stored
//! form.

use madang_core::baduk::{Baduk, BadukOptions};
use madang_core::room::{
    AnyRoom, CHECKPOINT_EVERY, LobbyAction, Presence, Replay, ReplayError, Room, RoomAction,
    Status, TokenHash,
};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{Game, GameRng, Millis, PlayerId};

/// The spectator's view of `room` with everyone seen at its last change, as JSON without
/// `pollAfterMs` (a read's timing, not the room's).
fn spectator<G: Game>(room: &Room<G>) -> serde_json::Value {
    let presence = room.replay_presence();
    let mut v = serde_json::to_value(room.view(None, &presence, room.updated_at)).unwrap();
    v.as_object_mut().unwrap().remove("pollAfterMs");
    v
}

/// Plays a game to its end (or `max` changes): people act with `choose` (or, now and then,
/// let their timeout fire, connected or not), computer players move when due, and `leaver`
/// leaves after 20 changes. Returns the spectator's view at each version from the start on.
fn play<G: Game>(
    room: &mut Room<G>,
    people: &[PlayerId],
    leaver: Option<&PlayerId>,
    seed: u64,
    max: usize,
    timeouts: bool,
    mut choose: impl FnMut(&Room<G>, &PlayerId, &mut GameRng) -> Option<G::Action>,
) -> Vec<(u64, serde_json::Value)> {
    let mut dice = GameRng::seed_from_u64(seed);
    let mut now: Millis = room.updated_at + 1_000;
    let mut seen = vec![(room.version, spectator(room))];
    let mut left = false;
    for _ in 0..max {
        if room.status() == Status::Finished {
            break;
        }
        let here: Presence = people
            .iter()
            .filter(|p| room.member(p).is_some_and(|m| !m.left))
            .map(|p| (p.clone(), now))
            .collect();
        now += 300 + u64::from(dice.below(4_000));
        let state = room.game.as_ref().unwrap();
        let active: Vec<PlayerId> = G::active_players(state)
            .into_iter()
            .filter(|p| people.contains(p) && room.member(p).is_some_and(|m| !m.left))
            .collect();
        let roll = dice.below(20);
        if let (Some(who), false) = (leaver, left)
            && seen.len() > 20
        {
            room.act(who, RoomAction::Lobby(LobbyAction::Leave), now)
                .unwrap();
            left = true;
        } else if let Some(player) = active.first().filter(|_| roll > 1 || !timeouts)
            && let Some(action) = choose(room, player, &mut dice)
        {
            let _ = room.act(player, RoomAction::Game(action), now);
        } else {
            // A timeout or a computer player's move: when it is due, with everyone connected,
            // or (now and then) with nobody seen, so a grace period fires instead.
            let presence = if roll == 0 { Presence::new() } else { here };
            if let Some(due) = room.due_at(&presence) {
                now = now.max(due);
                room.play_one(now, &presence);
            }
        }
        if seen.last().unwrap().0 != room.version {
            seen.push((room.version, spectator(room)));
        }
    }
    seen
}

/// Every version seen during play equals its replayed step, in order and at random, and the
/// log decodes again after the stored form.
fn check_replay<G: Game>(room: &Room<G>, seen: &[(u64, serde_json::Value)])
where
    Room<G>: Into<AnyRoom>,
{
    let stored = AnyRoom::decode(&room.clone().into().encode()).unwrap();
    assert_eq!(
        stored,
        room.clone().into(),
        "the log survives the stored form"
    );
    let mut replay = Replay::new(room).unwrap();
    let log = room.game_log().unwrap();
    assert_eq!(replay.steps(), seen.len() - 1, "one step per version");
    for (n, (version, view)) in seen.iter().enumerate() {
        assert_eq!(log.version_at(n), *version);
        let at = replay.at(n as u64).unwrap();
        assert_eq!(&spectator(&at), view, "step {n} (version {version})");
    }
    // Backwards, from a fresh replay: the checkpoints give the same rooms.
    let mut fresh = Replay::new(room).unwrap();
    for n in (0..seen.len()).rev().step_by(7) {
        assert_eq!(spectator(&fresh.at(n as u64).unwrap()), seen[n].1);
    }
    assert_eq!(
        replay.at(seen.len() as u64).err(),
        Some(ReplayError::StepNotFound {
            at: seen.len() as u64,
            of: seen.len() - 1
        })
    );
}

fn yut_room(
    players: usize,
    bots: usize,
    options: YutOptions,
    seed: u64,
) -> (Room<Yut>, Vec<PlayerId>) {
    let (mut room, host) = Room::<Yut>::create(
        "replay-yut".into(),
        "방장".into(),
        TokenHash::of("t0"),
        options,
        GameRng::seed_from_u64(seed),
        1_000,
    )
    .unwrap();
    let mut people = vec![host.clone()];
    for i in 1..players {
        people.push(
            room.join(format!("손님{i}"), TokenHash::of(&format!("t{i}")), 2_000)
                .unwrap(),
        );
    }
    for _ in 0..bots {
        room.act(
            &host,
            RoomAction::Lobby(LobbyAction::AddBot { level: Some(2) }),
            3_000,
        )
        .unwrap();
    }
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 4_000)
        .unwrap();
    (room, people)
}

/// A person's choice: what the weakest computer player would do.
fn like_a_bot<G: Game>(room: &Room<G>, player: &PlayerId, dice: &mut GameRng) -> Option<G::Action> {
    G::bot_action(room.game.as_ref()?, player, 1, dice).ok()
}

#[test]
fn every_step_of_a_yut_game_replays_as_it_was_seen() {
    for seed in 0..4 {
        let (mut room, people) = yut_room(3, 1, YutOptions::default(), seed);
        let leaver = people[2].clone();
        let seen = play(
            &mut room,
            &people,
            Some(&leaver),
            seed,
            3_000,
            true,
            like_a_bot::<Yut>,
        );
        assert!(seen.len() > 40, "a real game: {} steps", seen.len());
        check_replay(&room, &seen);
    }
}

#[test]
fn a_finished_yut_game_replays_to_its_result_and_reveals_the_seed_only_there() {
    let (mut room, people) = yut_room(2, 0, YutOptions::default(), 9);
    let seen = play(&mut room, &people, None, 9, 5_000, true, like_a_bot::<Yut>);
    assert_eq!(room.status(), Status::Finished);
    check_replay(&room, &seen);
    let mut replay = Replay::new(&room).unwrap();
    let last = replay.steps() as u64;
    for n in 0..last {
        let v = spectator(&replay.at(n).unwrap());
        assert!(
            v["result"].is_null(),
            "step {n} shows no result, so no seed"
        );
    }
    assert!(spectator(&replay.at(last).unwrap())["result"]["rngReveal"]["seed"].is_string());
}

fn baduk_room(size: u32, bot: bool, seed: u64) -> (Room<Baduk>, Vec<PlayerId>) {
    let options = BadukOptions {
        board_size: size,
        ..BadukOptions::default()
    };
    let (mut room, host) = Room::<Baduk>::create(
        "replay-baduk".into(),
        "흑돌".into(),
        TokenHash::of("b0"),
        options,
        GameRng::seed_from_u64(seed),
        1_000,
    )
    .unwrap();
    let mut people = vec![host.clone()];
    if bot {
        room.act(
            &host,
            RoomAction::Lobby(LobbyAction::AddBot { level: Some(1) }),
            2_000,
        )
        .unwrap();
    } else {
        people.push(
            room.join("백돌".into(), TokenHash::of("b1"), 2_000)
                .unwrap(),
        );
    }
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 3_000)
        .unwrap();
    (room, people)
}

/// A person at the 바둑 board: mostly a random point, sometimes a pass, an undo request or
/// its answer, and the score agreed once counting starts.
fn baduk_person(
    room: &Room<Baduk>,
    player: &PlayerId,
    dice: &mut GameRng,
) -> Option<madang_core::baduk::BadukAction> {
    use madang_core::baduk::BadukAction as A;
    let state = room.game.as_ref()?;
    let size = state.options().size() as u32;
    let view = serde_json::to_value(Baduk::view(state, Some(player))).unwrap();
    if view["phase"] == "scoring" {
        return Some(A::AgreeScore {});
    }
    if !view["undo"]["pending"].is_null() {
        return Some(A::RespondUndo {
            accept: dice.below(2) == 0,
        });
    }
    Some(match dice.below(40) {
        0 => A::Pass {},
        1 => A::RequestUndo {},
        _ => A::Place {
            x: dice.below(size) as i32,
            y: dice.below(size) as i32,
        },
    })
}

#[test]
fn every_step_of_a_baduk_game_replays_as_it_was_seen() {
    for seed in 0..3 {
        let (mut room, people) = baduk_room(9, false, seed);
        let seen = play(&mut room, &people, None, seed, 400, seed != 0, baduk_person);
        assert!(seed != 0 || seen.len() > 60, "{} steps", seen.len());
        check_replay(&room, &seen);
    }
}

#[test]
fn a_baduk_game_against_a_computer_player_replays_its_moves_and_draws() {
    let (mut room, people) = baduk_room(9, true, 5);
    let seen = play(&mut room, &people, None, 5, 120, false, baduk_person);
    check_replay(&room, &seen);
}

#[test]
fn a_lobby_has_no_replay_and_a_room_without_a_log_says_so() {
    let (room, _) = Room::<Yut>::create(
        "lobby".into(),
        "방장".into(),
        TokenHash::of("t"),
        YutOptions::default(),
        GameRng::seed_from_u64(1),
        0,
    )
    .unwrap();
    assert_eq!(Replay::new(&room).err(), Some(ReplayError::NotStarted));
    let (mut started, _) = yut_room(2, 0, YutOptions::default(), 1);
    started.replay = None;
    assert_eq!(Replay::new(&started).err(), Some(ReplayError::NotKept));
    assert_eq!(ReplayError::NotKept.code(), "REPLAY_NOT_KEPT");
}

#[test]
fn a_replay_kept_for_a_game_in_progress_takes_the_newer_log_and_its_checkpoints_stay() {
    let (mut room, people) = yut_room(2, 1, YutOptions::default(), 3);
    let seen = play(
        &mut room,
        &people,
        None,
        3,
        2 * CHECKPOINT_EVERY + 5,
        true,
        like_a_bot::<Yut>,
    );
    let mut replay = Replay::new(&room).unwrap();
    replay.at(replay.steps() as u64).unwrap();
    let before = replay.steps();
    let more = play(&mut room, &people, None, 4, 40, true, like_a_bot::<Yut>);
    replay.extend(&room).unwrap();
    assert!(replay.steps() > before);
    let n = replay.steps() as u64;
    assert_eq!(spectator(&replay.at(n).unwrap()), more.last().unwrap().1);
    assert_eq!(spectator(&replay.at(3).unwrap()), seen[3].1);
}
