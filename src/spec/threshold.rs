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
//!
//! After the metric, optionally, a **window** and a **label** (either order):
//! `METRIC[WINDOW]{KEY=VALUE} OP VALUE`.
//! - `p99[10s]<200ms`: every 10-second window of the step's per-second timeline must
//!   hold, not only the step as a whole. Windows slide by one second (every window
//!   that fits, not 10-second blocks), so a stall is caught wherever it falls. A window
//!   is whole seconds or minutes (`5s`, `1m`). Every metric but `docs_per_s` (which
//!   has no per-second figures) works windowed: `qps[10s]` is the responses in the
//!   window ÷ its length, `errors[10s]<=5` counts the errors in each window.
//! - `p99{group=search}<50ms`: only the requests of one label (a drnbench group, a
//!   pattern's name, a suite phase's workload, a bulk/YCSB operation, a host, a SQL
//!   script, a SQL statement's own time, `{stmt=2}`). The key
//!   is one of [`LABEL_KEYS`]; the value is everything up to `}`.
//! - `p99[5s]{group=search}<50ms`: both.

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
    /// `[10s]`: every window of this many seconds must hold, not only the whole.
    pub window_s: Option<u64>,
    /// `{group=search}`: only the requests of this label.
    pub label: Option<LabelSelector>,
}

/// The label keys a threshold may select (`{group=search}`): a drnbench group, a
/// pattern's own name, a suite phase's workload, a bulk/YCSB operation, a host, a
/// SQL run's script and statement (`stmt=<n>`: that statement's own time), a
/// key-value store's command, a sysbench thread.
pub const LABEL_KEYS: [&str; 9] = [
    "group", "name", "workload", "op", "host", "script", "stmt", "command", "thread",
];

/// The longest window: a day.
const MAX_WINDOW_S: f64 = 86_400.0;

/// `{key=value}`: one label of a step's requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    /// One of [`LABEL_KEYS`].
    pub key: String,
    pub value: String,
}

impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
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
    pub why: std::borrow::Cow<'static, str>,
}

/// At most 12 labels named in a message, then how many more.
fn shorten(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut out = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    out
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
                    why: "docs_per_s is measured by `hakaru bulk` only".into(),
                });
            }
        }
        Ok(())
    }

    /// Refuses, before any load, a threshold naming a label no request of this run can
    /// carry (`p99{group=serch}`): it would only ever be "not judged". `labels` are
    /// the workload's, made after [`crate::stats::labels::keep_named`] kept the named
    /// ones past the cap.
    pub fn check_labels(
        thresholds: &[Threshold],
        flag: &'static str,
        labels: &crate::stats::Labels,
    ) -> Result<(), ThresholdUseError> {
        for t in thresholds {
            let Some(sel) = &t.label else { continue };
            let has = |l: &&crate::stats::Label| l.key == sel.key && l.value == sel.value;
            if labels.list.iter().any(|l| has(&l)) {
                continue;
            }
            let theirs: Vec<String> = labels
                .list
                .iter()
                .filter(|l| l.value != crate::stats::OTHER)
                .map(|l| format!("{}={}", l.key, l.value))
                .collect();
            let why = if theirs.is_empty() {
                format!("no request of this run is labelled {sel}: it sends one kind of request, with no labels")
            } else {
                format!(
                    "no request of this run is labelled {sel}; its labels are {}",
                    shorten(&theirs)
                )
            };
            return Err(ThresholdUseError {
                flag,
                text: t.text.clone(),
                why: why.into(),
            });
        }
        Ok(())
    }

    /// The words for what it selects, for tables: "every 5-second window, group=search".
    pub fn scope(&self) -> Option<String> {
        let window = self.window_s.map(|w| format!("every {w}-second window"));
        let label = self.label.as_ref().map(|l| format!("label {l}"));
        match (window, label) {
            (None, None) => None,
            (Some(w), None) => Some(w),
            (None, Some(l)) => Some(l),
            (Some(w), Some(l)) => Some(format!("{w}, {l}")),
        }
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

/// clap's value parser for `--slo`. A probe is judged as a whole, on its parts run
/// back to back: neither windows nor labels apply.
pub fn parse_slo(s: &str) -> Result<Slo, String> {
    let list = parse_list(s).map_err(|e| e.to_string())?;
    if let Some(t) = list
        .iter()
        .find(|t| t.window_s.is_some() || t.label.is_some())
    {
        return Err(format!(
            "\"{}\": --slo judges each probe as a whole: no [window] or {{label}} (use --threshold on a run)",
            t.text
        ));
    }
    Ok(Slo(list))
}

/// Parse `part`, which starts `offset` bytes into `whole` (for the column).
fn parse_at(whole: &str, part: &str, offset: usize) -> Result<Threshold, ThresholdError> {
    let err = |at: usize, why: String| ThresholdError {
        text: whole.to_string(),
        column: whole[..(offset + at).min(whole.len())].chars().count() + 1,
        why,
    };
    let Some(op_at) = comparison_at(part).map_err(|(at, why)| err(at, why))? else {
        return Err(err(
            part.len(),
            "no comparison: write METRIC<VALUE or METRIC>VALUE (p99<200ms, qps>1000)".into(),
        ));
    };
    let head = Head::parse(&part[..op_at]).map_err(|(at, why)| err(at, why))?;
    let (name, name_at) = (head.name, head.name_at);
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
    if let (Metric::DocsPerS, Some((_, at))) = (metric, head.window) {
        return Err(err(
            at,
            "docs_per_s has no per-second figures: it is judged per step, without a window".into(),
        ));
    }
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
        window_s: head.window.map(|(w, _)| w),
        label: head.label,
    })
}

