//! Link cards (`docs/api.md`, "Link cards"): what KakaoTalk and other link previews show of a
//! room's share link `/r/{id}` — the Open Graph tags of the page ([`Summary`]) and the board as
//! it stands, drawn as a 1200×630 PNG ([`png()`]).
//!
//! Both are made from the room as a spectator sees it ([`Room::view`] with no viewer), so a
//! card shows nothing a spectator of the room could not see.
//!
//! The image carries no text (the title and description are the page's tags), so it needs no
//! font: only shapes, drawn by `tiny-skia` and encoded by `png` (pure Rust, nothing to link).

use madang_core::Millis;
use madang_core::baduk::color::Color as Stone;
use madang_core::baduk::{Baduk, BadukView, MoveRecord};
use madang_core::game::Game;
use madang_core::room::{AnyRoom, Presence, Room, RoomView, Status};
use madang_core::yut::view::{PieceStatus, SIDE_LOOKS, TEAM_LOOKS};
use madang_core::yut::{Node, Yut};
use tiny_skia::{
    Color, FillRule, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform,
};

/// The card's size: the 1.91:1 image link previews show large.
pub const WIDTH: u32 = 1200;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 630;
/// Bumped when the drawing changes, so cached cards of an unchanged room are drawn again.
pub const STYLE: u32 = 1;

/// The app's name, the title of a card whose room is not there.
pub const APP_TITLE: &str = "마당 — 윷놀이·바둑";
/// The description of a card whose room is not there.
pub const APP_DESCRIPTION: &str = "윷놀이 · 바둑 — 방을 만들고 링크를 보내세요";

/// What a room's card says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// `og:title`: whose room, and which game.
    pub title: String,
    /// `og:description`: the game, the seats taken and free, or the result.
    pub description: String,
}

/// The card's words for `room` as a spectator sees it at `now`.
pub fn summary(room: &AnyRoom, presence: &Presence, now: Millis) -> Summary {
    match room {
        AnyRoom::Yut(room) => yut_summary(room, &room.view(None, presence, now)),
        AnyRoom::Baduk(room) => baduk_summary(room, &room.view(None, presence, now)),
    }
}

fn host_name<'a, G: Game>(view: &'a RoomView<'_, G>) -> &'a str {
    view.players
        .iter()
        .find(|p| &p.id == view.host_id)
        .map_or("", |p| p.name.as_str())
}

fn title<G: Game>(view: &RoomView<'_, G>, game: &str) -> String {
    match host_name(view) {
        "" => format!("{game} 방 — 마당"),
        host => format!("{host}님의 {game} 방 — 마당"),
    }
}

/// The seated people (those who have not left).
fn seated<G: Game>(view: &RoomView<'_, G>) -> usize {
    view.players.iter().filter(|p| !p.left).count()
}

fn lobby_line(game: &str, taken: usize, seats: usize) -> String {
    if taken >= seats {
        format!("{game} · {taken}/{seats}명 · 곧 시작해요")
    } else {
        format!("{game} · {taken}/{seats}명 · 참가를 기다리고 있어요")
    }
}

fn yut_summary(room: &Room<Yut>, view: &RoomView<'_, Yut>) -> Summary {
    const GAME: &str = "윷놀이";
    let description = match view.status {
        Status::Lobby => lobby_line(GAME, seated(view), Yut::max_players(&room.options)),
        Status::Playing => format!(
            "{GAME} · {}명 · 게임 중이에요 · 링크로 관전할 수 있어요",
            seated(view)
        ),
        Status::Finished => match &view.result {
            Some(result) if !result.outcome.summary.is_empty() => {
                format!("{GAME} · {}", result.outcome.summary)
            }
            _ => format!("{GAME} · 게임이 끝났어요"),
        },
    };
    Summary {
        title: title(view, GAME),
        description,
    }
}

