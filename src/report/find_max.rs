//! `ramp --find-max`'s words and tables: why a probe failed, one row per probe as the
//! search goes, and the answer with its bracket. Pure functions of the result types.

use super::fmt::{fmt_latency, fmt_qps};
use super::threshold::fmt_value;
use crate::analysis::find_max::LATE_SHARE;
use crate::result::find_max::{FindMaxResult, ProbeResult};

/// Why a probe failed, one reason each: "p99<50ms: 81.2 ms", "only 640 responses (needs
/// 1000)", "queue growing: …", "hakaru fell behind: …". Empty for a pass.
pub fn why(p: &ProbeResult) -> Vec<String> {
    let mut out = Vec::new();
    if p.too_few_samples {
        out.push(format!(
            "only {} responses (needs {} to judge)",
            p.responses, p.min_samples
        ));
    }
    for f in &p.failed {
        out.push(format!(
            "{} was {}",
            f.threshold,
            fmt_value(&f.threshold, f.value)
        ));
    }
    if p.queue_growing {
        out.push(format!(
            "queue growing: median {} rising to {}, above the first part's p90 {}",
            fmt_latency(p.part_p50_s.first().copied().unwrap_or(0.0)),
            fmt_latency(p.part_p50_s.last().copied().unwrap_or(0.0)),
            fmt_latency(p.first_part_p90_s)
        ));
    }
    if p.client_behind {
        out.push(format!(
            "hakaru fell behind its timetable ({} due requests never sent): more --end-n-clients, or a faster client machine",
            p.dropped
        ));
    }
    if !out.is_empty() && p.fell_behind {
        out.push(format!(
            "answered {:.1}% of what a server keeping up would have",
            p.kept_up_share * 100.0
        ));
    }
    let ended = p.responses.max(1) as f64;
    if !out.is_empty() && p.late as f64 > LATE_SHARE * ended {
        out.push(format!(
            "{} requests left late (every connection busy, or hakaru short of CPU)",
            p.late
        ));
    }
    if p.inconclusive {
        out.push("probed again for twice as long".into());
    }
    out
}

/// The header of the probe table, for an SLO of these thresholds.
pub fn probe_header(slo: &[String]) -> String {
    let mut line = format!(
        "{:>3}  {:>9}  {:>9}  {:>9}",
        "#", "rate/s", "answered", "responses"
    );
    for t in slo {
        line.push_str(&format!("  {:>12}", t));
    }
    line.push_str("  result");
    line
}

/// One probe's row: its rate, what was answered, each SLO figure, the verdict and why.
pub fn probe_row(index: usize, slo: &[String], p: &ProbeResult) -> String {
    let answered = if p.duration_s > 0.0 {
        p.responses as f64 / p.duration_s
    } else {
        0.0
    };
    let mut line = format!(
        "{:>3}  {:>9}  {:>9}  {:>9}",
        index + 1,
        fmt_qps(p.rate),
        fmt_qps(answered),
        p.responses
    );
    for (t, v) in slo.iter().zip(&p.values) {
        line.push_str(&format!("  {:>12}", fmt_value(t, *v)));
    }
    if p.passed {
        line.push_str("  pass");
    } else if p.inconclusive {
        line.push_str(&format!("  not judged: {}", p.why.join("; ")));
    } else {
        line.push_str(&format!("  FAIL: {}", p.why.join("; ")));
    }
    line
}

/// The whole table, header first.
pub fn probe_table(fm: &FindMaxResult) -> String {
    let mut out = probe_header(&fm.slo);
    out.push('\n');
    for (i, p) in fm.probes.iter().enumerate() {
        out.push_str(&probe_row(i, &fm.slo, p));
        out.push('\n');
    }
    out
}