/// Where the comparison starts: the first `<`, `>`, `=` or `!` outside `[...]` and
/// `{...}` (a label's value may hold any of them). None without one; an error (offset,
/// why) for a bracket never closed.
fn comparison_at(part: &str) -> Result<Option<usize>, (usize, String)> {
    let mut inside: Option<(char, char, usize)> = None;
    for (i, c) in part.char_indices() {
        match (inside, c) {
            (None, '[') => inside = Some(('[', ']', i)),
            (None, '{') => inside = Some(('{', '}', i)),
            (Some((_, close, _)), c) if c == close => inside = None,
            (None, '<' | '>' | '=' | '!') => return Ok(Some(i)),
            _ => {}
        }
    }
    match inside {
        Some((open, close, at)) => Err((at, format!("no {close} closing this {open}"))),
        None => Ok(None),
    }
}

/// What comes before the comparison: the metric's name, then a window and a label in
/// either order. Errors carry the byte offset in `head`.
struct Head<'a> {
    name: &'a str,
    name_at: usize,
    /// Seconds, and where the window starts (for later errors).
    window: Option<(u64, usize)>,
    label: Option<LabelSelector>,
}

impl<'a> Head<'a> {
    fn parse(head: &'a str) -> Result<Head<'a>, (usize, String)> {
        let name_at = head.len() - head.trim_start().len();
        let name_end = head[name_at..]
            .find(|c: char| c == '[' || c == '{' || c.is_whitespace())
            .map_or(head.len(), |i| name_at + i);
        let mut h = Head {
            name: head[..name_end].trim(),
            name_at,
            window: None,
            label: None,
        };
        let mut at = name_end;
        loop {
            at += head[at..].len() - head[at..].trim_start().len();
            let Some(open) = head[at..].chars().next() else {
                return Ok(h);
            };
            let close = match open {
                '[' => ']',
                '{' => '}',
                c => {
                    return Err((
                        at,
                        format!("unexpected \"{c}\": after the metric come [window], {{label}} and the comparison"),
                    ))
                }
            };
            let Some(len) = head[at..].find(close) else {
                return Err((at, format!("no {close} closing this {open}")));
            };
            let inner = &head[at + 1..at + len];
            let inner_at = at + 1 + (inner.len() - inner.trim_start().len());
            if open == '[' {
                if h.window.is_some() {
                    return Err((at, "a second window: give one [window]".into()));
                }
                h.window = Some((window(inner.trim()).map_err(|why| (inner_at, why))?, at));
            } else {
                if h.label.is_some() {
                    return Err((at, "a second label: one {key=value} per threshold".into()));
                }
                h.label = Some(label(inner).map_err(|(o, why)| (at + 1 + o, why))?);
            }
            at += len + 1;
        }
    }
}

/// `10s`, `1m`: whole seconds, at least one.
fn window(text: &str) -> Result<u64, String> {
    let (len, number) = leading_number(text);
    let Some(number) = number else {
        return Err(format!(
            "\"{text}\": a window is a length in seconds or minutes (10s, 1m)"
        ));
    };
    let secs = match text[len..].trim() {
        "s" => number,
        "m" | "min" => number * 60.0,
        "" => return Err(format!("a window needs a unit: {number}s or {number}m")),
        u => return Err(format!("unknown unit \"{u}\" for a window (use s or m)")),
    };
    if secs.fract() != 0.0 || !(1.0..=MAX_WINDOW_S).contains(&secs) {
        return Err(format!(
            "a window is whole seconds, from 1s to a day (the timeline counts by the second), not {text}"
        ));
    }
    Ok(secs as u64)
}

/// `key=value` (the text inside `{}`); errors carry the offset in it.
fn label(inner: &str) -> Result<LabelSelector, (usize, String)> {
    let Some(eq) = inner.find('=') else {
        let hint = match inner.split_once(':') {
            Some((k, v)) => format!(" ({{{}={}}})", k.trim(), v.trim()),
            None => String::new(),
        };
        return Err((
            0,
            format!(
                "a label is {{key=value}}{hint}, the key one of {}",
                LABEL_KEYS.join(", ")
            ),
        ));
    };
    let key = inner[..eq].trim();
    let value = inner[eq + 1..].trim();
    if !LABEL_KEYS.contains(&key) {
        let at = inner.len() - inner.trim_start().len();
        return Err((
            at,
            format!(
                "\"{key}\" is not a label key (one of {})",
                LABEL_KEYS.join(", ")
            ),
        ));
    }
    if value.is_empty() {
        return Err((eq + 1, format!("no value after {key}=")));
    }
    Ok(LabelSelector {
        key: key.into(),
        value: value.into(),
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
    fn windows_and_labels() {
        let t = p("p99[10s]<200ms");
        assert_eq!((t.window_s, &t.label, t.bound), (Some(10), &None, 0.2));
        assert_eq!(t.text, "p99[10s]<200ms");
        let t = p("p99 [5s] {group=search} < 50ms");
        assert_eq!(t.text, "p99[5s]{group=search}<50ms");
        assert_eq!(t.window_s, Some(5));
        let l = t.label.expect("label");
        assert_eq!((l.key.as_str(), l.value.as_str()), ("group", "search"));
        // Either order; a value may hold what the grammar uses elsewhere.
        let t = p("errors{name=a<b=c}[1m]<=5");
        assert_eq!(t.window_s, Some(60));
        assert_eq!(t.metric, Metric::ErrorCount);
        assert_eq!(t.label.unwrap().value, "a<b=c");
        assert_eq!(p("qps[2s]>10").window_s, Some(2));
        assert_eq!(p("max{host=h:80}<1s").label.unwrap().value, "h:80");
        assert_eq!(
            p("p99[5s]{op=read}<1s").scope().as_deref(),
            Some("every 5-second window, label op=read")
        );
        assert_eq!(p("p99<1s").scope(), None);
    }

    #[test]
    fn window_and_label_refusals_name_the_column() {
        assert_eq!(
            refused("p99[10]<1s"),
            "\"p99[10]<1s\": at column 5: a window needs a unit: 10s or 10m"
        );
        assert!(refused("p99[0.5s]<1s").contains("column 5: a window is whole seconds"));
        assert!(refused("p99[0s]<1s").contains("column 5: a window is whole seconds"));
        assert!(refused("p99[5h]<1s").contains("column 5: unknown unit \"h\" for a window"));
        assert!(refused("p99[5s<1s").contains("column 4: no ] closing this ["));
        assert!(refused("p99[5s][6s]<1s").contains("column 8: a second window"));
        assert_eq!(
            refused("p99{group:search}<1s"),
            "\"p99{group:search}<1s\": at column 5: a label is {key=value} ({group=search}), \
             the key one of group, name, workload, op, host, script, stmt, command, thread"
        );
        assert!(refused("p99{grp=search}<1s").contains("column 5: \"grp\" is not a label key"));
        assert!(refused("p99{group=}<1s").contains("column 11: no value after group="));
        assert!(refused("p99{group=a}{op=b}<1s").contains("column 13: a second label"));
        assert!(refused("p99{group=a<1s").contains("column 4: no } closing this {"));
        assert!(refused("p99 x<1s").contains("column 5: unexpected \"x\""));
        assert!(refused("docs_per_s[5s]>1").contains("column 11: docs_per_s has no per-second"));
        assert!(refused("[5s]<1s").contains("column 1: no metric before <"));
        let e = parse_slo("p99<50ms,p99[5s]<1s").expect_err("windowed slo");
        assert!(e.contains("--slo judges each probe as a whole"), "{e}");
        assert!(parse_slo("p99{group=a}<1s").is_err());
    }

    #[test]
    fn comparisons() {
        assert!(Op::Lt.holds(1.0, 2.0) && !Op::Lt.holds(2.0, 2.0));
        assert!(Op::Le.holds(2.0, 2.0) && Op::Ge.holds(2.0, 2.0));
        assert!(!Op::Gt.holds(f64::NAN, 0.0));
    }
}
