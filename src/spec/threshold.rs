//! Thresholds for CI (`--threshold 'p99<200ms'`) and service-level objectives
//! (`ramp --find-max --slo 'p99<50ms,errors<0.1%'`): parsed once, here, into
//! [`Threshold`]s that [`crate::analysis::threshold`] evaluates on any step result
//! and [`crate::report::threshold`] renders. A threshold is `METRIC OP VALUE`:
//!
//! | metric | value | example |
//! |---|---|---|
//! | `p50`, `p90`, `p99`, `p99.9`, any `pQ` (0 < Q < 100) | a duration with its unit (`us`, `µs`, `ms`, `s`) | `p99<200ms` |
//! | `mean`, `max` | a duration | `mean<=20ms` |
//! | `errors` | a share in percent (`0.1%`) or a count (`0`) | `errors<0.1%` |
//! | `qps` (also `rps`) | responses per second (`1000`, `1.5k`) | `qps>1000` |
//! | `docs_per_s` (`bulk` only) | acknowledged documents per second | `docs_per_s>=5k` |
//!
//! `OP` is one of `<`, `<=`, `>`, `>=`. An error is a request without a response or
//! a response whose status is outside 200–399. A bad threshold is refused before any
//! load, with the column where it goes wrong.

use std::fmt;

/// What a threshold measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    /// A percentile of the response time, Q in (0, 100): `p99` is `Percentile(99.0)`.
    Percentile(f64),
    /// Mean response time.
    Mean,
    /// Longest response time.
    Max,
    /// Failed requests as a share of requests that ended, 0..1.
    ErrorShare,
    /// Failed requests, counted.
    ErrorCount,
    /// Responses per second of measured wall time.
    Qps,
    /// `bulk`: acknowledged documents per second.
    DocsPerS,
}

impl Metric {
    /// True for the response-time metrics, whose values are seconds.
    pub fn is_latency(self) -> bool {
        matches!(self, Metric::Percentile(_) | Metric::Mean | Metric::Max)
    }
}

/// How the measured value must compare with the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// True when `value OP bound` holds (false for NaN).
    pub fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Op::Lt => value < bound,
            Op::Le => value <= bound,
            Op::Gt => value > bound,
            Op::Ge => value >= bound,
        }
    }

    /// The words for a failed comparison: "not < 200 ms".
    pub fn negated(self) -> &'static str {
        match self {
            Op::Lt => "not below",
            Op::Le => "above",
            Op::Gt => "not above",
            Op::Ge => "below",
        }
    }
}

/// One parsed threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// As written, spaces removed: `p99<200ms`. Names the threshold in tables,
    /// JUnit test cases and the result.
    pub text: String,
    pub metric: Metric,
    pub op: Op,
    /// In the metric's unit: seconds, a share 0..1, a count, or per second.
    pub bound: f64,
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a threshold was refused: the text, the column (from 1) and the reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("\"{text}\": at column {column}: {why}")]
pub struct ThresholdError {
    pub text: String,
    pub column: usize,
    pub why: String,
}

/// A threshold that does not apply to the command it was given to.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{flag} {text}: {why}")]
pub struct ThresholdUseError {
    pub flag: &'static str,
    pub text: String,
    pub why: &'static str,
}

/// The metric names, for messages.
const METRICS: &str = "p50, p90, p99, p99.9 (any pQ), mean, max, errors, qps, docs_per_s";

impl Threshold {
    /// Parse `METRIC OP VALUE` (see the module's table).
    pub fn parse(text: &str) -> Result<Threshold, ThresholdError> {
        parse_at(text, text, 0)
    }

    /// The thresholds of one command: `--threshold` given many times.
    pub fn check_for(
        thresholds: &[Threshold],
        flag: &'static str,
        bulk: bool,
    ) -> Result<(), ThresholdUseError> {
        for t in thresholds {
            if t.metric == Metric::DocsPerS && !bulk {
                return Err(ThresholdUseError {
                    flag,
                    text: t.text.clone(),
                    why: "docs_per_s is measured by `hakaru bulk` only",
                });
            }
        }
        Ok(())
    }
}

/// Parse a comma-separated list (`--slo 'p99<50ms,errors<0.1%'`); columns count from
/// the start of the whole list.
pub fn parse_list(text: &str) -> Result<Vec<Threshold>, ThresholdError> {
    let mut out = Vec::new();
    let mut offset = 0;
    for part in text.split(',') {
        if !part.trim().is_empty() {
            out.push(parse_at(text, part, offset)?);
        }
        offset += part.len() + 1;
    }
    if out.is_empty() {
        return Err(ThresholdError {
            text: text.into(),
            column: 1,
            why: "no threshold given (try p99<50ms,errors<0.1%)".into(),
        });
    }
    Ok(out)
}

