//! Events rendered against fixture text written before their wire form moved into `api/`
//! (`functions/tests/fixtures/events.jsonl`): the engines play seeded games of every kind of
//! turn (a test-owned generator picks among every action a client or the system can send), and
//! every event they make, lobby events included, must render byte for byte as it did.
//! `MADANG_WRITE_EVENTS=1` rewrites the fixture (only ever from a build whose rendering is
//! known good).

use std::collections::{BTreeSet, HashSet};

use madang_core::baduk::{Baduk, BadukAction, BadukOptions, UndoAllowance};
use madang_core::room::{LobbyEvent, RoomEvent};
use madang_core::yut::{self, EndMode, Mode, OnLeave, Yut, YutOptions};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

use madang_functions::api::events::Wire;
use madang_functions::service::events::rendered;

const FIXTURE: &str = "tests/fixtures/events.jsonl";

/// The seeded games' events (each distinct text once, in the order first seen).
fn texts() -> Vec<String> {
    let mut all = Vec::new();
    for event in lobby_events() {
        all.push(render::<Yut>(&[RoomEvent::Lobby(event)]));
    }
    let two = YutOptions::default();
    let team = YutOptions {
        mode: Mode::Team,
        on_leave: OnLeave::Bot,
        idle_turns_to_auto: Some(3),
        ..YutOptions::default()
    };
    let timed = YutOptions {
        end_mode: EndMode::Timed,
        nak_percent: 10,
        ..YutOptions::default()
    };
    for (options, players, seeds) in [(&two, 2, 0..6u64), (&team, 4, 6..12), (&timed, 3, 12..16)] {
        for seed in seeds {
            all.extend(
                play::<Yut>(options, players, seed, 6, yut_actions)
                    .into_iter()
                    .map(|e| render::<Yut>(&[e])),
            );
        }
    }
    let baduk = BadukOptions {
        board_size: 9,
        atari_warning: true,
        undo: UndoAllowance::Unlimited,
        draw_offer: true,
        ..BadukOptions::default()
    };
    for seed in 0..16u64 {
        all.extend(
            play::<Baduk>(&baduk, 2, seed, 1, baduk_actions)
                .into_iter()
                .map(|e| render::<Baduk>(&[e])),
        );
    }
    for seed in 0..2u64 {
        all.extend(
            placing(&baduk, seed)
                .into_iter()
                .map(|e| render::<Baduk>(&[e])),
        );
    }
    let mut seen = HashSet::new();
    all.retain(|t| seen.insert(t.clone()));
    all
}

fn render<G: Game<Event: Wire>>(events: &[RoomEvent<G>]) -> String {
    let rendered = rendered(events).unwrap();
    assert_eq!(rendered.len(), 1);
    rendered[0].get().to_owned()
}

fn lobby_events() -> Vec<LobbyEvent> {
    let p = || PlayerId::new("p2");
    vec![
        LobbyEvent::OptionsChanged,
        LobbyEvent::SeatMoved {
            player_id: p(),
            seat: 3,
        },
        LobbyEvent::Started,
        LobbyEvent::Left { player_id: p() },
        LobbyEvent::Kicked { player_id: p() },
        LobbyEvent::Unkicked { player_id: p() },
        LobbyEvent::HostChanged { player_id: p() },
        LobbyEvent::BotAdded {
            player_id: p(),
            level: 2,
        },
        LobbyEvent::RematchCreated {
            room_id: "k3m9x2".into(),
        },
    ]
}

/// A small generator of the test's own choices (not the game's).
struct Chooser(u64);

