//! `--start-at`: when load machines start, as a moment on the clock they share
//! (`2026-11-23T10:00:00Z`) or a delay (`+30s`), and the check that a run's steps can
//! be scheduled from it. The runner waits for each step's moment
//! ([`crate::runner::start`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    parse_rfc3339(t).map(StartAt::At).ok_or_else(|| {
        format!("\"{s}\" is neither a time like 2026-11-23T10:00:00Z nor a delay like +30s")
    })
}

/// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±hh:mm)`, as `date -u +%FT%TZ` writes it.
fn parse_rfc3339(t: &str) -> Option<SystemTime> {
    let b = t.as_bytes();
    if b.len() < 20
        || !b.is_ascii()
        || b[4] != b'-'
        || b[7] != b'-'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let p = &t[r];
        p.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| p.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &t[19..];
    let mut nanos = 0u32;
    if let Some(f) = rest.strip_prefix('.') {
        let digits = f.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        nanos = f[..digits].parse::<u32>().ok()? * 10u32.pow(9 - digits as u32);
        rest = &f[digits..];
    }
    let offset_s: i64 = match rest {
        "Z" | "z" => 0,
        o if o.len() == 6 && o.as_bytes()[3] == b':' => {
            let sign = match o.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (oh, om) = (o[1..3].parse::<i64>().ok()?, o[4..6].parse::<i64>().ok()?);
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
        _ => return None,
    };
    let days_in_month = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => return None,
    };
    if !(1970..=9999).contains(&y) || d < 1 || d > days_in_month || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset_s;
    let secs = u64::try_from(secs).ok()?;
    UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
}

/// (year, month, day) to days since 1970-01-01, after Howard Hinnant's `days_from_civil`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
