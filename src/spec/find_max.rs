//! `ramp --find-max --slo …`: the search's options, checked before any load, and the
//! bounds they make ([`FindMaxSpec`]). The search itself is [`crate::analysis::find_max`]
//! (pure) driven by [`crate::find_max`].

use std::time::Duration;

use crate::analysis::find_max::{probe_min_samples, Limits};
use crate::engine::pacer::{MAX_RATE, MIN_RATE};
use crate::spec::threshold::{Threshold, ThresholdUseError};

/// The most probes a search may run (`--max-probes`).
pub const MAX_PROBES: usize = 100;
/// A probe at a slow rate runs long enough for its samples, but never longer than this:
/// the search does not go below the rate that would need more.
pub const MAX_PROBE_DURATION: Duration = Duration::from_secs(120);
/// A search that fails at its start rate goes down at most this far below it.
pub const DOWN_FACTOR: f64 = 16.0;
/// Each growing probe doubles the rate.
pub const GROWTH: f64 = 2.0;
/// A probe runs this much longer than its samples strictly need, so a few errors or
/// requests in flight at the end do not leave it short.
pub const SAMPLE_SLACK: f64 = 1.2;
/// Connections (`--end-n-clients`) a search uses when none are given: requests in
/// flight at once are at most this many, so the rate × response time must stay below it.
pub const DEFAULT_CONNECTIONS: usize = 100;
/// The same for a SQL target: each connection is a server session, and 100 meet
/// PostgreSQL's default `max_connections` (100, three kept for superusers) before
/// any other limit; 64 leave room under it and under MariaDB's 151.
pub const DEFAULT_SQL_CONNECTIONS: usize = 64;

/// What the search is asked to do.
#[derive(Debug, Clone)]
pub struct FindMaxOptions {
    pub slo: Vec<Threshold>,
    /// `--start-rate`, requests per second.
    pub start_rate: f64,
    /// `--max-rate`.
    pub max_rate: f64,
    /// `--max-probes`.
    pub max_probes: usize,
    /// `--precision`, percent.
    pub precision_pct: f64,
    /// `--duration`: the shortest a probe runs.
    pub probe_duration: Duration,
    /// `--interval`: the pause between probes.
    pub interval: Duration,
}

/// A checked search.
#[derive(Debug, Clone)]
pub struct FindMaxSpec {
    pub slo: Vec<Threshold>,
    pub limits: Limits,
    pub min_samples: u64,
    pub probe_duration: Duration,
    pub interval: Duration,
}

/// A search option out of range.
#[derive(Debug, thiserror::Error)]
pub enum FindMaxError {
    #[error("--find-max needs --slo: the thresholds every probe must meet (--slo 'p99<50ms,errors<0.1%')")]
    NoSlo,
    #[error("{flag} must be between {MIN_RATE} and {MAX_RATE} requests per second, found {found}")]
    Rate { flag: &'static str, found: f64 },
    #[error("--max-rate ({max}) is below --start-rate ({start})")]
    MaxBelowStart { start: f64, max: f64 },
    #[error(
        "--max-probes must be from 2 (a probe and its confirmation) to {MAX_PROBES}, found {0}"
    )]
    Probes(usize),
    #[error("--precision must be above 0 and below 100 (percent), found {0}")]
    Precision(f64),
    #[error("--duration must be positive: it is the shortest a probe runs")]
    Duration,
    #[error("--start-rate {rate}: {need} responses would take more than {} s at that rate; start higher", MAX_PROBE_DURATION.as_secs())]
    TooSlow { rate: f64, need: u64 },
    #[error(transparent)]
    Use(#[from] ThresholdUseError),
}