/// clap's value parser for `--threshold`.
pub fn parse_threshold(s: &str) -> Result<Threshold, String> {
    Threshold::parse(s).map_err(|e| e.to_string())
}

/// A service-level objective: thresholds that must all hold (`--slo`).
#[derive(Debug, Clone, PartialEq)]
pub struct Slo(pub Vec<Threshold>);

/// clap's value parser for `--slo`.
pub fn parse_slo(s: &str) -> Result<Slo, String> {
    parse_list(s).map(Slo).map_err(|e| e.to_string())
}

/// Parse `part`, which starts `offset` bytes into `whole` (for the column).
fn parse_at(whole: &str, part: &str, offset: usize) -> Result<Threshold, ThresholdError> {
    let err = |at: usize, why: String| ThresholdError {
        text: whole.to_string(),
        column: whole[..(offset + at).min(whole.len())].chars().count() + 1,
        why,
    };
    let Some(op_at) = part.find(['<', '>', '=', '!']) else {
        return Err(err(
            part.len(),
            "no comparison: write METRIC<VALUE or METRIC>VALUE (p99<200ms, qps>1000)".into(),
        ));
    };
    let name = part[..op_at].trim();
    let name_at = part.len() - part.trim_start().len();
    let rest = &part[op_at..];
    let (op, op_len) = if rest.starts_with("<=") {
        (Op::Le, 2)
    } else if rest.starts_with(">=") {
        (Op::Ge, 2)
    } else if rest.starts_with('<') {
        (Op::Lt, 1)
    } else if rest.starts_with('>') {
        (Op::Gt, 1)
    } else {
        return Err(err(
            op_at,
            "the comparison must be <, <=, > or >= (a measured value is never exactly equal)"
                .into(),
        ));
    };
    let value_at = op_at + op_len;
    let value = part[value_at..].trim();
    let value_at = value_at + (part[value_at..].len() - part[value_at..].trim_start().len());
    if name.is_empty() {
        return Err(err(
            name_at,
            format!("no metric before {} (one of {METRICS})", op.as_str()),
        ));
    }
    if value.is_empty() {
        return Err(err(value_at, format!("no value after {}", op.as_str())));
    }
    let metric = metric(name).map_err(|why| err(name_at, why))?;
    let (num_len, number) = leading_number(value);
    let Some(number) = number else {
        return Err(err(
            value_at,
            format!("\"{value}\" does not start with a number"),
        ));
    };
    let unit = value[num_len..].trim();
    let unit_at =
        value_at + num_len + (value[num_len..].len() - value[num_len..].trim_start().len());
    let (metric, bound) = match metric {
        m if m.is_latency() => {
            let scale = match unit {
                "us" | "µs" => 1e-6,
                "ms" => 1e-3,
                "s" => 1.0,
                "" => {
                    return Err(err(
                        unit_at,
                        format!("{name} needs a unit: {number}ms, {number}s or {number}us"),
                    ))
                }
                u => {
                    return Err(err(
                        unit_at,
                        format!("unknown unit \"{u}\" (use us, ms or s)"),
                    ))
                }
            };
            (m, number * scale)
        }
        Metric::ErrorShare => {
            match unit {
                "%" => {
                    if number > 100.0 {
                        return Err(err(value_at, format!("{number}% is more than 100%")));
                    }
                    (Metric::ErrorShare, number / 100.0)
                }
                "" => {
                    if number.fract() != 0.0 {
                        return Err(err(
                        value_at,
                        format!("errors counts requests: a whole number, or a share such as {number}%"),
                    ));
                    }
                    (Metric::ErrorCount, number)
                }
                u => {
                    return Err(err(
                        unit_at,
                        format!("unknown unit \"{u}\" for errors (a share: 0.1%, or a count: 10)"),
                    ))
                }
            }
        }
        m => {
            let scale = match unit {
                "" | "/s" => 1.0,
                "k" | "k/s" => 1e3,
                "m" | "m/s" => 1e6,
                u => {
                    return Err(err(
                        unit_at,
                        format!("unknown unit \"{u}\" for {name} (per second: 1000, 1.5k)"),
                    ))
                }
            };
            (m, number * scale)
        }
    };
    if !bound.is_finite() || bound < 0.0 {
        return Err(err(
            value_at,
            format!("\"{value}\" must be a non-negative number"),
        ));
    }
    let text: String = part.chars().filter(|c| !c.is_whitespace()).collect();
    Ok(Threshold {
        text,
        metric,
        op,
        bound,
    })
}

