//! `--junit PATH`: thresholds as JUnit XML, the test-report format CI systems read
//! (Jenkins, GitLab, GitHub Actions' reporters). One `<testsuite>` for the whole run
//! ("overall") and one per step when there are several; one `<testcase>` per
//! threshold in each, with a `<failure>` saying the value and the bound. Pure: the
//! caller writes the string.

use super::threshold::{failure_message, fmt_value, step_label};
use crate::result::threshold::{ThresholdsResult, Verdict};
use crate::result::RunResult;

/// The JUnit XML document, ending with a newline.
pub fn junit_xml(run: &RunResult, r: &ThresholdsResult) -> String {
    let command = format!("hakaru {}", run.mode);
    let total_s: f64 = run.steps.iter().map(|s| s.elapsed_s).sum();
    let mut suites: Vec<Suite> = vec![Suite {
        name: format!("{command}: overall"),
        key: "overall".into(),
        timestamp: run.started_at.clone(),
        time_s: total_s,
        cases: r
            .thresholds
            .iter()
            .map(|t| (t.threshold.as_str(), &t.overall))
            .collect(),
    }];
    let n_steps = r
        .thresholds
        .iter()
        .map(|t| t.steps.len())
        .max()
        .unwrap_or(0);
    for i in 0..n_steps {
        let step = run.steps.get(i);
        suites.push(Suite {
            name: format!("{command}: {}", step_label(run, i)),
            key: format!("step{}", i + 1),
            timestamp: step.map(|s| s.started_at.clone()).unwrap_or_default(),
            time_s: step.map_or(0.0, |s| s.elapsed_s),
            cases: r
                .thresholds
                .iter()
                .filter_map(|t| t.steps.get(i).map(|v| (t.threshold.as_str(), v)))
                .collect(),
        });
    }
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{total_s:.3}\">\n",
        esc(&command)
    ));
    for s in &suites {
        s.write(&mut x, &run.machine.hostname);
    }
    x.push_str("</testsuites>\n");
    x
}

struct Suite<'a> {
    name: String,
    /// For the test cases' class names: "overall", "step3".
    key: String,
    timestamp: String,
    time_s: f64,
    cases: Vec<(&'a str, &'a Verdict)>,
}

impl Suite<'_> {
    fn failures(&self) -> usize {
        self.cases.iter().filter(|(_, v)| !v.passed).count()
    }

    fn write(&self, x: &mut String, hostname: &str) {
        // JUnit's timestamp is ISO 8601 without a zone; ours are UTC with a "Z".
        let timestamp = self.timestamp.trim_end_matches('Z');
        x.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\" timestamp=\"{}\" hostname=\"{}\">\n",
            esc(&self.name),
            self.cases.len(),
            self.failures(),
            self.time_s,
            esc(timestamp),
            esc(hostname)
        ));
        for (threshold, v) in &self.cases {
            x.push_str(&format!(
                "    <testcase classname=\"hakaru.thresholds.{}\" name=\"{}\" time=\"{:.3}\"",
                esc(&self.key),
                esc(threshold),
                self.time_s
            ));
            let mut out = format!(
                "value {} over {} samples",
                fmt_value(threshold, v.value),
                v.samples
            );
            if let Some(n) = &v.note {
                out.push_str(&format!(" ({n})"));
            }
            if v.passed {
                x.push_str(&format!(
                    ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                    esc(&out)
                ));
            } else {
                x.push_str(&format!(
                    ">\n      <failure type=\"threshold\" message=\"{}\">{}</failure>\n    </testcase>\n",
                    esc(&failure_message(threshold, v)),
                    esc(&out)
                ));
            }
        }
        x.push_str("  </testsuite>\n");
    }
}

/// Text as XML character data or an attribute value.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no way to write most control characters.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::threshold::{evaluate, tests_support::step};
    use crate::result::fixture;
    use crate::spec::threshold::Threshold;

    #[test]
    fn suites_per_scope_and_a_failure_per_failed_threshold() {
        let mut run = fixture::run(vec![step(1000, 0, 1.0), step(10, 2, 1.0)]);
        run.started_at = "2026-11-22T05:00:00Z".into();
        run.machine.hostname = "ci<1>".into();
        let t: Vec<Threshold> = ["p99<200ms", "errors<0.1%"]
            .iter()
            .map(|s| Threshold::parse(s).expect("valid"))
            .collect();
        let x = junit_xml(&run, &evaluate(&t, &run));
        assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"hakaru ramp\" tests=\"6\" failures=\""), "{x}");
        assert_eq!(x.matches("<testsuite ").count(), 3);
        assert!(
            x.contains("name=\"hakaru ramp: step 2 (4 clients)\""),
            "{x}"
        );
        assert!(x.contains("timestamp=\"2026-11-22T05:00:00\" hostname=\"ci&lt;1&gt;\""));
        assert!(x.contains("name=\"p99&lt;200ms\""));
        assert!(x.contains("<failure type=\"threshold\" message=\"990 ms is not below 200 ms\">"));
        assert_eq!(
            x.matches("<testcase ").count(),
            x.matches("</testcase>").count()
        );
    }

    #[test]
    fn escapes() {
        assert_eq!(
            esc("a<b & 'c' \"d\">\u{1}"),
            "a&lt;b &amp; &apos;c&apos; &quot;d&quot;&gt;\u{FFFD}"
        );
    }
}