fn baduk_summary(room: &Room<Baduk>, view: &RoomView<'_, Baduk>) -> Summary {
    let game = format!("바둑 {}줄", room.options.board_size);
    let name = |id: &madang_core::PlayerId| {
        view.players
            .iter()
            .find(|p| &p.id == id)
            .map_or("", |p| p.name.as_str())
    };
    let pairing = view.state.as_ref().map(|s| {
        format!(
            "흑 {} vs 백 {}",
            name(&s.players.black),
            name(&s.players.white)
        )
    });
    let description = match (view.status, &view.state, &pairing) {
        (Status::Lobby, ..) | (_, None, _) | (_, _, None) => {
            lobby_line(&game, seated(view), Baduk::max_players(&room.options))
        }
        (Status::Playing, Some(state), Some(pairing)) => {
            format!("{game} · {pairing} · {}수째 두는 중", state.moves.len())
        }
        (Status::Finished, Some(state), Some(pairing)) => {
            let result = view
                .result
                .as_ref()
                .map(|r| r.outcome.summary_ko.clone())
                .or_else(|| state.result.as_ref().map(|r| r.summary_ko.clone()))
                .unwrap_or_else(|| "대국이 끝났어요".into());
            format!("{game} · {pairing} · {result}")
        }
    };
    Summary {
        title: title(view, "바둑"),
        description,
    }
}

// --- Drawing -------------------------------------------------------------------------------

/// The app's palette (web/style.css).
mod palette {
    use tiny_skia::Color;

    fn rgb(hex: u32) -> Color {
        Color::from_rgba8((hex >> 16) as u8, (hex >> 8) as u8, hex as u8, 255)
    }

    pub fn bg() -> Color {
        rgb(0xf6f1e7)
    }
    pub fn card() -> Color {
        rgb(0xfffdf8)
    }
    pub fn line() -> Color {
        rgb(0xd8cdb9)
    }
    pub fn primary() -> Color {
        rgb(0xc2452d)
    }
    pub fn muted() -> Color {
        rgb(0x6f665a)
    }
    pub fn done() -> Color {
        rgb(0xc9c1b3)
    }
    pub fn yut_board() -> Color {
        rgb(0xf3e3c3)
    }
    pub fn yut_edge() -> Color {
        rgb(0xb08a52)
    }
    pub fn yut_spot() -> Color {
        rgb(0xfff8e8)
    }
    pub fn yut_big_spot() -> Color {
        rgb(0xffe7b8)
    }
    pub fn yut_spot_line() -> Color {
        rgb(0x8c6a3a)
    }
    pub fn wood() -> Color {
        rgb(0xe3b873)
    }
    pub fn grid() -> Color {
        rgb(0x5a4022)
    }
    pub fn black() -> Color {
        rgb(0x1d1b19)
    }
    pub fn white() -> Color {
        rgb(0xfbfaf6)
    }
    pub fn white_edge() -> Color {
        rgb(0x7d7468)
    }
    /// A 윷놀이 side's colour by name (web/yut.js `COLORS`).
    pub fn side(name: &str) -> Color {
        match name {
            "red" => rgb(0xd63c3c),
            "blue" => rgb(0x2f6fd6),
            "green" => rgb(0x2f9a4c),
            "yellow" => rgb(0xe0a800),
            "purple" => rgb(0x8a4fd0),
            "orange" => rgb(0xe8762c),
            _ => rgb(0x555555),
        }
    }
    pub fn on_piece() -> Color {
        rgb(0xffffff)
    }
}

/// The board panel: a square on the left, the rows of seats or sides on the right.
const MARGIN: f32 = 30.0;
const BOARD: f32 = HEIGHT as f32 - 2.0 * MARGIN;
const ROWS_X: f32 = MARGIN + BOARD + MARGIN;
const ROWS_W: f32 = WIDTH as f32 - ROWS_X - MARGIN;

struct Canvas {
    pixmap: Pixmap,
}

impl Canvas {
    fn new() -> Option<Canvas> {
        let mut pixmap = Pixmap::new(WIDTH, HEIGHT)?;
        pixmap.fill(palette::bg());
        Some(Canvas { pixmap })
    }

