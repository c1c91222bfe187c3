//! Chat over the live channel, shared by the local server's suite (`live`) and the Lambda path
//! (`lambda`): every chat message reaches exactly the live connections whose viewer may see it
//! — by socket and by poll (`GET /rooms/{id}/chat`) alike, `M` the same both ways — and a
//! departed or kicked member's socket hears no more chat.
//!
//! Every check uses the server's barrier ([`Live::chats_until_pong`]): a socket's `pong` comes
//! after everything posted before its `ping`, so "heard nothing" is a fact, not a timeout.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::chat::{SPECTATOR, read, say_ok};
use crate::live::{Live, live_url};
use crate::{Player, TestApp};

/// A message sent in a test: its `seq`, its sender (`None`: the gallery) and its audience.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The message's number.
    pub seq: u64,
    /// The sender's player id; `None`: a spectator.
    pub from: Option<String>,
    /// `room`, `team` or `spectators`.
    pub to: &'static str,
}

/// Each seated player's team (`null` outside team games), as the room view shows it.
pub async fn teams(app: &TestApp, room: &str) -> BTreeMap<String, Value> {
    app.room(room, None).await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap().to_owned(), p["team"].clone()))
        .collect()
}

/// The numbers of the messages `viewer` (`None`: a spectator) may see, worked out here from the
/// room view's teams alone (DESIGN "Chat"): room messages to all, team messages to the sender's
/// team, the gallery's to spectators.
pub fn rights(
    sent: &[Sent],
    team_of: &BTreeMap<String, Value>,
    viewer: Option<&Player>,
) -> Vec<u64> {
    sent.iter()
        .filter(|m| match (m.to, viewer) {
            ("room", _) => true,
            ("spectators", v) => v.is_none(),
            (_, None) => false,
            (_, Some(v)) => {
                let mine = &team_of[&v.id];
                !mine.is_null() && *mine == team_of[m.from.as_ref().unwrap()]
            }
        })
        .map(|m| m.seq)
        .collect()
}

/// Posts as `who` (`None`: the gallery), to the team when `to_team`; returns what was sent.
pub async fn post(
    app: &TestApp,
    room: &str,
    who: Option<&Player>,
    text: &str,
    to_team: bool,
) -> Sent {
    let mut body = json!({"text": text});
    if to_team {
        body["to"] = json!("team");
    }
    if who.is_none() {
        body["name"] = json!(SPECTATOR);
    }
    let seq = say_ok(app, room, who, body).await;
    Sent {
        seq,
        from: who.map(|p| p.id.clone()),
        to: match (who, to_team) {
            (None, _) => "spectators",
            (Some(_), true) => "team",
            (Some(_), false) => "room",
        },
    }
}

/// A socket watching `room` as `who` (`None`: a spectator), its hello taken.
pub async fn listener(app: &TestApp, room: &str, who: Option<&Player>) -> Live {
    let view = app.room(room, None).await;
    let mut live = Live::watch(
        &live_url(&view),
        room,
        who.map(|p| p.token.as_str()),
        view["version"].as_u64().unwrap(),
    )
    .await;
    live.ready().await;
    live
}

/// What each socket heard (up to its `pong`) is exactly what the viewer may see, and exactly
/// what the viewer's poll answers, message for message.
pub async fn heard_is_rights_is_poll(
    app: &TestApp,
    room: &str,
    sent: &[Sent],
    viewers: &mut [(Option<&Player>, Live)],
    what: &str,
) {
    let team_of = teams(app, room).await;
    for (viewer, socket) in viewers.iter_mut() {
        let heard = socket.chats_until_pong().await;
        let seqs: Vec<u64> = heard.iter().map(|m| m["seq"].as_u64().unwrap()).collect();
        let name = viewer.map_or("a spectator", |p| p.id.as_str());
        assert_eq!(
            seqs,
            rights(sent, &team_of, *viewer),
            "{what}: {name} by socket"
        );
        let polled: Vec<Value> = read(app, room, *viewer)
            .await
            .into_iter()
            .filter(|m| sent.iter().any(|s| m["seq"] == s.seq))
            .collect();
        assert_eq!(
            heard, polled,
            "{what}: {name}: socket and poll give the same M"
        );
    }
}

