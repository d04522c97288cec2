//! Why a run's options are refused: [`SpecError`], each value named by the flag it
//! came from. Nothing has been sent when one is returned.

use std::time::Duration;

use crate::pattern::PatternError;
use crate::plan::PlanError;
use crate::result::Shard;

use super::{sysbench, RateSyntaxError, MAX_STEPS};

/// A value the options refuse, named by its flag. Nothing has been sent when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A key-value run's flag, URL or commands file (the message names which).
    #[error("{0}")]
    Kv(String),
    /// `--before-round`/`--before-step` and their limit (the message names the flag).
    #[error("{0}")]
    Before(String),
    /// `--coalesce` on a target whose reads are not stamped.
    #[error("{0}")]
    Coalesce(&'static str),
    /// `hakaru sysbench`'s connection (the message names the option).
    #[error("{0}")]
    Sysbench(#[from] sysbench::SysbenchError),
    #[error("--shard {shard}: {total} {what} cannot be shared by {count} machines, each needs at least one")]
    ShardTooSmall {
        shard: Shard,
        what: &'static str,
        total: u64,
        count: u32,
    },
    #[error("--start-at {at}: that moment passed {ago:.1} s ago (this machine's clock); give a later time, or +30s")]
    StartAtPast { at: String, ago: f64 },
    #[error("--start-at: step {step} ends by request count (-n), so the steps after it have no planned start; give -d")]
    StartAtNeedsDuration { step: usize },
    #[error("--format json is for -o - (the result on stdout); with a file, the JSON result is written beside the CSV anyway")]
    FormatJsonToFile,
    #[error("{flag} must be at least {min}")]
    AtLeast { flag: &'static str, min: u64 },
    #[error("{flag} must be at most {max}, found {found}")]
    AtMost {
        flag: &'static str,
        max: u64,
        found: u64,
    },
    #[error("{flag} must be positive")]
    NotPositive { flag: &'static str },
    #[error("{flag} must be at most {} s ({why})", .max.as_secs())]
    TooLong {
        flag: &'static str,
        max: Duration,
        why: &'static str,
    },
    #[error("--end-n-clients ({end}) is below --start-n-clients ({start})")]
    EndBelowStart { start: usize, end: usize },
    #[error(
        "--rounds {rounds} × {steps} step(s) is more than the {MAX_STEPS} steps a run may have"
    )]
    TooManySteps { rounds: usize, steps: usize },
    #[error("--start-n-clients to --end-n-clients by --step makes {steps} steps, more than the {MAX_STEPS} a run may have")]
    TooManyClientSteps { steps: usize },
    #[error("--expect-cache-hit-rate must be between 0 and 1, found {0}")]
    HitRate(f64),
    /// `--rate` (see [`rate`](super::rate)).
    // Not a `source`: the message already says it, and `{:#}` would say it twice.
    #[error("--rate {text}: {why}")]
    Rate { text: String, why: RateSyntaxError },
    #[error("{flags}: {why}")]
    Conflict {
        flags: &'static str,
        why: &'static str,
    },
    #[error("give either a URL or --request-patterns-file, not both")]
    UrlAndFile,
    #[error("nothing to request: give a URL or --request-patterns-file")]
    NothingToRequest,
    #[error("-H \"{0}\": expected \"Name: value\"")]
    HeaderNoColon(String),
    #[error("-H \"{header}\": \"{name}\" is not a header name")]
    HeaderName { header: String, name: String },
    #[error("-H \"{0}\": a header value cannot contain a line break")]
    HeaderLineBreak(String),
    #[error("cannot read --body-file {path}: {why}")]
    BodyFile { path: String, why: std::io::Error },
    #[error(transparent)]
    Patterns(#[from] PatternError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// `--cacert`, `--insecure`: the message names the flag.
    #[error("{0}")]
    Tls(String),
    /// `--probe-pid`: the message names the flag.
    #[error("{0}")]
    ProbePid(String),
}
