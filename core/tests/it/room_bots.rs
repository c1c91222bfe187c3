//! Computer players in a room (issue 22): `addBot` in the lobby, and their moves fired by the
//! room's play-out (the server's thinker) after a think time, exactly once, the same on every server.

use madang_core::room::{
    BOT_THINK_MAX_MS, BOT_THINK_MIN_MS, LobbyAction, LobbyEvent, Presence, Room, RoomAction,
    RoomError, RoomEvent, Status, TokenHash,
};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{Game, GameRng, Millis, PlayerId};

fn lobby(options: YutOptions) -> (Room<Yut>, PlayerId) {
    Room::<Yut>::create(
        "room-bots".into(),
        "방장".into(),
        TokenHash::of("t0"),
        options,
        GameRng::seed_from_u64(22),
        0,
    )
    .unwrap()
}

fn add_bot(room: &mut Room<Yut>, host: &PlayerId, level: Option<u8>) -> PlayerId {
    let events = room
        .act(host, RoomAction::Lobby(LobbyAction::AddBot { level }), 10)
        .unwrap();
    match &events[..] {
        [RoomEvent::Lobby(LobbyEvent::BotAdded { player_id, .. })] => player_id.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_host_fills_empty_seats_with_named_bots_and_kicks_them_out_again() {
    let (mut room, host) = lobby(YutOptions::default());
    let one = add_bot(&mut room, &host, None);
    let two = add_bot(&mut room, &host, Some(3));
    let view = room.view(Some(&host), &Presence::new(), 20);
    let names: Vec<(&str, bool, Option<u8>)> = view
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.bot, p.bot_level))
        .collect();
    assert_eq!(
        names,
        [
            ("방장", false, None),
            ("컴퓨터 1", true, Some(1)),
            ("컴퓨터 2", true, Some(3))
        ]
    );
    assert!(view.players[1].connected, "a bot is always there");

    // Only the host, only known levels, only empty seats.
    let guest = room.join("손님".into(), TokenHash::of("g"), 30).unwrap();
    let add = |level| RoomAction::Lobby(LobbyAction::AddBot { level });
    assert_eq!(
        room.act(&guest, add(None), 40).err(),
        Some(RoomError::NotHost)
    );
    assert_eq!(
        room.act(&host, add(Some(9)), 40).err(),
        Some(RoomError::BadBotLevel)
    );
    assert_eq!(
        room.act(&host, add(Some(0)), 40).err(),
        Some(RoomError::BadBotLevel)
    );
    let version = room.version;
    assert_eq!(room.seats.len(), YutOptions::default().max_players());
    assert_eq!(
        room.act(&host, add(None), 50).err(),
        Some(RoomError::RoomFull)
    );
    assert_eq!(room.version, version, "refusals change nothing");

    // A bot's token never authenticates, and `kick` removes it without barring anyone.
    assert_eq!(room.authenticate(&TokenHash([0; 16])), None);
    room.act(
        &host,
        RoomAction::Lobby(LobbyAction::Kick { player_id: one }),
        60,
    )
    .unwrap();
    assert!(room.member(&two).is_some());
    assert_eq!(room.seats.len(), 3);
    assert!(room.barred.is_empty());
    // The freed name is handed out again.
    add_bot(&mut room, &host, None);
    assert!(room.seats.iter().any(|m| m.name == "컴퓨터 1"));
}

#[test]
fn the_host_role_never_passes_to_a_bot_and_a_joiner_takes_it() {
    let (mut room, host) = lobby(YutOptions::default());
    add_bot(&mut room, &host, None);
    room.act(&host, RoomAction::Lobby(LobbyAction::Leave), 20)
        .unwrap();
    assert_eq!(room.seats.len(), 1);
    assert_eq!(room.host, host, "nobody to pass it to");
    let newcomer = room.join("새손님".into(), TokenHash::of("n"), 30).unwrap();
    assert_eq!(room.host, newcomer);
    room.act(&newcomer, RoomAction::Lobby(LobbyAction::Start), 40)
        .unwrap();
    assert_eq!(room.status(), Status::Playing);
}