/// The visibility matrix over sockets in a four-player 윷놀이 team game: player, teammate, other
/// team and spectator each hear room, team and gallery messages as their rights say — in the
/// lobby and in play — and the gallery's talk never reaches a player.
pub async fn check_the_visibility_matrix_over_sockets(app: &TestApp) {
    let (room, a) = app
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 41)
        .await;
    let b = app.join(&room, "홍1").await;
    let c = app.join(&room, "청2").await;
    let d = app.join(&room, "홍2").await;
    let team_of = teams(app, &room).await;
    assert_eq!(team_of[&a.id], team_of[&c.id], "A and C play together");
    assert_ne!(team_of[&a.id], team_of[&b.id], "B is on the other team");
    assert_eq!(team_of[&b.id], team_of[&d.id]);
    let mut viewers = Vec::new();
    for who in [Some(&a), Some(&b), Some(&c), Some(&d), None] {
        viewers.push((who, listener(app, &room, who).await));
    }
    let mut sent = vec![
        post(app, &room, Some(&a), "다들 안녕", false).await,
        post(app, &room, Some(&a), "청 작전", true).await,
        post(app, &room, Some(&b), "홍 작전", true).await,
        post(app, &room, None, "관전석 훈수", false).await,
    ];
    heard_is_rights_is_poll(app, &room, &sent, &mut viewers, "in the lobby").await;
    app.act_ok(&room, &a, json!({"type": "start"})).await;
    let in_play = vec![
        post(app, &room, Some(&d), "홍 둘째", true).await,
        post(app, &room, Some(&c), "청 둘째", true).await,
        post(app, &room, Some(&c), "모 나와라", false).await,
        post(app, &room, None, "구경 잘 하고 가요", false).await,
    ];
    heard_is_rights_is_poll(app, &room, &in_play, &mut viewers, "in play").await;
    sent.extend(in_play);
    // Spelled out once (0: A to all, 1: A to 청, 2: B to 홍, 3: the gallery, 4: D to 홍, 5: C to
    // 청, 6: C to all, 7: the gallery): the teammate, the other team and the gallery.
    let pick = |i: &[usize]| i.iter().map(|i| sent[*i].seq).collect::<Vec<_>>();
    assert_eq!(rights(&sent, &team_of, Some(&c)), pick(&[0, 1, 5, 6]));
    assert_eq!(rights(&sent, &team_of, Some(&b)), pick(&[0, 2, 4, 6]));
    assert_eq!(rights(&sent, &team_of, None), pick(&[0, 3, 6, 7]));
}

/// A member who left and a member the host kicked keep their sockets (versions are no secret),
/// but hear no more chat — not the room's, not their old team's — as their tokens no longer read
/// `GET /rooms/{id}/chat` (401); those still seated hear on as before.
pub async fn check_departed_and_kicked_sockets_hear_no_more_chat(app: &TestApp) {
    let (room, a) = app
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 42)
        .await;
    let b = app.join(&room, "홍1").await;
    let c = app.join(&room, "청2").await;
    let d = app.join(&room, "홍2").await;
    let e = app.join(&room, "청3").await;
    let mut leaver = listener(app, &room, Some(&e)).await;
    let mut kicked = listener(app, &room, Some(&d)).await;
    let mut viewers = Vec::new();
    for who in [Some(&a), Some(&b), Some(&c), None] {
        viewers.push((who, listener(app, &room, who).await));
    }
    let before = vec![
        post(app, &room, Some(&a), "다 모였나", false).await,
        post(app, &room, Some(&b), "홍 모여", true).await,
    ];
    let seated = teams(app, &room).await;
    let seqs = |heard: Vec<Value>| -> Vec<u64> {
        heard.iter().map(|m| m["seq"].as_u64().unwrap()).collect()
    };
    assert_eq!(
        seqs(leaver.chats_until_pong().await),
        rights(&before, &seated, Some(&e))
    );
    assert_eq!(
        seqs(kicked.chats_until_pong().await),
        rights(&before, &seated, Some(&d))
    );
    assert_eq!(
        rights(&before, &seated, Some(&d)).len(),
        2,
        "D hears the room's and 홍's"
    );
    heard_is_rights_is_poll(app, &room, &before, &mut viewers, "all seated").await;
    app.act_ok(&room, &e, json!({"type": "leave"})).await;
    app.act_ok(&room, &a, json!({"type": "kick", "playerId": d.id}))
        .await;
    let after = vec![
        post(app, &room, Some(&a), "둘이 갔네", false).await,
        post(app, &room, Some(&a), "청 작전", true).await,
        post(app, &room, Some(&b), "홍 작전", true).await,
        post(app, &room, None, "관전석", false).await,
    ];
    assert_eq!(
        leaver.chats_until_pong().await,
        Vec::<Value>::new(),
        "gone: no chat"
    );
    assert_eq!(
        kicked.chats_until_pong().await,
        Vec::<Value>::new(),
        "kicked: no chat"
    );
    for gone in [&d, &e] {
        let r = app
            .get(&format!("/rooms/{room}/chat?after=0"), Some(&gone.token))
            .await;
        assert_eq!(r.status, reqwest::StatusCode::UNAUTHORIZED, "{:?}", r.body);
    }
    heard_is_rights_is_poll(
        app,
        &room,
        &after,
        &mut viewers,
        "after the leave and the kick",
    )
    .await;
    // The sockets are still there, and still hear versions.
    let v = app.room(&room, None).await["version"].as_u64().unwrap();
    app.join(&room, "새 사람").await;
    assert!(kicked.version().await > v);
    assert!(leaver.version().await > v);
}

