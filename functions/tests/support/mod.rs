//! What the binary-level suites share: the real `madang` binary started on a free port.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts `madang` on `127.0.0.1:0` with its data in `data` and `env` added, and waits for the
/// line it prints once listening. Returns the process and its base URL (`http://127.0.0.1:PORT`).
pub fn spawn_madang(data: &Path, env: &[(&str, &str)]) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_madang"));
    command
        .env("MADANG_ADDR", "127.0.0.1:0")
        .env("MADANG_DATA", data)
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("madang listening on ")
        .unwrap()
        .to_owned();
    (child, base)
}
