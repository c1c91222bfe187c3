//! What the binary-level suites share: the real `madang` binary started on a free port.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Starts `madang` (this build's, or the one `MADANG_BIN` names: run a suite against another
/// build, e.g. to see its tests fail on an older binary) on `127.0.0.1:0` with its data in `data` and `env` added, and waits for the
/// line it prints once listening. Returns the process and its base URL (`http://127.0.0.1:PORT`).
pub fn spawn_madang(data: &Path, env: &[(&str, &str)]) -> (Child, String) {
    let bin = std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
    let mut command = Command::new(bin);
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

/// The `madang` binary on a fresh data directory of its own; killed (and the directory removed)
/// when dropped.
#[allow(dead_code)] // not every suite that shares this module starts servers this way
pub struct Server {
    /// The process.
    pub child: Child,
    /// Its base URL (`http://127.0.0.1:PORT`).
    pub base: String,
    /// Its `host:port`, for raw sockets.
    pub addr: String,
    /// Its data directory.
    pub data: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// Starts [`Server`] `name` of `suite` (its data directory is named after both and this process)
/// with `env` added.
#[allow(dead_code)]
pub fn start_server(suite: &str, name: &str, env: &[(&str, &str)]) -> Server {
    let data = std::env::temp_dir().join(format!("madang-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let (child, base) = spawn_madang(&data, env);
    let addr = base.strip_prefix("http://").unwrap().to_owned();
    Server {
        child,
        base,
        addr,
        data,
    }
}