/// Chat rights follow the seat through a game: a player who leaves a running 윷놀이 team game,
/// and one who leaves a 바둑 room once its game is over, keep their seats (marked left) and their
/// sockets, but hear no more chat — not the room's, not their old team's — as their tokens no
/// longer read `GET /rooms/{id}/chat` (401). Those still present hear on as their rights say.
pub async fn check_players_who_leave_a_game_hear_no_more_chat(app: &TestApp) {
    let seqs = |heard: Vec<Value>| -> Vec<u64> {
        heard.iter().map(|m| m["seq"].as_u64().unwrap()).collect()
    };
    // A running team game: C (청, A's teammate) leaves in the middle of it.
    let (room, a) = app
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 44)
        .await;
    let b = app.join(&room, "홍1").await;
    let c = app.join(&room, "청2").await;
    let d = app.join(&room, "홍2").await;
    app.act_ok(&room, &a, json!({"type": "start"})).await;
    let mut leaver = listener(app, &room, Some(&c)).await;
    let mut viewers = Vec::new();
    for who in [Some(&a), Some(&b), Some(&d), None] {
        viewers.push((who, listener(app, &room, who).await));
    }
    let before = vec![
        post(app, &room, Some(&a), "잘 해 보자", false).await,
        post(app, &room, Some(&a), "청 작전", true).await,
    ];
    let seated = teams(app, &room).await;
    assert_eq!(
        seqs(leaver.chats_until_pong().await),
        rights(&before, &seated, Some(&c)),
        "C hears the room's and 청's while seated"
    );
    heard_is_rights_is_poll(app, &room, &before, &mut viewers, "all playing").await;
    app.act_ok(&room, &c, json!({"type": "leave"})).await;
    assert_eq!(
        app.room(&room, None).await["status"],
        "playing",
        "the game goes on without C"
    );
    let after = vec![
        post(app, &room, Some(&a), "C가 갔네", false).await,
        post(app, &room, Some(&a), "청 혼자 남았어", true).await,
        post(app, &room, Some(&b), "홍 작전", true).await,
        post(app, &room, None, "관전석", false).await,
    ];
    assert_eq!(
        leaver.chats_until_pong().await,
        Vec::<Value>::new(),
        "left a running game: no room chat, no team chat"
    );
    let r = app
        .get(&format!("/rooms/{room}/chat?after=0"), Some(&c.token))
        .await;
    assert_eq!(r.status, reqwest::StatusCode::UNAUTHORIZED, "{:?}", r.body);
    heard_is_rights_is_poll(app, &room, &after, &mut viewers, "after C left the game").await;

    // A game that ended: white leaves the finished room.
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            45,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let mut white_socket = listener(app, &room, Some(&white)).await;
    let mut viewers = vec![
        (Some(&black), listener(app, &room, Some(&black)).await),
        (None, listener(app, &room, None).await),
    ];
    app.act_ok(&room, &black, json!({"type": "resign"})).await;
    assert_eq!(app.room(&room, None).await["status"], "finished");
    let over = vec![post(app, &room, Some(&black), "잘 두셨습니다", false).await];
    assert_eq!(
        seqs(white_socket.chats_until_pong().await),
        vec![over[0].seq]
    );
    heard_is_rights_is_poll(app, &room, &over, &mut viewers, "the game over").await;
    app.act_ok(&room, &white, json!({"type": "leave"})).await;
    let gone = vec![
        post(app, &room, Some(&black), "다음에 또 둬요", false).await,
        post(app, &room, None, "좋은 대국", false).await,
    ];
    assert_eq!(
        white_socket.chats_until_pong().await,
        Vec::<Value>::new(),
        "left after the game ended: no chat"
    );
    heard_is_rights_is_poll(app, &room, &gone, &mut viewers, "after white left").await;
}

