//! The deployment's limits from the environment.

use crate::app::Limits;

impl Limits {
    /// The defaults, with each `MADANG_LIMIT_*` variable that is set and parses taken instead
    /// (`MADANG_LIMIT_CREATES_PER_MIN`, `MADANG_LIMIT_JOINS_PER_MIN`,
    /// `MADANG_LIMIT_POLLS_PER_CLIENT`, `MADANG_LIMIT_POLLS_TOTAL`,
    /// `MADANG_LIMIT_HEADER_BYTES`, and `MADANG_MAX_WAIT_SECS`, which can only lower the
    /// deployment's longest long-poll). A value that does not parse is an error, not a silent
    /// default: a typo must not open a public server up.
    pub fn with_env(self) -> Result<Self, String> {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
            match std::env::var(name) {
                Ok(v) => v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{name}={v} is not a number")),
                Err(_) => Ok(default),
            }
        }
        Ok(Limits {
            max_wait_secs: var("MADANG_MAX_WAIT_SECS", self.max_wait_secs)?.min(self.max_wait_secs),
            creates_per_minute: var("MADANG_LIMIT_CREATES_PER_MIN", self.creates_per_minute)?,
            joins_per_minute: var("MADANG_LIMIT_JOINS_PER_MIN", self.joins_per_minute)?,
            polls_per_client: var("MADANG_LIMIT_POLLS_PER_CLIENT", self.polls_per_client)?,
            polls_total: var("MADANG_LIMIT_POLLS_TOTAL", self.polls_total)?,
            max_header_bytes: var("MADANG_LIMIT_HEADER_BYTES", self.max_header_bytes)?,
        })
    }

    /// For tests and trusted deployments where one address is many players (a test driver, a
    /// load generator, a LAN party behind one NAT): no per-client rate or poll limits. The total
    /// poll cap and the header limit stay.
    pub fn trusted(self) -> Self {
        Limits {
            creates_per_minute: 0,
            joins_per_minute: 0,
            polls_per_client: 0,
            ..self
        }
    }
}
