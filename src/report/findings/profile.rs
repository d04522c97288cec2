//! A rate profile's verdict in words (`analysis::segments`): which segment was not
//! held, with what was answered of what was due, its p99 and its late requests, and
//! when the server was back at the offered rate after it — or that every segment held.

use crate::report::fmt::{fmt_latency, fmt_qps, Work};
use crate::result::profile::{profile_text, ProfileVerdict, RateSegment, SegmentVerdict};

/// "1 s", "2.5 s".
fn secs(s: f64) -> String {
    let r = (s * 1000.0).round() / 1000.0;
    if r.fract() == 0.0 {
        format!("{r:.0} s")
    } else {
        format!("{r} s")
    }
}

/// "the 1 s at 60000/s", "the 10 s from 100/s to 2000/s".
pub fn segment_name(g: &RateSegment) -> String {
    if g.from == g.to {
        format!("the {} at {}/s", secs(g.duration_s), rate(g.from))
    } else {
        format!(
            "the {} from {}/s to {}/s",
            secs(g.duration_s),
            rate(g.from),
            rate(g.to)
        )
    }
}

/// A rate as typed: whole numbers plainly ("60000"), others as `fmt_qps` does.
fn rate(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        fmt_qps(r)
    }
}

/// "38483 answered of 60000 due, p99 535 ms, 63088 late".
pub fn segment_figures(v: &SegmentVerdict) -> String {
    let p99 = v
        .p99_s
        .map_or_else(String::new, |p| format!(", p99 {}", fmt_latency(p)));
    let failed = if v.failed > 0 {
        format!(", {} failed", v.failed)
    } else {
        String::new()
    };
    let unsent = match v.unsent_at_end {
        Some(n) if n > 0 => format!(", {n} not yet sent at its end"),
        _ => String::new(),
    };
    format!(
        "{} answered of {:.0} due{p99}, {} late{failed}{unsent}",
        v.ok, v.offered, v.late
    )
}

/// When the server was back after a segment not held: "recovered at 4 s (1 s after
/// it)", or "had not recovered by the end".
pub fn recovery(g: &RateSegment, v: &SegmentVerdict) -> Option<String> {
    match (v.recovered, v.recovered_at_s) {
        (Some(true), Some(at)) => Some(format!(
            "recovered at {} ({} after it), back at the offered rate with lateness gone",
            secs(at as f64),
            secs((at as f64 - g.end_s()).max(0.0))
        )),
        (Some(false), _) => Some("had not recovered by the end".into()),
        _ => None,
    }
}

/// The sentences: every segment not held and its recovery, or that all held; the
/// rates in the run's words (a SQL run's transactions/s).
pub fn profile_sentences(segments: &[RateSegment], v: &ProfileVerdict, work: Work) -> Vec<String> {
    let text = profile_text(segments);
    let items = work.items();
    if v.held {
        return vec![format!(
            "Every segment of the rate profile ({text} {items}/s) was held: at least 95% \
             of what was due in its seconds answered, {items} leaving on time on average."
        )];
    }
    let mut out = Vec::new();
    // The second the server was back after the last segment not held, if it was.
    let mut behind_until: Option<Option<u64>> = None;
    for (g, s) in segments.iter().zip(&v.segments).filter(|(_, s)| !s.held) {
        let catching_up = behind_until.is_some_and(|back| back.is_none_or(|b| b > s.first_second));
        let mut line = if catching_up {
            format!(
                "{} after it was not held either while the server caught up: {}.",
                capital(&segment_name(g)),
                segment_figures(s)
            )
        } else {
            format!(
                "{} was not held: {}.",
                capital(&segment_name(g)),
                segment_figures(s)
            )
        };
        if !catching_up {
            if let Some(r) = recovery(g, s) {
                line.push_str(&format!(" The server {r}."));
            }
        }
        out.push(line);
        behind_until = Some(s.recovered_at_s);
    }
    out.push(format!(
        "The profile ({text} {items}/s) was judged segment by segment, on the seconds \
         each covers: its mean rate says nothing of a spike."
    ));
    out
}