/// Runs the room until the game ends, reading it only at the moments a client would (each
/// `pollAfterMs`), with the human playing the first legal move whenever it is their turn.
fn play_out(room: &mut Room<Yut>, human: &PlayerId, mut now: Millis) -> (Millis, usize) {
    let mut presence = Presence::new();
    let mut bot_actions = 0;
    for _ in 0..20_000 {
        presence.insert(human.clone(), now);
        let before = room.version;
        let fired = room.play_out(now, &presence);
        bot_actions += (room.version - before) as usize;
        assert_eq!(fired.is_empty(), room.version == before);
        if room.status() == Status::Finished {
            return (now, bot_actions);
        }
        let state = room.game.as_ref().unwrap();
        if state.current_player() == Some(human) {
            let action = Yut::on_timeout(state, human, now).unwrap();
            room.act(human, RoomAction::Game(action), now).unwrap();
            continue;
        }
        // A bot holds the turn: its move is due within a think time of the last change, and
        // the view says when.
        let due = room.deadline_at(&presence, now).unwrap();
        assert!(due >= room.updated_at + BOT_THINK_MIN_MS, "{due}");
        assert!(due <= room.updated_at + BOT_THINK_MAX_MS, "{due}");
        let version = room.version;
        room.play_out(due - 1, &presence);
        assert_eq!(room.version, version, "nothing fires before it is due");
        now = due + room.poll_after(Some(human), &presence, due - 1).min(100);
    }
    panic!("the game did not end");
}

#[test]
fn three_bots_and_a_person_play_a_four_seat_game_to_its_end_by_the_thinkers_play_out_alone() {
    let (mut room, host) = lobby(YutOptions::default());
    for level in [1, 2, 3] {
        add_bot(&mut room, &host, Some(level));
    }
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    let state = room.game.as_ref().unwrap();
    for bot in &room.seats[1..] {
        assert!(Yut::is_bot(state, &bot.id));
    }
    let twin = room.clone();
    let (_, bot_actions) = play_out(&mut room, &host, 100);
    assert!(bot_actions > 10);
    let result = Yut::result(room.game.as_ref().unwrap()).unwrap();
    assert!(!result.winners.is_empty());

    // The same room played again from the same start ends the same, move for move: a bot's
    // choice is a function of the stored room, so two racing servers compute the same one.
    let mut again = twin;
    play_out(&mut again, &host, 100);
    assert_eq!(again, room);
}

#[test]
fn a_bot_move_is_computed_the_same_by_two_loaders_of_the_same_room() {
    let (mut room, host) = lobby(YutOptions::default());
    add_bot(&mut room, &host, Some(3));
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    let presence: Presence = [(host.clone(), 100)].into();
    let mut checked = 0;
    let mut now = 100;
    while room.status() == Status::Playing && checked < 30 {
        let state = room.game.as_ref().unwrap();
        if state.current_player() == Some(&host) {
            let action = Yut::on_timeout(state, &host, now).unwrap();
            room.act(&host, RoomAction::Game(action), now).unwrap();
            continue;
        }
        now = room.deadline_at(&presence, now).unwrap();
        let (mut a, mut b) = (room.clone(), room.clone());
        let fired_a = a.play_out(now, &presence);
        let fired_b = b.play_out(now, &presence);
        assert_eq!(a, b);
        assert_eq!(fired_a, fired_b);
        assert_eq!(a.version, room.version + 1, "one bot action per due time");
        room = a;
        checked += 1;
    }
    assert_eq!(checked, 30);
}

#[test]
fn a_rematch_keeps_the_bots_in_their_seats() {
    let (mut room, host) = lobby(YutOptions::default());
    let bot = add_bot(&mut room, &host, Some(2));
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    play_out(&mut room, &host, 100);
    let rematch = room
        .rematch_lobby("next".into(), &host, GameRng::seed_from_u64(5), 9_000_000)
        .unwrap();
    assert_eq!(rematch.host, host);
    let seat = rematch.member(&bot).unwrap();
    assert_eq!((seat.bot, seat.name.as_str()), (Some(2), "컴퓨터 1"));
}