impl FindMaxOptions {
    /// Every check, before any load.
    pub fn check(&self) -> Result<FindMaxSpec, FindMaxError> {
        if self.slo.is_empty() {
            return Err(FindMaxError::NoSlo);
        }
        Threshold::check_for(&self.slo, "--slo", false)?;
        for (flag, r) in [
            ("--start-rate", self.start_rate),
            ("--max-rate", self.max_rate),
        ] {
            if !(MIN_RATE..=MAX_RATE).contains(&r) {
                return Err(FindMaxError::Rate { flag, found: r });
            }
        }
        if self.max_rate < self.start_rate {
            return Err(FindMaxError::MaxBelowStart {
                start: self.start_rate,
                max: self.max_rate,
            });
        }
        if !(2..=MAX_PROBES).contains(&self.max_probes) {
            return Err(FindMaxError::Probes(self.max_probes));
        }
        if !(self.precision_pct > 0.0 && self.precision_pct < 100.0) {
            return Err(FindMaxError::Precision(self.precision_pct));
        }
        if self.probe_duration.is_zero() || self.probe_duration > MAX_PROBE_DURATION {
            return Err(FindMaxError::Duration);
        }
        let min_samples = probe_min_samples(&self.slo);
        // The slowest rate whose samples fit in the longest probe.
        let slowest = min_samples as f64 * SAMPLE_SLACK / MAX_PROBE_DURATION.as_secs_f64();
        if self.start_rate < slowest {
            return Err(FindMaxError::TooSlow {
                rate: self.start_rate,
                need: min_samples,
            });
        }
        Ok(FindMaxSpec {
            slo: self.slo.clone(),
            limits: Limits {
                start_rate: self.start_rate,
                max_rate: self.max_rate,
                // Four halvings below the start at most: slow probes are long ones.
                min_rate: slowest.max(self.start_rate / DOWN_FACTOR).max(MIN_RATE),
                growth: GROWTH,
                precision: self.precision_pct / 100.0,
                max_probes: self.max_probes,
            },
            min_samples,
            probe_duration: self.probe_duration,
            interval: self.interval,
        })
    }
}

impl FindMaxSpec {
    /// The search as planned: every probe judged at its first run, at the start rate
    /// or above (the doubling and the bisection after it), and the pauses between
    /// them. Probes below the start rate (when it fails), reruns of probes with too
    /// few responses and waits for the target to settle come on top
    /// (`find_max::longest` counts them).
    pub fn planned(&self) -> Duration {
        let probe = self.probe_length(self.limits.start_rate);
        (probe + self.interval) * self.limits.max_probes as u32
    }

    /// How long a probe at `rate` runs: `--duration`, or longer when the rate needs
    /// more time for its samples.
    pub fn probe_length(&self, rate: f64) -> Duration {
        let need = self.min_samples as f64 * SAMPLE_SLACK / rate.max(MIN_RATE);
        self.probe_duration.max(Duration::from_secs_f64(
            need.min(MAX_PROBE_DURATION.as_secs_f64()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::threshold::parse_list;

    fn options() -> FindMaxOptions {
        FindMaxOptions {
            slo: parse_list("p99<50ms,errors<0.1%").expect("valid"),
            start_rate: 100.0,
            max_rate: 1e6,
            max_probes: 12,
            precision_pct: 5.0,
            probe_duration: Duration::from_secs(5),
            interval: Duration::from_secs(1),
        }
    }

    #[test]
    fn defaults_pass_and_slow_rates_probe_longer() {
        let s = options().check().expect("valid");
        assert_eq!(s.min_samples, 1000);
        assert_eq!(s.probe_length(10_000.0), Duration::from_secs(5));
        assert_eq!(s.probe_length(100.0), Duration::from_secs(12));
        assert_eq!(s.limits.precision, 0.05);
    }

    #[test]
    fn refusals_name_the_flag() {
        let bad = |f: fn(&mut FindMaxOptions)| {
            let mut o = options();
            f(&mut o);
            o.check().expect_err("refused").to_string()
        };
        assert!(bad(|o| o.max_rate = 10.0).contains("--max-rate (10) is below --start-rate (100)"));
        assert!(bad(|o| o.max_probes = 1).contains("--max-probes"));
        assert!(bad(|o| o.precision_pct = 0.0).contains("--precision"));
        assert!(bad(|o| o.start_rate = 5.0).contains("start higher"));
        assert!(bad(|o| o.slo = parse_list("docs_per_s>1").unwrap()).contains("--slo docs_per_s>1"));
    }
}