/// A team message reaches the sender's teammate and nobody else — not the other team, not the
/// gallery — while a room message reaches everyone (the Lambda path's check).
pub async fn check_a_team_message_reaches_the_teammate_only(app: &TestApp) {
    let (room, a) = app
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 43)
        .await;
    let b = app.join(&room, "홍1").await;
    let c = app.join(&room, "청2").await;
    let d = app.join(&room, "홍2").await;
    app.act_ok(&room, &a, json!({"type": "start"})).await;
    let team_of = teams(app, &room).await;
    assert_eq!(team_of[&a.id], team_of[&c.id]);
    assert_ne!(team_of[&a.id], team_of[&b.id]);
    let mut teammate = listener(app, &room, Some(&c)).await;
    let mut other = listener(app, &room, Some(&b)).await;
    let mut gallery = listener(app, &room, None).await;
    let secret = post(app, &room, Some(&a), "청 작전: 모 나오면 업어", true).await;
    let heard = teammate.chats_until_pong().await;
    assert_eq!(heard.len(), 1, "the teammate hears it: {heard:?}");
    assert_eq!(heard[0]["seq"], secret.seq);
    assert_eq!(heard[0]["to"], "team");
    assert_eq!(
        heard,
        read(app, &room, Some(&c)).await,
        "M as the poll renders it"
    );
    assert_eq!(
        other.chats_until_pong().await,
        Vec::<Value>::new(),
        "not the other team"
    );
    assert_eq!(
        gallery.chats_until_pong().await,
        Vec::<Value>::new(),
        "not the gallery"
    );
    let mut viewers = vec![
        (Some(&c), teammate),
        (Some(&b), other),
        (None, gallery),
        (Some(&d), listener(app, &room, Some(&d)).await),
    ];
    let more = vec![
        post(app, &room, Some(&d), "홍도 작전", true).await,
        post(app, &room, Some(&a), "잘 부탁해요", false).await,
    ];
    heard_is_rights_is_poll(app, &room, &more, &mut viewers, "after").await;
}

/// One random room for the property test: which game, how many seats, whether it started, and
/// its messages (a sender by index — past the last seat: the gallery — and whether to the team).
#[derive(Clone, Debug)]
pub struct RandomRoom {
    /// 0: 윷놀이 individual, 1: 윷놀이 team, 2: 바둑.
    pub game: u8,
    /// Picks the number of seats among the game's sizes.
    pub size: usize,
    /// Whether the host starts the game before the messages.
    pub start: bool,
    /// (sender pick, to the team).
    pub messages: Vec<(usize, bool)>,
}

/// Checks one [`RandomRoom`]: every viewer — each player and a spectator — hears over its socket
/// exactly the messages its rights allow, worked out from the room view alone, and its poll
/// answers the same messages. Returns the number of messages sent.
pub async fn check_a_random_room(app: &TestApp, case: &RandomRoom, seed: u64) -> usize {
    let (game, options, sizes): (&str, Value, &[usize]) = match case.game {
        0 => ("yut", json!({"turnSeconds": null}), &[2, 3, 4]),
        1 => ("yut", json!({"mode": "team", "turnSeconds": null}), &[4, 6]),
        _ => ("baduk", json!({"boardSize": 9}), &[2]),
    };
    let n = sizes[case.size % sizes.len()];
    let (room, host) = app.create(game, options, seed).await;
    let mut players = vec![host.clone()];
    for i in 1..n {
        players.push(app.join(&room, &format!("p{i}")).await);
    }
    if case.start {
        app.act_ok(&room, &host, json!({"type": "start"})).await;
    }
    let team_game = teams(app, &room).await.values().any(|t| !t.is_null());
    let mut viewers = Vec::new();
    for who in players.iter().map(Some).chain([None]) {
        viewers.push((who, listener(app, &room, who).await));
    }
    let mut sent = Vec::new();
    for (i, (pick, to_team)) in case.messages.iter().enumerate() {
        // Two seconds apart on the dev clock: nobody runs into the rate (5 per 10 s) by chance.
        app.advance_clock(2_100).await;
        let who = players.get(pick % (n + 1));
        let to_team = *to_team && team_game && who.is_some();
        sent.push(post(app, &room, who, &format!("메시지 {i}"), to_team).await);
    }
    heard_is_rights_is_poll(app, &room, &sent, &mut viewers, &format!("{case:?}")).await;
    sent.len()
}