    fn fill(&mut self, path: Option<Path>, color: Color) {
        if let Some(path) = path {
            self.pixmap.fill_path(
                &path,
                &paint(color),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }

    fn stroke(&mut self, path: Option<Path>, color: Color, width: f32, dash: Option<[f32; 2]>) {
        let Some(path) = path else { return };
        let stroke = Stroke {
            width,
            dash: dash.and_then(|[on, off]| StrokeDash::new(vec![on, off], 0.0)),
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(&path, &paint(color), &stroke, Transform::identity(), None);
    }

    fn line(&mut self, (x1, y1): (f32, f32), (x2, y2): (f32, f32), color: Color, width: f32) {
        let mut pb = PathBuilder::new();
        pb.move_to(x1, y1);
        pb.line_to(x2, y2);
        self.stroke(pb.finish(), color, width, None);
    }

    /// A row's box on the right: the app's card colour, a line, and the primary colour for the
    /// row that matters (the side to move, the winner).
    fn row_box(&mut self, y: f32, h: f32, marked: bool) {
        let rect = rounded(ROWS_X, y, ROWS_W, h, 14.0);
        self.fill(rect.clone(), palette::card());
        if marked {
            self.stroke(rect, palette::primary(), 5.0, None);
        } else {
            self.stroke(rect, palette::line(), 2.0, None);
        }
    }

    /// The picture as PNG: RGB (it is opaque, so alpha would be a quarter of the bytes for
    /// nothing), each row's filter chosen adaptively, the best compression. Flat colours and
    /// anti-aliased edges only: 30–65 KB (a crowded 19줄 board 49, an 8-seat lobby 63).
    fn png(&self) -> Option<Vec<u8>> {
        // Every pixel is opaque (the background is), so premultiplied is plain RGB.
        let rgb: Vec<u8> = self
            .pixmap
            .data()
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        let mut out = Vec::with_capacity(64 * 1024);
        let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&rgb).ok()?;
        writer.finish().ok()?;
        Some(out)
    }
}

fn paint(color: Color) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(color);
    paint.anti_alias = true;
    paint
}

fn rounded(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    // The four corners as quarter circles (cubic approximation).
    const K: f32 = 0.552_284_8;
    let r = r.min(w / 2.0).min(h / 2.0);
    let c = r * (1.0 - K);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.cubic_to(x + w - c, y, x + w, y + c, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.cubic_to(x + w, y + h - c, x + w - c, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.cubic_to(x + c, y + h, x, y + h - c, x, y + h - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + c, x + c, y, x + r, y);
    pb.close();
    pb.finish()
}

fn circle(x: f32, y: f32, r: f32) -> Option<Path> {
    PathBuilder::from_circle(x, y, r)
}

/// A 윷놀이 piece's outline by shape (web/yut.js `shapePath`).
fn shape(name: &str, x: f32, y: f32, r: f32) -> Option<Path> {
    let mut pb = PathBuilder::new();
    match name {
        "triangle" => {
            pb.move_to(x, y - r);
            pb.line_to(x + r, y + r * 0.8);
            pb.line_to(x - r, y + r * 0.8);
        }
        "square" => {
            let s = r * 0.85;
            return Rect::from_ltrb(x - s, y - s, x + s, y + s).map(PathBuilder::from_rect);
        }
        "diamond" => {
            pb.move_to(x, y - r);
            pb.line_to(x + r, y);
            pb.line_to(x, y + r);
            pb.line_to(x - r, y);
        }
        "star" => {
            for i in 0..10 {
                let a = -std::f32::consts::FRAC_PI_2 + i as f32 * std::f32::consts::PI / 5.0;
                let rr = if i % 2 == 1 { r * 0.45 } else { r };
                let (px, py) = (x + rr * a.cos(), y + rr * a.sin());
                if i == 0 {
                    pb.move_to(px, py);
                } else {
                    pb.line_to(px, py);
                }
            }
        }
        "heart" => {
            pb.move_to(x, y + r);
            pb.cubic_to(
                x - r * 1.6,
                y - r * 0.2,
                x - r * 0.6,
                y - r * 1.3,
                x,
                y - r * 0.4,
            );
            pb.cubic_to(x + r * 0.6, y - r * 1.3, x + r * 1.6, y - r * 0.2, x, y + r);
        }
        _ => return circle(x, y, r),
    }
    pb.close();
    pb.finish()
}

/// A piece as the app draws it: its side's colour and shape, a white edge.
fn token(canvas: &mut Canvas, look: (&str, &str), x: f32, y: f32, r: f32) {
    let (color, form) = look;
    canvas.fill(shape(form, x, y, r), palette::side(color));
    canvas.stroke(shape(form, x, y, r), palette::on_piece(), r * 0.17, None);
}

/// An empty place: a dashed ring.
fn free_place(canvas: &mut Canvas, x: f32, y: f32, r: f32) {
    canvas.stroke(circle(x, y, r), palette::muted(), 3.0, Some([7.0, 6.0]));
}

/// The rows on the right: `n` of them, evenly spaced, each at most 130 px high.
fn rows(n: usize) -> Vec<(f32, f32)> {
    let n = n.max(1);
    let gap = if n > 4 { 10.0 } else { 18.0 };
    let h = ((BOARD - gap * (n as f32 - 1.0)) / n as f32).min(130.0);
    let total = h * n as f32 + gap * (n as f32 - 1.0);
    let top = MARGIN + (BOARD - total) / 2.0;
    (0..n).map(|i| (top + i as f32 * (h + gap), h)).collect()
}

/// The card of `room` as a spectator sees it at `now`: a 1200×630 PNG (empty on the
/// unthinkable failure to allocate or encode it).
pub fn png(room: &AnyRoom, presence: &Presence, now: Millis) -> Vec<u8> {
    let Some(mut canvas) = Canvas::new() else {
        return Vec::new();
    };
    match room {
        AnyRoom::Yut(room) => draw_yut(&mut canvas, room, &room.view(None, presence, now)),
        AnyRoom::Baduk(room) => draw_baduk(&mut canvas, room, &room.view(None, presence, now)),
    }
    canvas.png().unwrap_or_default()
}

/// Where the app draws each spot (web/yut.js `XY`, viewBox 0–100 inside −8…108).
fn yut_xy(node: u8) -> (f32, f32) {
    const AT: [f32; 6] = [95.0, 77.0, 59.0, 41.0, 23.0, 5.0];
    let i = usize::from(node);
    match node {
        0..=5 => (95.0, AT[i]),
        6..=10 => (AT[i - 5], 5.0),
        11..=15 => (5.0, 100.0 - AT[i - 10]),
        16..=19 => (100.0 - AT[i - 15], 95.0),
        20 => (80.0, 20.0),
        21 => (65.0, 35.0),
        22 => (50.0, 50.0),
        23 => (35.0, 65.0),
        24 => (20.0, 80.0),
        25 => (20.0, 20.0),
        26 => (35.0, 35.0),
        27 => (65.0, 65.0),
        _ => (80.0, 80.0),
    }
}

const YUT_BIG: [u8; 5] = [0, 5, 10, 15, 22];
const YUT_DIAGONALS: [(u8, u8); 12] = [
    (5, 20),
    (20, 21),
    (21, 22),
    (22, 23),
    (23, 24),
    (24, 15),
    (10, 25),
    (25, 26),
    (26, 22),
    (22, 27),
    (27, 28),
    (28, 0),
];

fn draw_yut(canvas: &mut Canvas, room: &Room<Yut>, view: &RoomView<'_, Yut>) {
    // The board: the app's viewBox −8…108 on the square.
    let unit = BOARD / 116.0;
    let at = |node: u8| {
        let (x, y) = yut_xy(node);
        (MARGIN + (x + 8.0) * unit, MARGIN + (y + 8.0) * unit)
    };
    canvas.fill(
        rounded(MARGIN, MARGIN, BOARD, BOARD, 28.0),
        palette::yut_board(),
    );
    let edges = (0..20u8)
        .map(|i| (i, (i + 1) % 20))
        .chain(YUT_DIAGONALS.iter().copied());
    for (a, b) in edges {
        canvas.line(at(a), at(b), palette::yut_edge(), 0.8 * unit);
    }
    for node in Node::all().map(Node::index) {
        let big = YUT_BIG.contains(&node);
        let (x, y) = at(node);
        let r = if big { 6.5 } else { 4.6 } * unit;
        let fill = if big {
            palette::yut_big_spot()
        } else {
            palette::yut_spot()
        };
        canvas.fill(circle(x, y, r), fill);
        canvas.stroke(
            circle(x, y, r),
            palette::yut_spot_line(),
            if big { 1.0 } else { 0.7 } * unit,
            None,
        );
    }

    let Some(state) = &view.state else {
        // A lobby: one row per seat, the seat's look when taken, a dashed ring when free.
        let seats = Yut::max_players(&room.options);
        let taken: Vec<_> = view.players.iter().filter(|p| !p.left).collect();
        for (i, (y, h)) in rows(seats).into_iter().enumerate() {
            canvas.row_box(y, h, false);
            let r = (h * 0.3).min(30.0);
            let (cx, cy) = (ROWS_X + 24.0 + r * 1.4, y + h / 2.0);
            match taken.get(i) {
                Some(player) => {
                    let look = match player.team {
                        Some(team) => TEAM_LOOKS[usize::from(team) % TEAM_LOOKS.len()],
                        None => SIDE_LOOKS[player.seat % SIDE_LOOKS.len()],
                    };
                    token(canvas, look, cx, cy, r);
                    // A player of their own side: the pieces they will enter (a team's are
                    // the team's, shown once the game starts).
                    if player.team.is_none() {
                        let waiting = vec![PieceStatus::Home; usize::from(room.options.pieces)];
                        pieces_row(canvas, look, &waiting, h, cy);
                    }
                }
                None => free_place(canvas, cx, cy, r),
            }
        }
        return;
    };

    // The pieces on the board, a stack drawn as pieces fanned up and right.
    let mut stacks: Vec<(u8, (&str, &str), usize)> = Vec::new();
    for side in &state.sides {
        let look = (side.color, side.shape);
        for piece in &side.pieces {
            if let (PieceStatus::Board, Some(node)) = (piece.status, piece.node) {
                match stacks
                    .iter_mut()
                    .find(|(n, l, _)| *n == node.index() && *l == look)
                {
                    Some(stack) => stack.2 += 1,
                    None => stacks.push((node.index(), look, 1)),
                }
            }
        }
    }
    for (node, look, count) in stacks {
        let (x, y) = at(node);
        let r = if YUT_BIG.contains(&node) { 4.6 } else { 3.8 } * unit;
        for k in (0..count.min(4)).rev() {
            let shift = k as f32 * r * 0.45;
            token(canvas, look, x + shift, y - shift, r);
        }
    }

    // One row per side: its look, then its pieces (waiting: the look; on the board: a ring;
    // finished: grey). The side to move, or the winners, marked.
    let winners: Vec<u8> = match &view.result {
        Some(result) => result
            .outcome
            .ranking
            .iter()
            .filter(|s| s.rank == Some(1))
            .map(|s| s.side)
            .collect(),
        None => Vec::new(),
    };
    let to_move = state
        .current_player
        .as_ref()
        .and_then(|p| state.side_of.get(p));
    for (side, (y, h)) in state.sides.iter().zip(rows(state.sides.len())) {
        let marked = match view.status {
            Status::Finished => winners.contains(&side.id),
            _ => to_move == Some(&side.id),
        };
        canvas.row_box(y, h, marked);
        let look = (side.color, side.shape);
        let r = (h * 0.3).min(30.0);
        let cy = y + h / 2.0;
        token(canvas, look, ROWS_X + 24.0 + r * 1.4, cy, r);
        let statuses: Vec<_> = side.pieces.iter().map(|p| p.status).collect();
        pieces_row(canvas, look, &statuses, h, cy);
    }
}

/// A side's pieces in a row (after its big token): waiting in its look, on the board as a
/// dashed outline, home (남) in grey.
fn pieces_row(canvas: &mut Canvas, look: (&str, &str), pieces: &[PieceStatus], h: f32, cy: f32) {
    let small = (h * 0.17).clamp(9.0, 18.0);
    let step = (small * 2.9).min((ROWS_W - 150.0) / pieces.len().max(1) as f32);
    for (i, status) in pieces.iter().enumerate() {
        let x = ROWS_X + 140.0 + small + i as f32 * step;
        match status {
            PieceStatus::Home => token(canvas, look, x, cy, small),
            PieceStatus::Board => {
                canvas.stroke(
                    shape(look.1, x, cy, small),
                    palette::side(look.0),
                    3.0,
                    Some([5.0, 4.0]),
                );
            }
            PieceStatus::Done => canvas.fill(shape(look.1, x, cy, small), palette::done()),
        }
    }
}

/// The star points of a board of `size` lines (none on an even or tiny board).
fn star_points(size: u32) -> Vec<(u32, u32)> {
    let lines: Vec<u32> = match size {
        19 => vec![3, 9, 15],
        13 => vec![3, 6, 9],
        9 => vec![2, 4, 6],
        n if n >= 15 && n % 2 == 1 => vec![3, n / 2, n - 4],
        n if n >= 7 && n % 2 == 1 => vec![2, n / 2, n - 3],
        _ => Vec::new(),
    };
    let mut points = Vec::new();
    for &x in &lines {
        for &y in &lines {
            // 9×9 and 13×13 have only the centre and the four corners' points.
            if matches!(size, 9 | 13) && (x == size / 2) != (y == size / 2) {
                continue;
            }
            points.push((x, y));
        }
    }
    points
}

fn stone(canvas: &mut Canvas, color: Stone, x: f32, y: f32, r: f32) {
    match color {
        Stone::Black => canvas.fill(circle(x, y, r), palette::black()),
        Stone::White => {
            canvas.fill(circle(x, y, r), palette::white());
            canvas.stroke(
                circle(x, y, r),
                palette::white_edge(),
                (r * 0.06).max(1.0),
                None,
            );
        }
    }
}

fn draw_baduk(canvas: &mut Canvas, room: &Room<Baduk>, view: &RoomView<'_, Baduk>) {
    let state: Option<&BadukView> = view.state.as_ref();
    let size = state.map_or(room.options.board_size, |s| u32::from(s.size));
    let size = size.clamp(2, 25);
    let cell = BOARD / size as f32;
    let at = |x: u32, y: u32| {
        (
            MARGIN + cell * (x as f32 + 0.5),
            MARGIN + cell * (y as f32 + 0.5),
        )
    };
    canvas.fill(rounded(MARGIN, MARGIN, BOARD, BOARD, 16.0), palette::wood());
    let width = (cell * 0.045).max(1.5);
    for i in 0..size {
        canvas.line(at(0, i), at(size - 1, i), palette::grid(), width);
        canvas.line(at(i, 0), at(i, size - 1), palette::grid(), width);
    }
    for (x, y) in star_points(size) {
        let (px, py) = at(x, y);
        canvas.fill(circle(px, py, (cell * 0.11).max(3.0)), palette::grid());
    }

    let Some(state) = state else {
        // A lobby: one row per seat, a neutral stone when taken, a dashed ring when free.
        let seats = Baduk::max_players(&room.options);
        let taken = view.players.iter().filter(|p| !p.left).count();
        for (i, (y, h)) in rows(seats).into_iter().enumerate() {
            canvas.row_box(y, h, false);
            let r = (h * 0.3).min(30.0);
            let (cx, cy) = (ROWS_X + 24.0 + r * 1.4, y + h / 2.0);
            if i < taken {
                canvas.fill(circle(cx, cy, r), palette::muted());
            } else {
                free_place(canvas, cx, cy, r);
            }
        }
        return;
    };

    let r = cell * 0.47;
    for (i, &c) in state.board.iter().enumerate() {
        let (x, y) = (i as u32 % size, i as u32 / size);
        let color = match c {
            1 => Stone::Black,
            2 => Stone::White,
            _ => continue,
        };
        let (px, py) = at(x, y);
        stone(canvas, color, px, py, r);
    }
    // The last stone played, ringed as the app rings it.
    if let Some(MoveRecord::Place { color, pt, .. }) = state.moves.last()
        && state
            .board
            .get(usize::from(pt.y) * size as usize + usize::from(pt.x))
            == Some(&match color {
                Stone::Black => 1,
                Stone::White => 2,
            })
    {
        let (px, py) = at(u32::from(pt.x), u32::from(pt.y));
        let ring = match color {
            Stone::Black => palette::white(),
            Stone::White => palette::black(),
        };
        canvas.stroke(circle(px, py, r * 0.5), ring, (cell * 0.08).max(2.0), None);
    }

    // One row per colour: the stone, then the stones it captured (up to what fits). The side
    // to move, or the winner, marked.
    let winner = state.result.as_ref().and_then(|r| r.winner);
    for (color, (y, h)) in [Stone::Black, Stone::White].into_iter().zip(rows(2)) {
        let marked = match view.status {
            Status::Finished => winner == Some(color),
            _ => state.turn == color,
        };
        canvas.row_box(y, h, marked);
        let big = (h * 0.3).min(34.0);
        let cy = y + h / 2.0;
        stone(canvas, color, ROWS_X + 24.0 + big * 1.4, cy, big);
        let prisoner = match color {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        };
        let captured = *state.captures.get(color) as usize;
        let small = 14.0;
        let fits = ((ROWS_W - 160.0) / (small * 2.3)) as usize;
        for i in 0..captured.min(fits) {
            let x = ROWS_X + 140.0 + small + i as f32 * small * 2.3;
            stone(canvas, prisoner, x, cy, small);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_points_are_the_usual_ones() {
        assert_eq!(star_points(19).len(), 9);
        assert_eq!(star_points(13).len(), 5);
        assert!(star_points(13).contains(&(6, 6)));
        assert_eq!(star_points(9).len(), 5);
        assert!(star_points(9).contains(&(4, 4)));
        assert!(star_points(19).contains(&(15, 3)));
    }

    #[test]
    fn rows_fit_the_board_panel() {
        for n in 1..=8 {
            let rows = rows(n);
            let (first, _) = rows[0];
            let (last, h) = rows[n - 1];
            assert!(first >= MARGIN && last + h <= MARGIN + BOARD + 0.01, "{n}");
        }
    }
}
