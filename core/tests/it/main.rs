//! The rules engines' integration tests, in one test binary (one link instead of one per file).
//! Each module is one subject; `cargo test -p madang-core --test it yut_checklist::` runs one.
//! A new subject is a new file here and a `mod` line below (`docs/contributing.md`, "Tests").

mod baduk_common;
mod support;

mod audit;
mod baduk_checklist;
mod baduk_correspondence;
mod baduk_engine;
mod baduk_limits;
mod baduk_props;
mod baduk_seki_marks;
mod baduk_sgf;
mod baduk_stored;
mod option_schema;
mod replay;
mod room_bots;
mod stored_format4;
mod yut_checklist;
mod yut_hint;
mod yut_house_rules;
mod yut_log;
mod yut_props;
