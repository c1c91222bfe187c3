//! Link cards (`docs/api.md`, "Link cards"): the share link `/r/{id}` carries the room's Open
//! Graph tags in the page's head (a chat app's link preview runs no script), and
//! `/r/{id}/card.png` the board as a 1200×630 PNG, validated by the room's version.

use madang_tests::{Player, TestApp, spawn_app};
use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HOST, IF_NONE_MATCH};
use serde_json::json;

/// The `<head>` of the page at `path`, and its status.
async fn head_of(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> (StatusCode, String) {
    let mut request = app.http.get(format!("{}{path}", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let r = request.send().await.unwrap();
    let status = r.status();
    assert_eq!(r.headers()[CONTENT_TYPE], "text/html; charset=utf-8");
    let html = r.text().await.unwrap();
    let end = html.find("</head>").expect("a head");
    (status, html[..end].to_owned())
}

/// The `content` of `<meta property|name="{key}" content="…">` in `head`, unescaped; `None`
/// when there is none. Values are read up to the closing quote, so an unescaped `"` inside
/// one would cut it short and fail the comparison.
fn meta(head: &str, key: &str) -> Option<String> {
    let found: Vec<_> = ["property", "name"]
        .iter()
        .filter_map(|attr| {
            let open = format!("<meta {attr}=\"{key}\" content=\"");
            let start = head.find(&open)? + open.len();
            let len = head[start..].find('"')?;
            assert!(
                head[start + len..].starts_with("\">"),
                "{key}: the value ends at its quote"
            );
            Some(unescape(&head[start..start + len]))
        })
        .collect();
    assert!(found.len() <= 1, "{key} once");
    found.into_iter().next()
}

fn unescape(text: &str) -> String {
    assert!(!text.contains(['<', '>', '"']), "escaped: {text}");
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

async fn version(app: &TestApp, room: &str) -> u64 {
    app.room(room, None).await["version"].as_u64().unwrap()
}

/// A name with everything HTML must escape.
const TRICKY: &str = "<b>\"철수\" & '영희'</b>";

async fn create_named(
    app: &TestApp,
    game: &str,
    name: &str,
    options: serde_json::Value,
) -> (String, Player) {
    let r = app
        .post(
            "/rooms",
            None,
            json!({"game": game, "name": name, "options": options, "seed": 7}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let host = Player {
        id: r.body["playerId"].as_str().unwrap().into(),
        token: r.body["token"].as_str().unwrap().into(),
    };
    (r.body["roomId"].as_str().unwrap().into(), host)
}

#[tokio::test]
async fn a_waiting_then_playing_yut_room_has_its_card_in_the_served_head_with_names_escaped() {
    let app = spawn_app().await;
    let (room, host) = create_named(&app, "yut", TRICKY, json!({})).await;
    app.join(&room, "손님").await;

    let (status, head) = head_of(&app, &format!("/r/{room}"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        meta(&head, "og:description").as_deref(),
        Some("윷놀이 · 2/4명 · 참가를 기다리고 있어요")
    );
    assert_eq!(
        meta(&head, "og:title").unwrap(),
        format!("{TRICKY}님의 윷놀이 방 — 마당")
    );
    assert!(
        !head.contains("<b>")
            && head.contains("&lt;b&gt;&quot;철수&quot; &amp; &#39;영희&#39;&lt;/b&gt;")
    );
    assert_eq!(meta(&head, "og:type").as_deref(), Some("website"));
    assert_eq!(meta(&head, "og:locale").as_deref(), Some("ko_KR"));
    assert_eq!(
        meta(&head, "twitter:card").as_deref(),
        Some("summary_large_image")
    );
    // Absolute, on the address the request came to.
    assert_eq!(
        meta(&head, "og:url").unwrap(),
        format!("{}/r/{room}", app.base)
    );
    let v = version(&app, &room).await;
    assert_eq!(
        meta(&head, "og:image").unwrap(),
        format!("{}/r/{room}/card.png?v={v}", app.base)
    );
    // The page is still the app.
    assert!(head.contains("<script type=\"module\" src=\"/app/app.js\"></script>"));

    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let (_, head) = head_of(&app, &format!("/r/{room}"), &[]).await;
    assert_eq!(
        meta(&head, "og:description").as_deref(),
        Some("윷놀이 · 2명 · 게임 중이에요 · 링크로 관전할 수 있어요")
    );
    let v2 = version(&app, &room).await;
    assert!(
        meta(&head, "og:image")
            .unwrap()
            .ends_with(&format!("?v={v2}"))
    );
}

#[tokio::test]
async fn a_finished_baduk_game_shows_its_result_and_the_links_follow_the_proxy() {
    let app = spawn_app().await;
    let (room, black) = create_named(
        &app,
        "baduk",
        "흑돌",
        json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
    )
    .await;
    let white = app.join(&room, "백돌").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 4, "y": 4}))
        .await;
    let (_, head) = head_of(&app, &format!("/r/{room}"), &[]).await;
    assert_eq!(
        meta(&head, "og:description").as_deref(),
        Some("바둑 9줄 · 흑 흑돌 vs 백 백돌 · 1수째 두는 중")
    );
    app.act_ok(&room, &white, json!({"type": "resign"})).await;
    let (_, head) = head_of(&app, &format!("/r/{room}"), &[]).await;
    assert_eq!(
        meta(&head, "og:description").as_deref(),
        Some("바둑 9줄 · 흑 흑돌 vs 백 백돌 · 흑 불계승")
    );
    assert_eq!(
        meta(&head, "og:title").as_deref(),
        Some("흑돌님의 바둑 방 — 마당")
    );

    // Behind a TLS proxy the links are https, on the host the client asked for.
    let (_, head) = head_of(
        &app,
        &format!("/r/{room}"),
        &[
            ("x-forwarded-proto", "https"),
            ("host", "madang.example:8443"),
        ],
    )
    .await;
    assert_eq!(
        meta(&head, "og:url").unwrap(),
        format!("https://madang.example:8443/r/{room}")
    );
    // A Host that is not a plain authority makes no link at all (and nothing of it is served).
    let (_, head) = head_of(
        &app,
        &format!("/r/{room}"),
        &[(HOST.as_str(), "x.example\"><script>alert(1)</script>")],
    )
    .await;
    assert_eq!(meta(&head, "og:url"), None);
    assert_eq!(meta(&head, "og:image"), None);
    assert!(!head.contains("alert"));
    assert_eq!(
        meta(&head, "og:description").as_deref(),
        Some("바둑 9줄 · 흑 흑돌 vs 백 백돌 · 흑 불계승")
    );
}

#[tokio::test]
async fn a_room_that_is_not_there_gets_the_apps_own_card() {
    let app = spawn_app().await;
    for path in ["/r/AAAAAAAAAAAAAAAAAAAAAA", "/r/not-a-room-id"] {
        let (status, head) = head_of(&app, path, &[]).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{path}: the app says the room is gone"
        );
        assert_eq!(
            meta(&head, "og:title").as_deref(),
            Some("마당 — 윷놀이·바둑")
        );
        assert_eq!(meta(&head, "og:locale").as_deref(), Some("ko_KR"));
        assert_eq!(meta(&head, "twitter:card").as_deref(), Some("summary"));
        assert_eq!(
            meta(&head, "og:image").unwrap(),
            format!("{}/app/icon-512.png", app.base)
        );
    }
    let r = app
        .http
        .get(format!("{}/r/AAAAAAAAAAAAAAAAAAAAAA/card.png", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

/// The card of `room` as served: its status, `ETag` and bytes.
async fn card(
    app: &TestApp,
    room: &str,
    if_none_match: Option<&str>,
) -> (StatusCode, String, Vec<u8>) {
    let mut request = app.http.get(format!("{}/r/{room}/card.png", app.base));
    if let Some(tag) = if_none_match {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let r = request.send().await.unwrap();
    let status = r.status();
    if status == StatusCode::OK {
        assert_eq!(r.headers()[CONTENT_TYPE], "image/png");
    }
    let cache = r.headers()[CACHE_CONTROL].to_str().unwrap().to_owned();
    assert!(cache.starts_with("public, max-age="), "{cache}");
    let etag = r.headers()[ETAG].to_str().unwrap().to_owned();
    (status, etag, r.bytes().await.unwrap().to_vec())
}

/// A decoded card: its size, and its pixels as RGB.
struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

fn decode(bytes: &[u8]) -> Image {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG");
    let mut rgb = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut rgb).expect("its pixels");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    rgb.truncate(info.buffer_size());
    Image {
        width: info.width,
        height: info.height,
        rgb,
    }
}

#[tokio::test]
async fn the_card_image_is_a_small_png_of_the_board_validated_by_the_rooms_version() {
    let app = spawn_app().await;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            1,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 4, "y": 4}))
        .await;

    let (status, etag, png) = card(&app, &room, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(png.len() <= 200 * 1024, "{} bytes", png.len());
    let image = decode(&png);
    assert_eq!((image.width, image.height), (1200, 630));
    // The stone at the centre of the 9×9 board (drawn 570 px square from (30, 30)).
    let centre = image.pixel(315, 315);
    assert!(centre.iter().all(|c| *c < 60), "a black stone: {centre:?}");
    // A strong validator, answered 304 while the room is unchanged.
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let (status, again, body) = card(&app, &room, Some(&etag)).await;
    assert_eq!(
        (status, again.as_str(), body.len()),
        (StatusCode::NOT_MODIFIED, etag.as_str(), 0)
    );

    // A new version, a new validator; the old one gets the new card.
    app.act_ok(&room, &white, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    let (status, newer, png) = card(&app, &room, Some(&etag)).await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(newer, etag);
    let stone = decode(&png).pixel(30 + 570 * 5 / 18, 30 + 570 * 5 / 18);
    assert!(stone.iter().all(|c| *c > 200), "a white stone: {stone:?}");

    // A player's token changes nothing: the card is the spectator's.
    let r = app
        .http
        .get(format!("{}/r/{room}/card.png", app.base))
        .bearer_auth(&black.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().to_vec(), png);
}

/// The heaviest cards stay small: a crowded 19줄 board (the most anti-aliased edges) and a full
/// 8-seat 윷놀이 lobby.
#[tokio::test]
async fn crowded_cards_stay_under_200_kb() {
    let app = spawn_app().await;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
            3,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let mut draw = 17;
    for i in 0..240 {
        let who = if i % 2 == 0 { &black } else { &white };
        let view = app.room(&room, Some(who)).await;
        let action = madang_tests::games::random_place(&view["state"], &mut draw);
        app.act_ok(&room, who, action).await;
    }
    let (status, _, png) = card(&app, &room, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(png.len() <= 200 * 1024, "19줄: {} bytes", png.len());
    eprintln!("19줄, 240 moves: {} bytes", png.len());

    let (room, _) = app.create("yut", json!({"mode": "team"}), 3).await;
    for i in 1..8 {
        app.join(&room, &format!("친구{i}")).await;
    }
    let (_, _, png) = card(&app, &room, None).await;
    assert!(png.len() <= 200 * 1024, "8 seats: {} bytes", png.len());
    eprintln!("윷놀이 8 seats: {} bytes", png.len());
}

/// Writes the docs' example cards (`docs/screenshots/card-*.png`):
/// `cargo test -p madang-tests --test e2e -- --ignored api::cards::write_docs_cards`.
#[tokio::test]
#[ignore = "writes docs/screenshots/card-*.png"]
async fn write_docs_cards() {
    let app = spawn_app().await;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/screenshots");

    let (yut, _) = app.create("yut", json!({}), 5).await;
    app.join(&yut, "영희").await;
    app.join(&yut, "민수").await;
    let (_, _, png) = card(&app, &yut, None).await;
    std::fs::write(format!("{dir}/card-yut-waiting.png"), png).unwrap();

    let (baduk, black) = app
        .create(
            "baduk",
            json!({"boardSize": 13, "colorAssignment": "hostBlack"}),
            5,
        )
        .await;
    let white = app.join(&baduk, "백").await;
    app.act_ok(&baduk, &black, json!({"type": "start"})).await;
    // An opening, and a white stone taken in the centre.
    let moves = [
        (3, 3),
        (9, 9),
        (9, 3),
        (3, 9),
        (6, 6),
        (6, 5),
        (5, 5),
        (10, 6),
        (7, 5),
        (9, 7),
        (6, 4),
        (2, 6),
        (3, 7),
        (2, 8),
        (4, 10),
        (8, 10),
        (10, 3),
        (10, 9),
        (5, 9),
        (4, 9),
    ];
    for (i, (x, y)) in moves.into_iter().enumerate() {
        let who = if i % 2 == 0 { &black } else { &white };
        app.act_ok(&baduk, who, json!({"type": "place", "x": x, "y": y}))
            .await;
    }
    app.act_ok(&baduk, &white, json!({"type": "resign"})).await;
    let (_, _, png) = card(&app, &baduk, None).await;
    std::fs::write(format!("{dir}/card-baduk-finished.png"), png).unwrap();

    // A game under way, to look at (not committed).
    let (yut, players) = madang_tests::games::seated_yut(&app, json!({}), 11, 3).await;
    for _ in 0..40 {
        let view = app.room(&yut, None).await;
        let current = view["state"]["currentPlayer"].as_str().unwrap();
        let player = players.iter().find(|p| p.id == current).unwrap();
        let mine = app.room(&yut, Some(player)).await;
        app.act_ok(
            &yut,
            player,
            madang_tests::games::yut_action(&mine["state"]),
        )
        .await;
    }
    let (_, _, png) = card(&app, &yut, None).await;
    std::fs::write(std::env::temp_dir().join("card-yut-playing.png"), png).unwrap();
}