/// The one-line verdict for a summary's `Held:` line: "yes, every segment", or "no —
/// the 1 s at 60000/s: 38483 answered of 60000 due, …; recovered at 4 s (…)".
pub fn held_line(segments: &[RateSegment], v: &ProfileVerdict) -> String {
    if v.held {
        return "yes, every segment".into();
    }
    let Some((g, s)) = segments.iter().zip(&v.segments).find(|(_, s)| !s.held) else {
        return "no".into();
    };
    let mut line = format!("no — {}: {}", segment_name(g), segment_figures(s));
    if let Some(r) = recovery(g, s) {
        line.push_str("; ");
        line.push_str(&r.replace(", back at the offered rate with lateness gone", ""));
    }
    line
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start_s: f64, duration_s: f64, r: f64) -> RateSegment {
        RateSegment {
            start_s,
            duration_s,
            from: r,
            to: r,
        }
    }

    fn verdict(held: bool, first_second: u64, recovered_at_s: Option<u64>) -> SegmentVerdict {
        SegmentVerdict {
            first_second,
            seconds: 1,
            offered: 60000.0,
            ok: 38483,
            failed: 0,
            late: 63088,
            unsent_at_end: None,
            mean_lag_s: None,
            p99_s: Some(0.535),
            held,
            recovered: (!held).then_some(recovered_at_s.is_some()),
            recovered_at_s,
        }
    }

    /// Issue 35 item 1: a spike not held was reported as "kept up with every offered
    /// rate" and "held: yes" from the profile's mean.
    #[test]
    fn the_spike_not_held_is_named_with_its_figures_and_recovery() {
        let g = [
            seg(0.0, 2.0, 5000.0),
            seg(2.0, 1.0, 60000.0),
            seg(3.0, 3.0, 5000.0),
        ];
        let v = ProfileVerdict {
            held: false,
            segments: vec![
                verdict(true, 0, None),
                verdict(false, 2, Some(4)),
                verdict(true, 3, None),
            ],
        };
        let lines = profile_sentences(&g, &v, Work::Request);
        assert_eq!(
            lines[0],
            "The 1 s at 60000/s was not held: 38483 answered of 60000 due, p99 535 ms, \
             63088 late. The server recovered at 4 s (1 s after it), back at the offered \
             rate with lateness gone."
        );
        assert!(lines[1].contains("(2s@5000, 1s@60000, 3s@5000 requests/s)"));
        assert_eq!(
            held_line(&g, &v),
            "no — the 1 s at 60000/s: 38483 answered of 60000 due, p99 535 ms, 63088 \
             late; recovered at 4 s (1 s after it)"
        );
        let never = ProfileVerdict {
            held: false,
            segments: vec![
                verdict(true, 0, None),
                verdict(false, 2, None),
                verdict(false, 3, None),
            ],
        };
        let lines = profile_sentences(&g, &never, Work::Request);
        assert!(
            lines[0].ends_with("The server had not recovered by the end."),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("The 3 s at 5000/s after it was not held either"));
        assert!(held_line(&g, &never).ends_with("; had not recovered by the end"));
    }

    /// Issue 35 item 1: "The server kept up with every offered rate, up to 14167
    /// requests/s" was said of a profile's mean while its spike was not held.
    #[test]
    fn rate_sentences_of_a_profile_never_claim_its_mean_was_kept_up_with() {
        use crate::analysis::{analyse_rates, tests::series_of};
        use crate::report::findings::rate_sentences;
        use crate::result::profile::StepProfile;
        let g = vec![
            seg(0.0, 2.0, 5000.0),
            seg(2.0, 1.0, 60000.0),
            seg(3.0, 3.0, 5000.0),
        ];
        let spike = StepProfile {
            segments: g,
            verdict: Some(ProfileVerdict {
                held: false,
                segments: vec![
                    verdict(true, 0, None),
                    verdict(false, 2, Some(4)),
                    verdict(true, 3, None),
                ],
            }),
        };
        let mut s = series_of(&[(50, 14167.0, 0.01)]);
        s.points[0].rate = Some(13333.0);
        s.points[0].profile = Some(spike.clone());
        let lines = rate_sentences(&s, &analyse_rates(&s));
        assert!(
            lines[0].starts_with("The 1 s at 60000/s was not held"),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| !l.contains("kept up")), "{lines:?}");
        // A ramp's steps: read by rate (the profiled step not held), then its segments.
        let mut s = series_of(&[(50, 1000.0, 0.01), (50, 14167.0, 0.01)]);
        s.points[0].rate = Some(1000.0);
        s.points[1].rate = Some(13333.0);
        s.points[1].profile = Some(spike);
        let lines = rate_sentences(&s, &analyse_rates(&s));
        assert!(
            lines[0].contains("at 13333 requests/s it fell behind"),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("Step 2: The 1 s at 60000/s was not held")),
            "{lines:?}"
        );
    }

    #[test]
    fn a_profile_held_says_so() {
        let g = [seg(0.0, 1.0, 10.0), seg(1.0, 2.5, 10.0)];
        let v = ProfileVerdict {
            held: true,
            segments: vec![verdict(true, 0, None), verdict(true, 1, None)],
        };
        assert!(profile_sentences(&g, &v, Work::Request)[0]
            .starts_with("Every segment of the rate profile (1s@10, 2.5s@10 requests/s) was held"));
        assert_eq!(held_line(&g, &v), "yes, every segment");
        assert_eq!(
            segment_name(&RateSegment {
                start_s: 0.0,
                duration_s: 10.0,
                from: 100.0,
                to: 2000.0
            }),
            "the 10 s from 100/s to 2000/s"
        );
    }

    /// `hakaru run postgres://… --rate 2s@20,1s@1000` read its profile as "(… requests/s)"
    /// with "requests leaving on time": a SQL run's are transactions, a store's commands.
    #[test]
    fn a_sql_run_s_profile_is_in_transactions_per_second_never_requests() {
        let g = [seg(0.0, 2.0, 20.0), seg(2.0, 1.0, 1000.0)];
        let held = ProfileVerdict {
            held: true,
            segments: vec![verdict(true, 0, None), verdict(true, 2, None)],
        };
        let line = &profile_sentences(&g, &held, Work::Transaction)[0];
        assert!(
            line.contains("(2s@20, 1s@1000 transactions/s) was held"),
            "{line}"
        );
        assert!(line.contains("transactions leaving on time"), "{line}");
        let spike = ProfileVerdict {
            held: false,
            segments: vec![verdict(true, 0, None), verdict(false, 2, Some(4))],
        };
        let lines = profile_sentences(&g, &spike, Work::Command);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("(2s@20, 1s@1000 commands/s)")),
            "{lines:?}"
        );
        assert!(lines.iter().all(|l| !l.contains("request")), "{lines:?}");
    }
}
