//! Embeds the build's git commit as `MADANG_GIT_SHA` (reported by `GET /healthz`):
//! `MADANG_GIT_SHA` from the build's environment if set (CI, a build from a source archive),
//! else `git rev-parse HEAD`, else `unknown` (no git, no `.git`).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-env-changed=MADANG_GIT_SHA");
    let sha = std::env::var("MADANG_GIT_SHA")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    // Build again when HEAD moves: HEAD itself (a branch switch) and the branch it names.
    for path in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["symbolic-ref", "-q", "HEAD"])
            .and_then(|branch| git(&["rev-parse", "--git-path", &branch])),
        git(&["rev-parse", "--git-path", "packed-refs"]),
    ]
    .into_iter()
    .flatten()
    {
        let path = std::path::Path::new(&path);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            // `--git-path` answers relative to the working directory: the crate's.
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
        };
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rustc-env=MADANG_GIT_SHA={sha}");
}
