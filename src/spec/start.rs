//! `--start-at`: when load machines start, as a moment on the clock they share
//! (`2026-11-23T10:00:00Z`) or a delay (`+30s`), and the check that a run's steps can
//! be scheduled from it. The runner waits for each step's moment
//! ([`crate::runner::start`]).

use std::time::{Duration, SystemTime};

use super::parse::parse_duration;
use super::SpecError;
use crate::engine::StepSpec;

/// How far in the past a `--start-at` may be: a machine that starts that much after
/// the others still joins (its lateness is recorded); beyond it the shards could not
/// be in step, so the run is refused.
pub const START_AT_TOLERANCE: Duration = Duration::from_secs(1);

/// When every shard starts (`--start-at`): a moment on the shared clock, or a delay
/// from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartAt {
    /// `2026-11-23T10:00:00Z` (or with an offset, `+09:00`).
    At(SystemTime),
    /// `+30s`: that long after the command starts.
    In(Duration),
}

impl StartAt {
    /// The moment, a delay counted from `now`.
    pub fn resolve(self, now: SystemTime) -> SystemTime {
        match self {
            StartAt::At(t) => t,
            StartAt::In(d) => now + d,
        }
    }
}

/// Parse `--start-at`: an RFC 3339 time (`2026-11-23T10:00:00Z`, fractions of a second
/// and `+hh:mm` offsets accepted) or `+DURATION` (`+30s`, `+2m`).
pub fn parse_start_at(s: &str) -> Result<StartAt, String> {
    let t = s.trim();
    if let Some(d) = t.strip_prefix('+') {
        return parse_duration(d).map(StartAt::In);
    }
    crate::timestamp::parse(t).map(StartAt::At).ok_or_else(|| {
        format!("\"{s}\" is neither a time like 2026-11-23T10:00:00Z nor a delay like +30s")
    })
}

/// `--start-at` as a moment, refused when it passed more than [`START_AT_TOLERANCE`]
/// ago or when a step before the last has no planned length (it ends by `-n`).
pub fn start_moment(
    start_at: Option<StartAt>,
    steps: &[StepSpec],
    rounds: usize,
) -> Result<Option<SystemTime>, SpecError> {
    let Some(start_at) = start_at else {
        return Ok(None);
    };
    let all = steps.len() * rounds.max(1);
    if let Some(i) = (0..all.saturating_sub(1)).find(|i| steps[i % steps.len()].duration.is_none())
    {
        return Err(SpecError::StartAtNeedsDuration { step: i + 1 });
    }
    let now = SystemTime::now();
    let at = start_at.resolve(now);
    if let Ok(ago) = now.duration_since(at) {
        if ago > START_AT_TOLERANCE {
            return Err(SpecError::StartAtPast {
                at: crate::sysinfo::rfc3339(at),
                ago: ago.as_secs_f64(),
            });
        }
    }
    Ok(Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn start_times() {
        let at = |s: &str| match parse_start_at(s).unwrap() {
            StartAt::At(t) => t.duration_since(UNIX_EPOCH).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(at("1970-01-01T00:00:00Z"), Duration::ZERO);
        assert_eq!(at("2026-11-23T10:00:00Z").as_secs(), 1_795_428_000);
        assert_eq!(at("2026-11-23T19:00:00+09:00").as_secs(), 1_795_428_000);
        assert_eq!(
            at("2024-02-29T00:00:01.25Z"),
            Duration::new(1_709_164_801, 250_000_000)
        );
        assert_eq!(
            parse_start_at("+30s").unwrap(),
            StartAt::In(Duration::from_secs(30))
        );
        for bad in [
            "",
            "tomorrow",
            "2026-11-23",
            "2026-11-23T10:00:00",
            "2026-02-30T10:00:00Z",
            "2026-11-23T25:00:00Z",
            "2026-11-23T10:00:00+9:00",
            "+soon",
        ] {
            assert!(parse_start_at(bad).is_err(), "{bad}");
        }
        // The formatter and the parser agree.
        let t = UNIX_EPOCH + Duration::new(1_795_428_000, 123_000_000);
        assert_eq!(
            parse_start_at(&crate::sysinfo::rfc3339(t)).unwrap(),
            StartAt::At(t)
        );
    }
}
