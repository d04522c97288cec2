//! The comparison's sentences: every run against the first, from the figures
//! [`CompareRow`] puts side by side.

use std::fmt::Write as _;

use crate::analysis::{self, RatioSpread, Spread};
use crate::report::fmt::{clients, fmt_qps, fmt_ratio, fmt_ratio_spread};

/// Plain sentences comparing every run with the first.
pub fn compare_sentences(rows: &[CompareRow]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(base) = rows.first() else {
        return out;
    };
    let b = &base.label;
    for r in &rows[1..] {
        let mut s = String::new();
        match (r.peak_ratio, ratio(r.peak_qps, base.peak_qps)) {
            // Repetitions on both sides: the ratio with its spread, and whether the
            // difference stands out of the noise at all.
            (Some(rs), _) if rs.within_noise => {
                let _ = write!(
                    s,
                    "{}'s peak qps is within the noise of {b}'s: {}",
                    r.label,
                    fmt_ratio_spread(rs.ratio, rs.sd)
                );
            }
            (Some(rs), _) if rs.sd.is_some() => {
                let _ = write!(
                    s,
                    "{} holds {} {b}'s peak qps",
                    r.label,
                    fmt_ratio_spread(rs.ratio, rs.sd)
                );
            }
            (_, Some(q)) if q >= 1.05 => {
                let _ = write!(s, "{} holds {} {b}'s peak qps", r.label, fmt_ratio(q));
            }
            (_, Some(q)) if q > 0.95 => {
                let _ = write!(s, "{} matches {b}'s peak qps (within 5%)", r.label);
            }
            (_, Some(q)) => {
                let _ = write!(
                    s,
                    "{} reaches {}{:.0}% of {b}'s peak qps",
                    r.label,
                    if q < 0.8 { "only " } else { "" },
                    q * 100.0
                );
            }
            (_, None) => {
                let _ = write!(s, "{} has no throughput to compare", r.label);
            }
        }
        if let (Some(p), Some(bp)) = (r.peak_qps, base.peak_qps) {
            let _ = write!(
                s,
                " ({} vs {} qps{})",
                fmt_qps(p),
                fmt_qps(bp),
                match (r.runs, base.runs) {
                    (1, 1) => String::new(),
                    (a, b) if a == b => format!(", means of {a} runs each"),
                    (1, b) => format!(", against a mean of {b} runs"),
                    (a, 1) => format!(", a mean of {a} runs against one"),
                    (a, b) => format!(", means of {a} and {b} runs"),
                }
            );
        }
        if let Some(l) = ratio(r.low_load_latency_s, base.low_load_latency_s) {
            let at = match r.low_load_clients {
                Some(1) | None => "1-client".to_string(),
                Some(n) => format!("{n}-client"),
            };
            if (0.95..1.05).contains(&l) {
                let _ = write!(s, "; its {at} latency is about the same as {b}'s");
            } else {
                let _ = write!(s, "; its {at} latency is {} {b}'s", fmt_ratio(l));
            }
        }
        s.push('.');
        out.push(s);
        if let (Some(p), Some(bp)) = (r.plateau_clients, base.plateau_clients) {
            if p != bp {
                out.push(format!(
                    "{} levels off at {} ({b}: {bp}).",
                    r.label,
                    clients(p)
                ));
            }
        }
    }
    if rows.len() > 2 {
        if let Some(best) = rows.iter().filter(|r| r.peak_qps.is_some()).max_by(|a, b| {
            a.peak_qps
                .unwrap_or(0.0)
                .total_cmp(&b.peak_qps.unwrap_or(0.0))
        }) {
            out.push(format!(
                "Highest peak: {}, {} qps at {}.",
                best.label,
                best.peak_qps.map(fmt_qps).unwrap_or_default(),
                clients(best.peak_clients.unwrap_or(0))
            ));
        }
    }
    out
}

/// The figures of one run that a comparison puts side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub label: String,
    pub peak_qps: Option<f64>,
    pub peak_clients: Option<usize>,
    /// Fewest clients reaching 95% of the peak.
    pub plateau_clients: Option<usize>,
    /// Mean latency at the lowest load (normally 1 client), seconds.
    pub low_load_latency_s: Option<f64>,
    /// Clients of the lowest-load step (normally 1).
    pub low_load_clients: Option<usize>,
    /// Mean latency at the peak, seconds.
    pub latency_at_peak_s: Option<f64>,
    /// p99 at the peak, seconds, when the file has percentiles.
    pub p99_at_peak_s: Option<f64>,
    /// Percent of all requests of the run without a 2xx/3xx response.
    pub error_share: f64,
    /// Warnings of the run's saturation analysis.
    pub warnings: Vec<analysis::Warning>,
    /// Repetitions behind the row (rounds, or files of one label); 1 for a single run.
    pub runs: usize,
    /// The peak qps of each repetition, as a spread (`peak_qps` is then its mean).
    pub peak_spread: Option<Spread>,
    /// The peak ratio to the first row with its spread, when both are repeated.
    pub peak_ratio: Option<RatioSpread>,
}

/// `a ÷ base` when both are known and the base is positive.
pub fn ratio(a: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (a, base) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}
