//! The summary's lines for a step run on a rate profile: the profile as typed (its
//! mean beside it, never instead of it) and whether every segment was held, the first
//! not held named with its figures and its recovery, wrapped to 80 columns.

use super::summary::field;
use crate::report::findings::profile::held_line;
use crate::report::fmt::Work;
use crate::result::profile::{profile_text, StepProfile};

/// Where a field's value starts ([`field`]'s label column).
const VALUE_COLUMN: usize = 24;
const WIDTH: usize = 80;

/// `Target rate:` and `Held:` of a step with a rate profile, in the run's words (a
/// SQL run's transactions/s).
pub(super) fn profile_fields(out: &mut String, p: &StepProfile, rates: (f64, f64), work: Work) {
    let (mean, qps) = rates;
    field(
        out,
        "Target rate",
        format!(
            "{} {}/s (mean {mean:.1}; achieved {qps:.1} {}/s)",
            profile_text(&p.segments),
            work.items(),
            work.answers()
        ),
    );
    if let Some(v) = &p.verdict {
        field(out, "Held", wrap(&held_line(&p.segments, v)));
    }
}

/// `text` broken at spaces into lines that fit after the label column, the later ones
/// indented to it.
pub(super) fn wrap(text: &str) -> String {
    let room = WIDTH - VALUE_COLUMN;
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > room {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join(&format!("\n{:VALUE_COLUMN$}", ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::profile::RateSegment;

    /// A SQL run's `Target rate:` on a profile said "requests/s … responses/s".
    #[test]
    fn a_sql_run_s_target_rate_on_a_profile_says_transactions_never_requests() {
        let seg = |start_s, duration_s, r| RateSegment {
            start_s,
            duration_s,
            from: r,
            to: r,
        };
        let p = StepProfile {
            segments: vec![seg(0.0, 2.0, 20.0), seg(2.0, 1.0, 1000.0)],
            verdict: None,
        };
        let mut out = String::new();
        profile_fields(&mut out, &p, (346.7, 340.2), Work::Transaction);
        assert!(
            out.contains(
                "2s@20, 1s@1000 transactions/s (mean 346.7; achieved 340.2 transactions/s)"
            ),
            "{out}"
        );
        let mut out = String::new();
        profile_fields(&mut out, &p, (346.7, 340.2), Work::Request);
        assert!(out.contains("1s@1000 requests/s (mean 346.7; achieved 340.2 responses/s)"));
    }
}