/// The metric a name says (`errors` stands for both the share and the count: the
/// value's unit decides).
fn metric(name: &str) -> Result<Metric, String> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "mean" | "avg" => Metric::Mean,
        "max" => Metric::Max,
        "errors" | "error" | "error_rate" => Metric::ErrorShare,
        "qps" | "rps" => Metric::Qps,
        "docs_per_s" => Metric::DocsPerS,
        "median" => Metric::Percentile(50.0),
        n if n.starts_with('p') => {
            let q: f64 = n[1..]
                .parse()
                .map_err(|_| format!("\"{name}\" is not a metric (one of {METRICS})"))?;
            if !(q > 0.0 && q < 100.0) {
                return Err(format!(
                    "{name}: a percentile must be above 0 and below 100"
                ));
            }
            Metric::Percentile(q)
        }
        _ => return Err(format!("\"{name}\" is not a metric (one of {METRICS})")),
    })
}

/// The number at the start of `s` and its length in bytes (no exponent: `1e3ms` would
/// be ambiguous).
fn leading_number(s: &str) -> (usize, Option<f64>) {
    let len = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(s.len(), |(i, _)| i);
    (len, s[..len].parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Threshold {
        Threshold::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn refused(s: &str) -> String {
        Threshold::parse(s).expect_err(s).to_string()
    }

    #[test]
    fn the_forms_ci_writes() {
        let t = p("p99<200ms");
        assert_eq!(
            (t.metric, t.op, t.bound),
            (Metric::Percentile(99.0), Op::Lt, 0.2)
        );
        assert_eq!(t.text, "p99<200ms");
        assert_eq!(p("p50 <= 10ms").text, "p50<=10ms");
        assert_eq!(p("p50 <= 10ms").op, Op::Le);
        assert_eq!(p("p99.9<1s").metric, Metric::Percentile(99.9));
        assert_eq!(p("p99.9<1s").bound, 1.0);
        assert_eq!(p("mean<850us").bound, 850e-6);
        assert_eq!(p("max<2µs").metric, Metric::Max);
        let e = p("errors<0.1%");
        assert_eq!(e.metric, Metric::ErrorShare);
        assert!((e.bound - 0.001).abs() < 1e-12);
        assert_eq!(p("errors<=0").metric, Metric::ErrorCount);
        assert_eq!(p("qps>1000").bound, 1000.0);
        assert_eq!(p("rps>=1.5k").bound, 1500.0);
        assert_eq!(p("docs_per_s>5k/s").metric, Metric::DocsPerS);
    }

    #[test]
    fn refusals_say_where_and_why() {
        assert_eq!(
            refused("p99<200"),
            "\"p99<200\": at column 8: p99 needs a unit: 200ms, 200s or 200us"
        );
        assert_eq!(
            refused("p99<20Oms"),
            "\"p99<20Oms\": at column 7: unknown unit \"Oms\" (use us, ms or s)"
        );
        assert!(refused("p100<1s").contains("column 1: p100: a percentile"));
        assert!(refused("lag<1s").contains("\"lag\" is not a metric"));
        assert!(refused("p99=1s").contains("column 4: the comparison must be"));
        assert!(refused("p99 1s").contains("no comparison"));
        assert!(refused("<1s").contains("no metric"));
        assert!(refused("qps>").contains("no value after >"));
        assert!(refused("errors<0.5").contains("a whole number, or a share such as 0.5%"));
        assert!(refused("errors<101%").contains("more than 100%"));
        assert!(refused("qps>fast").contains("column 5: \"fast\" does not start with a number"));
    }

    #[test]
    fn lists_count_columns_from_the_start() {
        let l = parse_list("p99<50ms, errors<0.1%").expect("valid");
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].text, "errors<0.1%");
        let e = parse_list("p99<50ms,errors<0.1x").expect_err("bad");
        assert_eq!(e.column, 20, "{e}");
        assert!(parse_list(" , ").is_err());
    }

    #[test]
    fn docs_per_s_belongs_to_bulk() {
        let t = vec![p("docs_per_s>100")];
        assert!(Threshold::check_for(&t, "--threshold", true).is_ok());
        let e = Threshold::check_for(&t, "--threshold", false).expect_err("run");
        assert_eq!(
            e.to_string(),
            "--threshold docs_per_s>100: docs_per_s is measured by `hakaru bulk` only"
        );
    }

    #[test]
    fn comparisons() {
        assert!(Op::Lt.holds(1.0, 2.0) && !Op::Lt.holds(2.0, 2.0));
        assert!(Op::Le.holds(2.0, 2.0) && Op::Ge.holds(2.0, 2.0));
        assert!(!Op::Gt.holds(f64::NAN, 0.0));
    }
}
