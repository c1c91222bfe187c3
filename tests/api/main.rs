//! End-to-end tests of the HTTP API: a real server on a loopback port, called the way an app
//! would, playing whole games. One test binary (see `madang_tests::spawn_app`).

mod baduk_games;
mod baduk_limits;
mod bots;
mod cards;
mod chat;
mod contract;
mod errors;
mod exactly_once;
mod features;
mod polling;
mod push;
mod race;
mod rematch;
mod replay;
mod review;
mod rooms;
mod slow;
mod web;
mod yut_games;
mod yut_house_rules;
