//! `state.log` (yut.md §8.1): the last events of the game, kept through the stored form.

use crate::support;

use madang_core::yut::event::LOG_LEN;
use madang_core::yut::{Event, Yut, YutOptions};
use madang_core::{Actor, Game};
use support::Table;

#[test]
fn the_log_holds_the_last_events_in_order_and_survives_the_stored_form() {
    let mut t = Table::new(2, YutOptions::default());
    let mut all: Vec<Event> = Vec::new();
    for _ in 0..40 {
        let p = t.current().unwrap();
        let action = Yut::on_timeout(&t.state, &p, t.now).unwrap();
        t.now += 1_000;
        let events =
            Yut::apply(&mut t.state, Actor::Player(&p), &action, &mut t.rng, t.now).unwrap();
        all.extend(events);
        let view = Yut::view(&t.state, None);
        let start = all.len().saturating_sub(LOG_LEN);
        assert_eq!(
            view.log,
            all[start..],
            "the log is the tail of every event so far"
        );
    }
    assert_eq!(Yut::view(&t.state, None).log.len(), LOG_LEN);
    let bytes = postcard::to_allocvec(&t.state).unwrap();
    let back: madang_core::yut::YutState = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(Yut::view(&back, None).log, Yut::view(&t.state, None).log);
}

#[test]
fn turn_seq_is_the_version_the_room_passes_in() {
    let t = Table::new(2, YutOptions::default());
    assert_eq!(Yut::room_view(&t.state, None, 17).turn_seq, 17);
}
