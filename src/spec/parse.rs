//! The parsers of the values run options are written in: durations ("30", "500ms",
//! "2m"), counts ("10k") and `ramp`'s lists of rates ("100,200" or "100:1000:100").
//! clap calls the first two on flags; [`super::RunOptions`] calls the last.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{SpecError, MAX_STEPS};
use crate::engine::pacer::{MAX_RATE, MIN_RATE};
use crate::engine::MAX_DURATION;

/// Parse "30", "2.5", "1e3", "30s", "500ms", "2m", "1h" into a duration of at most
/// [`MAX_DURATION`] (beyond it a `Duration` could not even hold some values).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    // The unit is the trailing letters, so "1e3" is a number and "1e3ms" one with a unit.
    let num = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &s[num.len()..];
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration (try 30, 30s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "" | "s" | "sec" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => {
            return Err(format!(
                "\"{s}\": unknown unit \"{unit}\" (use ms, s, m or h)"
            ))
        }
    };
    if secs < 0.0 {
        return Err(format!("\"{s}\" must be a non-negative duration"));
    }
    if secs.is_nan() || secs > MAX_DURATION.as_secs_f64() {
        return Err(format!("\"{s}\" is longer than the 30 days hakaru accepts"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parse `--shard K/N`: shard K (from 1) of N, N at most 10,000. K may be written
/// `I+1`, so a Kubernetes Indexed Job's 0-based `$(JOB_COMPLETION_INDEX)+1/N` works
/// without a shell in the image.
pub fn parse_shard(s: &str) -> Result<crate::result::Shard, String> {
    let bad = || format!("\"{s}\" is not a shard: give K/N, this machine's number K from 1 to N");
    let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
    let k: u32 = match k.split_once('+') {
        Some((i, one)) => {
            let i: u32 = i.trim().parse().map_err(|_| bad())?;
            let one: u32 = one.trim().parse().map_err(|_| bad())?;
            i.checked_add(one).ok_or_else(bad)?
        }
        None => k.trim().parse().map_err(|_| bad())?,
    };
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || n > 10_000 || k == 0 || k > n {
        return Err(format!(
            "\"{s}\": K must be from 1 to N, and N from 1 to 10,000"
        ));
    }
    Ok(crate::result::Shard { index: k, count: n })
}

/// Parse "1000", "10k" or "1m" into a count.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000.0),
        Some('m') => (&t[..t.len() - 1], 1_000_000.0),
        _ => (&t[..], 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("\"{s}\" is not a count (try 1000, 10k, 1m)"))?;
    if v < 0.0 || !v.is_finite() {
        return Err(format!("\"{s}\" must not be negative"));
    }
    Ok((v * mult).round() as u64)
}

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

/// `ramp --rate`: "100,200,400" or "100:1000:100" (and mixes of both) into a list of
/// rates, each between [`MIN_RATE`] and [`MAX_RATE`], at most [`MAX_STEPS`] of them.
pub fn parse_rates(s: &str) -> Result<Vec<f64>, SpecError> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let nums: Vec<f64> = part
            .split(':')
            .map(|n| {
                n.trim()
                    .parse::<f64>()
                    .map_err(|_| SpecError::RateNotANumber {
                        number: n.to_string(),
                        part: part.to_string(),
                    })
            })
            .collect::<Result<_, _>>()?;
        match nums[..] {
            [r] => out.push(r),
            [a, b, step] => {
                if step.is_nan() || step <= 0.0 || b < a {
                    return Err(SpecError::RateRange(part.to_string()));
                }
                let mut r = a;
                while r <= b + 1e-9 {
                    if out.len() >= MAX_STEPS {
                        return Err(SpecError::TooManyRates);
                    }
                    out.push(r);
                    r += step;
                }
            }
            _ => return Err(SpecError::RateNeither(part.to_string())),
        }
        if out.len() > MAX_STEPS {
            return Err(SpecError::TooManyRates);
        }
    }
    if out.is_empty() {
        return Err(SpecError::NoRates);
    }
    if let Some(bad) = out
        .iter()
        .find(|r| !(r.is_finite() && (MIN_RATE..=MAX_RATE).contains(*r)))
    {
        return Err(SpecError::RateOutOfRange(*bad));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1e3").unwrap(), Duration::from_secs(1000));
        assert_eq!(parse_duration("1e3ms").unwrap(), Duration::from_secs(1));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("3 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("inf").is_err());
        assert!(parse_duration("1000000000")
            .unwrap_err()
            .contains("30 days"));
        assert!(parse_duration("1e19").unwrap_err().contains("30 days"));
        assert!(parse_duration("1e400").unwrap_err().contains("30 days"));
    }

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

    #[test]
    fn counts() {
        assert_eq!(parse_count("100000").unwrap(), 100_000);
        assert_eq!(parse_count("10k").unwrap(), 10_000);
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert!(parse_count("lots").is_err());
    }

    #[test]
    fn rate_lists_and_ramps() {
        assert_eq!(parse_rates("100,200").unwrap(), vec![100.0, 200.0]);
        assert_eq!(
            parse_rates("100:300:100").unwrap(),
            vec![100.0, 200.0, 300.0]
        );
        for bad in ["0", "5:1:1", "a", "1e-20", "", "1:2", "1:1e9:1", "NaN"] {
            let e = parse_rates(bad).expect_err(bad).to_string();
            assert!(e.contains("--rate"), "{bad}: {e}");
        }
    }
}
