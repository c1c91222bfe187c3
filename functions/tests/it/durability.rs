//! The local server loses nothing it answered: `kill -9` it while many clients play, restart it
//! on the same data directory, and every acknowledged change is there — once, and whole.
//!
//! The crash loop ([`kill_9_under_load_loses_nothing_answered_and_applies_nothing_twice`]) plays
//! real 바둑 games over HTTP from [`CLIENTS`] clients at once, so the group-commit writer always
//! has a batch in flight when the `SIGKILL` comes. It kills the server at a random moment
//! (after a random number of answers), restarts it, and holds every room against what its client
//! was told; then each client sends its unanswered request again with the same
//! `Idempotency-Key`, which must land exactly once. `MADANG_CRASH_ITERATIONS` sets how many
//! kills (20 by default; `scripts/soak` runs more), `MADANG_CRASH_SEED` replays a run.
//!
//! A `kill -9` loses what the process held, not what the operating system held: it shows that no
//! answer goes out before its commit, not what a power cut loses (docs/operate.md,
//! "Durability").

use std::process::Child;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support;

struct Server {
    child: Child,
    base: String,
}

/// The limits a load test needs: one address plays every client.
const TRUSTED: &[(&str, &str)] = &[
    ("MADANG_LIMIT_CREATES_PER_MIN", "0"),
    ("MADANG_LIMIT_JOINS_PER_MIN", "0"),
    ("MADANG_LIMIT_POLLS_PER_CLIENT", "0"),
];

fn start(data: &std::path::Path) -> Server {
    let (child, base) = support::spawn_madang(data, TRUSTED);
    Server { child, base }
}