#[test]
fn a_game_whose_people_all_left_plays_itself_out_at_once() {
    let options = YutOptions {
        on_leave: madang_core::yut::OnLeave::Bot,
        ..YutOptions::default()
    };
    let (mut room, host) = lobby(options);
    add_bot(&mut room, &host, Some(3));
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    room.act(&host, RoomAction::Lobby(LobbyAction::Leave), 200)
        .unwrap();
    // Nobody is left to watch: no think time, one play-out ends it.
    room.play_out(200, &Presence::new());
    assert_eq!(room.status(), Status::Finished);
}

/// A kept plan (the bot function's choice, kept with the room as bytes) plays exactly as the
/// search would have, only once due and only on the version it was made for; a catch-up never
/// searches. Also for a 바둑 search, whose generator draws are replayed from the plan.
#[test]
fn a_kept_plan_lands_in_a_catch_up_once_due_on_its_version_only_as_the_search_would_have() {
    let (mut room, host) = lobby(YutOptions::default());
    add_bot(&mut room, &host, Some(3));
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    let presence: Presence = [(host.clone(), 100)].into();
    let mut planned = 0;
    let mut now = 100;
    while room.status() == Status::Playing && planned < 30 {
        let state = room.game.as_ref().unwrap();
        if state.current_player() == Some(&host) {
            let action = Yut::on_timeout(state, &host, now).unwrap();
            room.act(&host, RoomAction::Game(action), now).unwrap();
            continue;
        }
        let turn = room.bot_turn(&presence).expect("a bot's move comes next");
        let plan = room.choose(&turn).unwrap().plan(1_234);
        assert_eq!(room.plan_due(&plan, &presence), Some(turn.at));
        // Before its due time a catch-up leaves it.
        let mut early = room.clone();
        let (events, landed) = early.catch_up_planned(turn.at - 1, &presence, Some(&plan));
        assert!(events.is_empty() && landed.is_none());
        assert_eq!(early, room);
        // At it, the plan plays exactly what the search plays.
        now = turn.at;
        let mut searched = room.clone();
        searched.play_out(now, &presence);
        let mut kept = room.clone();
        let (_, landed) = kept.catch_up_planned(now, &presence, Some(&plan));
        assert_eq!(landed.map(|l| (l.level, l.took_us)), Some((3, 1_234)));
        assert_eq!(kept, searched, "the plan plays the searched move");
        assert_eq!(kept.version, room.version + 1);
        // On the next version the same plan is stale: nothing.
        assert_eq!(kept.plan_due(&plan, &presence), None);
        let mut again = kept.clone();
        let (_, landed) = again.catch_up_planned(now + 10_000, &presence, Some(&plan));
        assert!(landed.is_none(), "a stale plan never lands");
        // Garbage is no plan either.
        assert!(room.kept_plan(b"not a plan").is_none());
        room = kept;
        planned += 1;
    }
    assert_eq!(planned, 30);
}

#[test]
fn a_kept_baduk_plan_replays_the_engines_generator_draws() {
    use madang_core::baduk::{Baduk, BadukOptions};
    let options: BadukOptions =
        serde_json::from_value(serde_json::json!({"boardSize": 9, "colorAssignment": "hostWhite"}))
            .unwrap();
    let (mut room, host) = Room::<Baduk>::create(
        "room-baduk-plan".into(),
        "방장".into(),
        TokenHash::of("t0"),
        options,
        GameRng::seed_from_u64(7),
        0,
    )
    .unwrap();
    room.act(
        &host,
        RoomAction::Lobby(LobbyAction::AddBot { level: Some(2) }),
        10,
    )
    .unwrap();
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 100)
        .unwrap();
    let presence: Presence = [(host.clone(), 100)].into();
    let turn = room.bot_turn(&presence).expect("the bot plays black first");
    let plan = room.choose(&turn).unwrap().plan(0);
    let mut searched = room.clone();
    searched.play_out(turn.at, &presence);
    let mut kept = room.clone();
    let (_, landed) = kept.catch_up_planned(turn.at, &presence, Some(&plan));
    assert!(landed.is_some_and(|l| !l.fallback));
    assert_eq!(kept, searched);
}