/// What the search found, in sentences, ending with a newline.
pub fn find_max_summary(fm: &FindMaxResult) -> String {
    let slo = fm.slo.join(", ");
    let mut out = match fm.max_sustainable_rate {
        Some(r) => {
            let mut s = format!("Max sustainable rate: {}/s meeting {slo}", fmt_qps(r));
            s.push_str(if fm.confirmed {
                " (held on a second probe)"
            } else {
                " (not confirmed by a second probe: treat it as a first estimate)"
            });
            match (fm.lowest_failed_rate, fm.uncertainty) {
                (Some(h), Some(u)) => s.push_str(&format!(
                    ".\nThe limit lies between {}/s (passed) and {}/s (failed): within {:.1}% above the answer.\n",
                    fmt_qps(r),
                    fmt_qps(h),
                    u * 100.0
                )),
                _ => s.push_str(&format!(
                    ".\nEvery probe up to {}/s passed: the limit is at least that.\n",
                    fmt_qps(r)
                )),
            }
            s
        }
        None => format!("No probed rate met {slo}.\n"),
    };
    let ended = match fm.ended.as_str() {
        "converged" => "the bracket closed to the precision asked",
        "max_rate" => "--max-rate was reached",
        "max_probes" => "--max-probes ran out before the bracket closed",
        "none_passed" => "no rate passed, down to the lowest the search tries",
        "interrupted" => "it was interrupted",
        other => other,
    };
    out.push_str(&format!(
        "{} probe(s) of at least {} responses and {} s each; the search ended because {ended}.\n",
        fm.probes.len(),
        fm.min_samples,
        super::fmt::sig3(fm.probe_duration_s)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::find_max::FailedThreshold;

    fn probe(rate: f64, passed: bool) -> ProbeResult {
        ProbeResult {
            rate,
            passed,
            duration_s: 2.0,
            responses: (rate * 2.0) as u64,
            min_samples: 1000,
            values: vec![Some(0.0042), Some(0.0)],
            part_p50_s: vec![0.004, 0.004],
            first_part_p90_s: 0.0045,
            ..ProbeResult::default()
        }
    }

    #[test]
    fn the_table_says_why_each_probe_failed() {
        let mut slow = probe(800.0, false);
        slow.responses = 1000;
        slow.values = vec![Some(0.312), Some(0.0)];
        slow.failed = vec![FailedThreshold {
            threshold: "p99<50ms".into(),
            value: Some(0.312),
        }];
        slow.queue_growing = true;
        slow.part_p50_s = vec![0.1, 0.15, 0.21];
        slow.first_part_p90_s = 0.120;
        slow.why = why(&slow);
        let mut short = probe(450.0, false);
        short.responses = 640;
        short.too_few_samples = true;
        short.why = why(&short);
        let fm = FindMaxResult {
            slo: vec!["p99<50ms".into(), "errors<0.1%".into()],
            max_sustainable_rate: Some(400.0),
            confirmed: true,
            lowest_failed_rate: Some(412.5),
            uncertainty: Some(0.03125),
            min_samples: 1000,
            probe_duration_s: 2.0,
            ended: "converged".into(),
            probes: vec![probe(400.0, true), slow, short],
        };
        assert_eq!(
            probe_table(&fm),
            "  #     rate/s   answered  responses      p99<50ms   errors<0.1%  result
  1      400.0      400.0        800       4.20 ms            0%  pass
  2      800.0      500.0       1000        312 ms            0%  FAIL: p99<50ms was 312 ms; queue growing: median 100 ms rising to 210 ms, above the first part's p90 120 ms
  3      450.0      320.0        640       4.20 ms            0%  FAIL: only 640 responses (needs 1000 to judge)
"
        );
        assert_eq!(
            find_max_summary(&fm),
            "Max sustainable rate: 400.0/s meeting p99<50ms, errors<0.1% (held on a second probe).
The limit lies between 400.0/s (passed) and 412.5/s (failed): within 3.1% above the answer.
3 probe(s) of at least 1000 responses and 2.00 s each; the search ended because the bracket closed to the precision asked.
"
        );
    }
}