impl Server {
    /// SIGKILL (`Child::kill`): no shutdown hook, no flush.
    fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

#[tokio::test]
async fn a_kill_9_loses_nothing_that_was_answered() {
    let data = std::env::temp_dir().join(format!("madang-durability-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let http = reqwest::Client::new();
    let server = start(&data);
    let created: Value = http
        .post(format!("{}/rooms", server.base))
        .json(&json!({"game": "yut", "name": "a"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let room = created["roomId"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let mut answered = 0;
    for pieces in [2, 3, 4, 5].repeat(10) {
        let reply: Value = http
            .post(format!("{}/rooms/{room}/actions", server.base))
            .bearer_auth(&token)
            .json(&json!({"action": {"type": "setOptions", "options": {"pieces": pieces}}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answered = reply["version"].as_u64().unwrap();
    }
    server.kill_9();

    let again = start(&data);
    let view: Value = http
        .get(format!("{}/rooms/{room}", again.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(view["version"].as_u64().unwrap(), answered);
    assert_eq!(view["options"]["pieces"], 5);
    again.kill_9();
    let _ = std::fs::remove_dir_all(&data);
}

// --- The crash loop -------------------------------------------------------------------------

/// Clients playing at once, each its own game.
const CLIENTS: usize = 24;
/// Kills in the default test run.
const ITERATIONS: usize = 20;
/// Lines of the board.
const SIZE: usize = 19;
/// Each side fills its own half of the board, row by row, and the middle column stays empty:
/// every stone keeps a liberty, so no move captures, none is illegal, and the whole game is
/// known in advance. Black: columns 0–8; white: columns 10–18.
const PER_SIDE: usize = 9 * SIZE;
/// Moves in one planned game; then the client starts another.
const PLAN: usize = 2 * PER_SIDE;

/// Move `i` of every planned game: (colour as the board holds it, 1 black 2 white; x; y).
fn planned(i: usize) -> (u64, usize, usize) {
    let k = i / 2;
    let (x, y) = (k % 9, k / 9);
    if i.is_multiple_of(2) {
        (1, x, y)
    } else {
        (2, 10 + x, y)
    }
}

/// A small deterministic generator (xorshift64*), seeded once per run and printed, so a failing
/// run can be replayed with `MADANG_CRASH_SEED`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a request did not get an answer to (the connection died under it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    Join,
    Start,
    Move(usize),
}

/// One client's game, as the client knows it from the answers it got.
#[derive(Clone, Debug, Default)]
struct Game {
    /// The room, once its creation was answered (an unanswered create is forgotten: the client
    /// cannot know the id, and a room nobody joins harms nobody).
    room: Option<String>,
    host: String,
    host_id: String,
    guest: Option<String>,
    /// The version the `start` answer gave.
    started: Option<u64>,
    /// Moves answered.
    played: usize,
    /// The request in flight when the server died.
    pending: Option<Pending>,
}

impl Game {
    /// The `Idempotency-Key` of one request of this game: the same on every attempt.
    fn key(&self, step: &str) -> String {
        format!("{}:{step:->12}", self.room.as_deref().unwrap_or_default())
    }

    fn next_step(&self) -> Option<Pending> {
        match (&self.room, &self.guest, self.started) {
            (None, _, _) => None,
            (Some(_), None, _) => Some(Pending::Join),
            (Some(_), Some(_), None) => Some(Pending::Start),
            (Some(_), Some(_), Some(_)) => Some(Pending::Move(self.played)),
        }
    }
}

/// What every client adds to as it goes.
struct Shared {
    http: reqwest::Client,
    base: String,
    /// Answers received in this iteration; the killer waits on it.
    answers: tokio::sync::watch::Sender<u64>,
}

/// One request of a game; `Ok(None)` when the connection died (no answer), a panic on any
/// answer but success.
async fn send(
    shared: &Shared,
    path: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: Value,
) -> Option<(StatusCode, reqwest::header::HeaderMap, Value)> {
    let mut request = shared
        .http
        .post(format!("{}{path}", shared.base))
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = request.send().await.ok()?;
    let status = response.status();
    let headers = response.headers().clone();
    let body: Value = response.json().await.ok()?;
    assert!(
        status.is_success(),
        "{path} {body:?} answered {status}: {body}"
    );
    shared.answers.send_modify(|n| *n += 1);
    Some((status, headers, body))
}

/// Sends `step` of `game` and records its answer. `false` when it got none.
async fn step(shared: &Shared, game: &mut Game, step: Pending) -> bool {
    let room = game.room.clone().unwrap_or_default();
    let key = match step {
        Pending::Join => game.key("join"),
        Pending::Start => game.key("start"),
        Pending::Move(i) => game.key(&format!("move{i}")),
    };
    let answer = match step {
        Pending::Join => {
            send(
                shared,
                &format!("/rooms/{room}/players"),
                None,
                Some(&key),
                json!({"name": "백"}),
            )
            .await
        }
        Pending::Start => {
            send(
                shared,
                &format!("/rooms/{room}/actions"),
                Some(&game.host),
                Some(&key),
                json!({"action": {"type": "start"}}),
            )
            .await
        }
        Pending::Move(i) => {
            let (colour, x, y) = planned(i);
            let token = if colour == 1 {
                game.host.clone()
            } else {
                game.guest.clone().unwrap_or_default()
            };
            send(
                shared,
                &format!("/rooms/{room}/actions"),
                Some(&token),
                Some(&key),
                json!({"action": {"type": "place", "x": x, "y": y}}),
            )
            .await
        }
    };
    let Some((_, _, body)) = answer else {
        game.pending = Some(step);
        return false;
    };
    game.pending = None;
    match step {
        Pending::Join => game.guest = Some(body["token"].as_str().unwrap().to_owned()),
        Pending::Start => {
            let room = &body["room"];
            assert_eq!(room["state"]["players"]["black"], game.host_id.as_str());
            game.started = Some(body["version"].as_u64().unwrap());
        }
        Pending::Move(i) => {
            assert_eq!(
                body["version"].as_u64().unwrap(),
                game.started.unwrap() + i as u64 + 1,
                "move {i} of {room}: one version per move"
            );
            game.played = i + 1;
        }
    }
    true
}

/// One client: plays `game` on until a request goes unanswered; a finished plan starts a new
/// game. Returns the game in play and the finished ones.
async fn play(shared: Arc<Shared>, mut game: Game) -> (Game, Vec<Game>) {
    let mut finished = Vec::new();
    loop {
        if game.room.is_some() && game.played == PLAN {
            finished.push(std::mem::take(&mut game));
        }
        match game.next_step() {
            None => {
                let created = send(
                    &shared,
                    "/rooms",
                    None,
                    None,
                    json!({"game": "baduk", "name": "흑", "options": {
                        "boardSize": SIZE,
                        "colorAssignment": "hostBlack",
                        "timeControl": {"kind": "none"},
                    }}),
                )
                .await;
                let Some((_, _, body)) = created else {
                    return (game, finished);
                };
                game.room = Some(body["roomId"].as_str().unwrap().to_owned());
                game.host = body["token"].as_str().unwrap().to_owned();
                game.host_id = body["playerId"].as_str().unwrap().to_owned();
            }
            Some(next) => {
                if !step(&shared, &mut game, next).await {
                    return (game, finished);
                }
            }
        }
    }
}

/// Holds the room of `game` (its creation answered) against every answer its client got.
/// Returns whether the request in flight at the kill landed.
async fn verify(http: &reqwest::Client, base: &str, game: &Game) -> bool {
    let Some(room) = &game.room else {
        return false;
    };
    let response = http
        .get(format!("{base}/rooms/{room}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "room {room}: its creation was answered"
    );
    let view: Value = response.json().await.unwrap();
    let players = view["players"].as_array().unwrap().len();
    match (&game.guest, game.pending) {
        (Some(_), _) => assert_eq!(players, 2, "{room}: the join was answered"),
        (None, Some(Pending::Join)) => assert!(players <= 2, "{room}: {players} players"),
        (None, _) => assert_eq!(players, 1, "{room}: nobody else joined"),
    }
    let Some(started) = game.started else {
        return match game.pending {
            Some(Pending::Join) => players == 2,
            Some(Pending::Start) => view["status"] == "playing",
            _ => {
                assert_eq!(view["status"], "lobby", "{room}");
                false
            }
        };
    };
    assert_eq!(view["status"], "playing", "{room}: the start was answered");
    let moves = view["state"]["moves"].as_array().unwrap();
    let n = moves.len();
    let in_flight = game.pending == Some(Pending::Move(game.played));
    assert!(
        n == game.played || (in_flight && n == game.played + 1),
        "{room}: {n} moves stored, {} answered (one in flight: {in_flight})",
        game.played
    );
    // Whole: the version, the record and the board say the same thing.
    assert_eq!(
        view["version"].as_u64().unwrap(),
        started + n as u64,
        "{room}: one version per stored move"
    );
    let board = view["state"]["board"].as_array().unwrap();
    for (i, record) in moves.iter().enumerate() {
        let (colour, x, y) = planned(i);
        assert_eq!(record["kind"], "place", "{room} move {i}");
        assert_eq!(
            (record["pt"]["x"].as_u64(), record["pt"]["y"].as_u64()),
            (Some(x as u64), Some(y as u64)),
            "{room}: move {i} is the one that was sent, once"
        );
        assert_eq!(record["color"], if colour == 1 { "black" } else { "white" });
        assert_eq!(
            board[y * SIZE + x].as_u64(),
            Some(colour),
            "{room} move {i}"
        );
    }
    let stones = board.iter().filter(|c| c.as_u64() != Some(0)).count();
    assert_eq!(
        stones, n,
        "{room}: the board holds the recorded stones only"
    );
    n > game.played
}

/// Sends the request `game` had in flight once more, with its key: it must land exactly once
/// (replayed when it had landed before the kill).
async fn resume(shared: &Shared, game: &mut Game, landed: bool) {
    let Some(pending) = game.pending else {
        return;
    };
    let room = game.room.clone().unwrap();
    assert!(
        step(shared, game, pending).await,
        "{room}: the retry of {pending:?} got no answer"
    );
    if let Pending::Move(i) = pending {
        let view: Value = shared
            .http
            .get(format!("{}/rooms/{room}", shared.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            view["state"]["moves"].as_array().unwrap().len(),
            i + 1,
            "{room}: move {i} retried after the kill is in once (it had landed: {landed})"
        );
    }
}

fn seed() -> u64 {
    std::env::var("MADANG_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let mut bytes = [0u8; 8];
            getrandom::fill(&mut bytes).unwrap();
            u64::from_le_bytes(bytes) | 1
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_under_load_loses_nothing_answered_and_applies_nothing_twice() {
    let iterations: usize = std::env::var("MADANG_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(ITERATIONS);
    let seed = seed();
    eprintln!("crash loop: {iterations} kills, MADANG_CRASH_SEED={seed}");
    let mut rng = Rng(seed);
    let data = std::env::temp_dir().join(format!("madang-crash-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    // Idle pooled connections go long before the server's idle timeout closes them. Every
    // request is bounded: a server that stops answering fails the test instead of hanging it.
    let http = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(4))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let mut games: Vec<Game> = vec![Game::default(); CLIENTS];
    let (mut answered, mut in_flight, mut landed_unanswered, mut rooms) = (0, 0, 0, 0);
    let mut server = start(&data);
    for iteration in 0..iterations {
        let (answers, _) = tokio::sync::watch::channel(0u64);
        let shared = Arc::new(Shared {
            http: http.clone(),
            base: server.base.clone(),
            answers,
        });
        let mut watching = shared.answers.subscribe();
        let clients: Vec<_> = games
            .drain(..)
            .map(|game| tokio::spawn(play(shared.clone(), game)))
            .collect();
        // The kill comes after a random number of answers: a moment under full load, never
        // between batches on purpose.
        let kill_after = 20 + rng.below(300);
        let reached = tokio::time::timeout(
            Duration::from_secs(60),
            // The `Ref` it returns holds the value's lock: dropped at once, or the clients'
            // next answers would wait for it.
            async { watching.wait_for(|n| *n >= kill_after).await.is_ok() },
        )
        .await;
        assert!(
            reached == Ok(true),
            "iteration {iteration}: {} of {kill_after} answers in a minute",
            *shared.answers.borrow()
        );
        server.kill_9();
        let mut finished = Vec::new();
        for client in clients {
            let (game, done) = client.await.unwrap();
            games.push(game);
            finished.extend(done);
        }
        answered += *shared.answers.borrow();

        server = start(&data);
        let shared = Shared {
            http: http.clone(),
            base: server.base.clone(),
            answers: tokio::sync::watch::channel(0).0,
        };
        for game in &finished {
            verify(&http, &server.base, game).await;
            rooms += 1;
        }
        for game in &mut games {
            let landed = verify(&http, &server.base, game).await;
            if game.pending.is_some() {
                in_flight += 1;
                landed_unanswered += u64::from(landed);
            }
            resume(&shared, game, landed).await;
        }
    }
    rooms += games.iter().filter(|g| g.room.is_some()).count();
    eprintln!(
        "crash loop: {iterations} kills, {answered} answers held, {rooms} rooms, \
         {in_flight} requests in flight at a kill, {landed_unanswered} of them had landed \
         (retried: replayed, not applied again)"
    );
    assert!(
        in_flight > 0,
        "the kills must come while requests are in flight"
    );
    server.kill_9();
    let _ = std::fs::remove_dir_all(&data);
}