impl Chooser {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn yut_actions(state: &yut::YutState, pick: &mut Chooser) -> Vec<yut::Action> {
    let mut out = vec![yut::Action::Throw, yut::Action::TakeControl];
    for m in state.legal_moves() {
        out.push(yut::Action::Move {
            throw_index: m.throw_index,
            from: m.from,
        });
        out.push(yut::Action::Recommend {
            throw_index: m.throw_index,
            from: m.from,
        });
    }
    if pick.below(60) == 0 {
        out.push(yut::Action::Concede);
    }
    out
}

fn baduk_actions(_: &madang_core::baduk::BadukState, pick: &mut Chooser) -> Vec<BadukAction> {
    let (x, y) = (pick.below(9) as i32, pick.below(9) as i32);
    let accept = pick.below(2) == 0;
    let mut out = vec![
        BadukAction::Place { x, y },
        BadukAction::Place { x: y, y: x },
        BadukAction::Pass {},
        BadukAction::Pass {},
        BadukAction::Pass {},
        BadukAction::AgreeScore {},
        BadukAction::ToggleDead { x, y },
        BadukAction::ToggleSeki { x, y },
        BadukAction::AgreeScore {},
        BadukAction::RequestUndo {},
        BadukAction::RespondUndo { accept },
        BadukAction::OfferDraw {},
        BadukAction::RespondDraw { accept },
        BadukAction::CancelOffer {},
    ];
    if pick.below(8) == 0 {
        out.push(BadukAction::ResumePlay {});
    }
    if pick.below(150) == 0 {
        out.push(BadukAction::Resign {});
    }
    out
}

/// One seeded game: each step a random player sends a random action (refusals are skipped),
/// or the system fires the awaited player's timeout, or a player leaves; the time runs on.
fn play<G: Game>(
    options: &G::Options,
    players: usize,
    seed: u64,
    timeouts: usize,
    actions: fn(&G::State, &mut Chooser) -> Vec<G::Action>,
) -> Vec<RoomEvent<G>> {
    let lineup = Lineup {
        players: (1..=players)
            .map(|i| PlayerId::new(format!("p{i}")))
            .collect(),
        host: PlayerId::new("p1"),
    };
    let mut rng = GameRng::seed_from_u64(seed);
    let mut pick = Chooser(seed);
    let mut now = 1_700_000_000_000u64;
    let mut state = G::setup(&lineup, options, &mut rng, now).unwrap();
    let mut events = Vec::new();
    for step in 0..800 {
        if G::result(&state).is_some() {
            break;
        }
        now += 1 + pick.below(20_000) as u64;
        // Mostly the player awaited, sometimes anyone (whose action is then mostly refused).
        let player = match G::active_players(&state).first() {
            Some(active) if pick.below(3) > 0 => active.clone(),
            _ => lineup.players[pick.below(players)].clone(),
        };
        let player = &player;
        // Odd seeds open with a run of timeouts (a seat goes away, then to auto play).
        let opening = timeouts > 1 && seed % 2 == 1 && step < 80;
        let fired = match if opening { 0 } else { pick.below(40) } {
            n if n < timeouts => {
                let Some(active) = G::active_players(&state).first().cloned() else {
                    break;
                };
                let at = G::deadline(&state).unwrap_or(now).max(now);
                now = at;
                match G::on_timeout(&state, &active, at) {
                    Some(action) => {
                        G::apply(&mut state, Actor::Timeout(&active), &action, &mut rng, at).ok()
                    }
                    None => None,
                }
            }
            6 if pick.below(10) == 0 => G::leave(&mut state, player, &mut rng, now).ok(),
            7..=20 => {
                let Some(active) = G::active_players(&state).first().cloned() else {
                    break;
                };
                match G::bot_action(&state, &active, 1, &mut rng.clone()) {
                    Ok(action) => {
                        G::apply(&mut state, Actor::Player(&active), &action, &mut rng, now).ok()
                    }
                    Err(_) => None,
                }
            }
            _ => {
                let mut all = actions(&state, &mut pick);
                let action = all.swap_remove(pick.below(all.len()));
                G::apply(&mut state, Actor::Player(player), &action, &mut rng, now).ok()
            }
        };
        events.extend(fired.into_iter().flatten().map(RoomEvent::Game));
    }
    events
}

/// A 바둑 game of stones placed at random until the move limit (B7) ends it: random play
/// rarely passes, and captures keep the board open.
fn placing(options: &BadukOptions, seed: u64) -> Vec<RoomEvent<Baduk>> {
    let lineup = Lineup {
        players: vec![PlayerId::new("p1"), PlayerId::new("p2")],
        host: PlayerId::new("p1"),
    };
    let mut rng = GameRng::seed_from_u64(seed);
    let mut pick = Chooser(seed);
    let now = 1_700_000_000_000u64;
    let mut state = Baduk::setup(&lineup, options, &mut rng, now).unwrap();
    let mut events = Vec::new();
    while Baduk::result(&state).is_none() && events.len() < 2_000 {
        let Some(player) = Baduk::active_players(&state).first().cloned() else {
            break;
        };
        let placed = (0..40).find_map(|_| {
            let (x, y) = (pick.below(9) as i32, pick.below(9) as i32);
            let place = BadukAction::Place { x, y };
            Baduk::apply(&mut state, Actor::Player(&player), &place, &mut rng, now).ok()
        });
        let fired = placed.or_else(|| {
            let agree = BadukAction::AgreeScore {};
            Baduk::apply(
                &mut state,
                Actor::Player(&player),
                &BadukAction::Pass {},
                &mut rng,
                now,
            )
            .or_else(|_| Baduk::apply(&mut state, Actor::Player(&player), &agree, &mut rng, now))
            .ok()
        });
        let Some(fired) = fired else { break };
        events.extend(fired.into_iter().map(RoomEvent::Game));
    }
    events
}

/// The `type` of every event text.
fn types(texts: &[String]) -> BTreeSet<String> {
    texts
        .iter()
        .map(|t| {
            let v: serde_json::Value = serde_json::from_str(t).unwrap();
            v["type"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn every_event_renders_as_the_fixture_written_before_the_move() {
    let texts = texts();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    if std::env::var_os("MADANG_WRITE_EVENTS").is_some() {
        std::fs::write(&path, texts.join("\n") + "\n").unwrap();
    }
    let fixture = std::fs::read_to_string(&path).unwrap();
    let expected: Vec<&str> = fixture.lines().collect();
    assert_eq!(texts.len(), expected.len(), "how many distinct events");
    for (got, want) in texts.iter().zip(expected) {
        assert_eq!(got, want);
    }
    // Every kind of event is in the fixture: the lobby's 9, 윷놀이's 17 and 바둑's 16 (both
    // games have a `captured`).
    let every: BTreeSet<String> = [
        "optionsChanged",
        "seatMoved",
        "started",
        "left",
        "kicked",
        "unkicked",
        "hostChanged",
        "botAdded",
        "rematchCreated",
        "thrown",
        "nak",
        "moved",
        "stacked",
        "captured",
        "finishedPieces",
        "bonusThrow",
        "discarded",
        "turnChanged",
        "sideFinished",
        "conceded",
        "away",
        "recommended",
        "autoPlay",
        "replacedByBot",
        "timeUp",
        "gameOver",
        "stonePlaced",
        "pass",
        "atari",
        "moveLimitReached",
        "scoringStarted",
        "marksChanged",
        "scoreAgreed",
        "playResumed",
        "undoRequested",
        "undoAccepted",
        "undoDeclined",
        "drawOffered",
        "drawDeclined",
        "offerCancelled",
        "gameEnded",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(types(&texts), every);
}
