//! The parsers of the values run options are written in: durations ("30", "500ms",
//! "2m"), counts ("10k") and `ramp`'s lists of rates ("100,200" or "100:1000:100").
//! clap calls the first two on flags; [`super::RunOptions`] calls the last.

use std::time::Duration;

use super::SpecError;
use crate::engine::MAX_DURATION;

/// Parse "30", "2.5", "1e3", "30s", "500ms", "200us", "2m", "1h" into a duration of at most
/// [`MAX_DURATION`] (beyond it a `Duration` could not even hold some values).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let bad = || format!("\"{s}\" is not a duration (try 30, 30s, 500ms, 2m, 1h30m)");
    // Parts of a number and a unit ("1h30m", "2m30.5s"); a bare number is seconds. The
    // unit is the letters after each number, so "1e3" is a number and "1e3ms" one with a
    // unit.
    let mut secs = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .char_indices()
            .find(|&(i, c)| {
                c.is_ascii_alphabetic()
                    && !(c == 'e'
                        && rest[i + 1..]
                            .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
            })
            .map_or(rest.len(), |(i, _)| i);
        let unit_len = rest[num_len..]
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len() - num_len);
        let (num, unit) = (&rest[..num_len], &rest[num_len..num_len + unit_len]);
        rest = &rest[num_len + unit_len..];
        let v: f64 = num.trim().parse().map_err(|_| bad())?;
        if unit.is_empty() && secs != 0.0 {
            return Err(bad());
        }
        secs += match unit {
            "us" => v / 1_000_000.0,
            "ms" => v / 1000.0,
            "" | "s" | "sec" => v,
            "m" | "min" => v * 60.0,
            "h" => v * 3600.0,
            _ => {
                return Err(format!(
                    "\"{s}\": unknown unit \"{unit}\" (use us, ms, s, m or h)"
                ))
            }
        };
        if v < 0.0 {
            return Err(format!("\"{s}\" must be a non-negative duration"));
        }
    }
    if s.is_empty() {
        return Err(bad());
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

/// The largest count written with a fraction or an exponent ("1.5k", "1e6"): past
/// 2^53 a float no longer holds every whole number.
const MAX_FLOAT_COUNT: f64 = 9_007_199_254_740_992.0;

/// Parse "1000", "10k", "1.5m" or "1e6" into a count: a whole number (`1.5` is not
/// one), never rounded or saturated (`1e30` is refused, not u64::MAX).
/// `--ok-status`: codes, ranges and classes (`200,404`, `200-299,404`, `2xx`).
pub fn parse_ok_status(s: &str) -> Result<crate::stats::OkStatus, String> {
    crate::stats::OkStatus::parse(s)
}

pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000.0),
        Some('m') => (&t[..t.len() - 1], 1_000_000.0),
        _ => (&t[..], 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("\"{s}\" is not a count (try 1000, 10k, 1m)"))?;
    if v < 0.0 || v.is_nan() {
        return Err(format!("\"{s}\" must not be negative"));
    }
    let n = v * mult;
    if n > MAX_FLOAT_COUNT {
        return Err(format!("\"{s}\" is more than {MAX_FLOAT_COUNT} (2^53)"));
    }
    if (n - n.round()).abs() > 1e-6 {
        return Err(format!("\"{s}\" is not a whole number"));
    }
    Ok(n.round() as u64)
}

impl SpecError {
    /// What is wrong with a scenario's patterns file, in words that quote nothing of it
    /// (it may be any file: `../../../etc/passwd`); None for errors of another kind.
    pub fn patterns_problem(&self) -> Option<String> {
        use crate::pattern::PatternError as P;
        use crate::plan::PlanError;
        Some(match self {
            SpecError::Patterns(p) => match p {
                P::Read { source, .. } => format!("cannot read the patterns file: {source}"),
                P::Empty { .. } => "the patterns file is empty".into(),
                P::Json { line, column, .. } => {
                    format!("not a patterns file: invalid JSON at line {line}, column {column}")
                }
                P::Line { line, .. } => {
                    format!("not a patterns file: line {line} is not a pattern")
                }
                P::Shape {
                    line: Some(line), ..
                } => {
                    format!("not a patterns file: JSON of another shape at line {line}")
                }
                P::Shape { line: None, .. } => "not a patterns file: JSON of another shape".into(),
                P::Key { line, column, .. } => {
                    format!("a key the patterns file may not have, at line {line}, column {column}")
                }
                P::Url { .. } => return None,
            },
            SpecError::Plan(PlanError::Invalid(m)) if m.contains("--allow-pattern-hosts") => {
                "the patterns file names a host of its own (allowing pattern hosts lets it)".into()
            }
            SpecError::Plan(_) => "a pattern in the file is not a request hakaru can send (its \
                 path, host or method); `hakaru run --request-patterns-file FILE` names it"
                .into(),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("200us").unwrap(), Duration::from_micros(200));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1e3").unwrap(), Duration::from_secs(1000));
        assert_eq!(parse_duration("1e3ms").unwrap(), Duration::from_secs(1));
        // One grammar everywhere: compound durations as Go and k6 write them.
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(
            parse_duration("2m30.5s").unwrap(),
            Duration::from_millis(150_500)
        );
        assert_eq!(
            parse_duration("1m500ms").unwrap(),
            Duration::from_millis(60_500)
        );
        assert!(
            parse_duration("1m30").is_err(),
            "a bare number after a unit is ambiguous"
        );
        assert!(parse_duration("").is_err());
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
    fn counts() {
        assert_eq!(parse_count("100000").unwrap(), 100_000);
        assert_eq!(parse_count("10k").unwrap(), 10_000);
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert!(parse_count("lots").is_err());
    }

    #[test]
    fn n_1e30_and_1_5_are_refused_not_saturated_or_rounded() {
        assert!(parse_count("1e30").unwrap_err().contains("more than"));
        assert!(parse_count("1.5")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(parse_count("inf").is_err());
        assert_eq!(parse_count("1.5k").unwrap(), 1_500);
        assert_eq!(parse_count("1e6").unwrap(), 1_000_000);
        assert_eq!(parse_count("18446744073709551615").unwrap(), u64::MAX);
    }
}
