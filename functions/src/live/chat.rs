//! Chat over the live channel (DESIGN "Live channel" and "Chat"): a message, once stored, is
//! sent as `{"type":"chat","message":M}` to exactly those live connections whose viewer may see
//! it — `M` exactly as `GET /rooms/{id}/chat` renders it
//! ([`crate::service::chat::message_json`]), the viewer's rights by the chat service's one rule
//! ([`crate::service::chat::live_may_receive`]).
//!
//! - **Local server**: the post wakes the room's sockets through [`super::Live`]'s chat wake (a
//!   `watch` channel per room that has a socket, so it holds at most one entry per watched
//!   room); each socket then reads the log past the last record it passed on and sends what its
//!   viewer may see on the room as it is now (so a member kicked or gone meanwhile gets none).
//! - **AWS**: [`madang_infra::ChatStore::announce_chat`] reads the room's connection registry
//!   and posts to each connection its frame, decided per connection from the registry's
//!   `player`, within the same bound as a version's announcement
//!   ([`super::aws::ANNOUNCE_BOUND`]): a post never fails the chat answer, nor delays it beyond
//!   that.
//! - **No replay at hello**: the hello carries only the room's `since`. Delivery is a hint and
//!   the chat log is the source of truth, as the room is for versions: after a (re)connect a
//!   client fetches `GET /rooms/{id}/chat?after=N` once its hello is taken (the JS client
//!   follows its hello with a `ping`; the `pong` says the hello was handled), and from then on
//!   every message it may see also arrives over the socket.

use madang_core::PlayerId;
use madang_core::chat::ChatMessage;
use madang_core::room::AnyRoom;
use madang_infra::RoomStore;

use super::ServerFrame;
use crate::app::App;
use crate::service::chat::{live_may_receive, message_json};

/// Delivers `message`, just stored in room `room_id` (as `room` was when the post read it), to
/// the room's live connections that may receive it: wakes this process's sockets, and posts to
/// the connections outside it (AWS), within the announcement's bound.
pub async fn announce<S: RoomStore>(
    app: &App<S>,
    room_id: &str,
    room: &AnyRoom,
    message: &ChatMessage,
) {
    // In-process sockets read the log themselves when woken (nothing to do when nobody watches).
    app.live.chat_posted(room_id, message.seq);
    let Ok(rendered) = message_json(message) else {
        return;
    };
    let frame = ServerFrame::Chat { message: &rendered }.text();
    let frame_for = |player: Option<&str>| {
        let player = player.map(PlayerId::new);
        live_may_receive(room, player.as_ref(), message).then(|| frame.clone())
    };
    app.store.announce_chat(room_id, &frame_for).await;
}
