//! The board as Prometheus reads it: the text exposition format 0.0.4, or OpenMetrics
//! 1.0 when the scraper asks for it (Prometheus does by default). A pure function of
//! the [`Board`]; the server only picks the format and sends the bytes.
//!
//! Every series of a step carries `step`, `round`, `clients` and (open model) `rate`,
//! so a Grafana panel can draw a ramp step by step. A step's series are live while it
//! runs and hold its exact totals from the result once it ends
//! (`hakaru_step_finished` says which). Statuses, error kinds and labels are known
//! exactly only at a step's end, so their series appear then.
//!
//! Latency buckets are the engine's live buckets, four per octave (each at most 19%
//! wide), from 32 µs to 67 s; a label's histogram keeps one bucket per octave, since
//! labels multiply the series.

use std::fmt::{Display, Write};

use super::board::{Board, Latency, StepBoard};
use crate::engine::live::{upper_us, BUCKETS};

/// Which text format the scraper gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `text/plain; version=0.0.4`: what every Prometheus reads.
    Prometheus,
    /// `application/openmetrics-text; version=1.0.0`, when the `Accept` header names it.
    OpenMetrics,
}

impl Format {
    /// OpenMetrics when the `Accept` header names it (with any quality: a scraper that
    /// names it at all reads it), else Prometheus's text format.
    pub fn from_accept(accept: Option<&str>) -> Format {
        match accept {
            Some(a) if a.contains("application/openmetrics-text") => Format::OpenMetrics,
            _ => Format::Prometheus,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// Lowest and highest bucket edge shown, microseconds: nothing answers over a network
/// in under 32 µs, and past 67 s only `+Inf` matters.
const LOWEST_EDGE_US: u64 = 32;
const HIGHEST_EDGE_US: u64 = 1 << 26;

/// The live buckets shown: (bucket index, upper edge in µs).
fn edges(per_octave_only: bool) -> impl Iterator<Item = (usize, u64)> {
    (0..BUCKETS)
        .map(|i| (i, upper_us(i)))
        .filter(move |&(_, us)| {
            (LOWEST_EDGE_US..=HIGHEST_EDGE_US).contains(&us)
                && (!per_octave_only || us.is_power_of_two())
        })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
    /// A constant 1 whose labels carry facts (OpenMetrics' info; a gauge to Prometheus).
    Info,
}

/// The text being written, in one format.
struct Out {
    text: String,
    format: Format,
}

type Labels = Vec<(&'static str, String)>;

impl Out {
    /// A family's HELP and TYPE; `name` is its samples' name without `_total`/`_info`.
    fn family(&mut self, name: &str, kind: Kind, help: &str) {
        let (name, kind) = match (self.format, kind) {
            (Format::OpenMetrics, Kind::Info) => (name.to_string(), "info"),
            (Format::Prometheus, Kind::Info) => (format!("{name}_info"), "gauge"),
            (Format::OpenMetrics, Kind::Counter) => (name.to_string(), "counter"),
            (Format::Prometheus, Kind::Counter) => (format!("{name}_total"), "counter"),
            (_, Kind::Gauge) => (name.to_string(), "gauge"),
            (_, Kind::Histogram) => (name.to_string(), "histogram"),
        };
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, String)], value: impl Display) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{k}=\"{}\"", escape(v));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }

    /// A histogram's cumulative buckets, `_count` and `_sum`.
    fn histogram(&mut self, name: &str, labels: &Labels, l: &Latency, per_octave_only: bool) {
        let counts = l.buckets.buckets();
        let mut below = 0u64;
        let mut from = 0;
        for (i, us) in edges(per_octave_only) {
            below += counts[from..=i].iter().sum::<u64>();
            from = i + 1;
            let mut with = labels.clone();
            with.push(("le", seconds(us)));
            self.sample(&format!("{name}_bucket"), &with, below);
        }
        let mut with = labels.clone();
        with.push(("le", "+Inf".into()));
        self.sample(&format!("{name}_bucket"), &with, l.count());
        self.sample(&format!("{name}_count"), labels, l.count());
        self.sample(&format!("{name}_sum"), labels, l.sum_s);
    }
}

/// Microseconds as seconds, in the shortest decimal that says them exactly.
fn seconds(us: u64) -> String {
    format!("{}", us as f64 / 1e6)
}

/// A label value as the formats quote it: backslash, double quote and newline escaped.
fn escape(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn step_labels(run: &str, s: &StepBoard) -> Labels {
    let mut l = run_label(run);
    l.extend([
        ("step", s.key.step.to_string()),
        ("round", s.key.round.to_string()),
        ("clients", s.key.clients.to_string()),
    ]);
    if let Some(r) = s.key.rate {
        l.push(("rate", format!("{r}")));
    }
    l
}

/// `run="…"`, first on every series; none on a board without an id.
fn run_label(run: &str) -> Labels {
    if run.is_empty() {
        Vec::new()
    } else {
        vec![("run", run.to_owned())]
    }
}

/// The board in `format`: every step so far, live or final.
pub fn render(board: &Board, format: Format) -> String {
    let mut o = Out {
        text: String::with_capacity(4096 + board.steps.len() * 8192),
        format,
    };
    o.family("hakaru_run", Kind::Info, "The hakaru sending the load.");
    o.sample(
        "hakaru_run_info",
        &[
            run_label(&board.run),
            vec![("version", env!("CARGO_PKG_VERSION").to_string())],
        ]
        .concat(),
        1,
    );
    o.family(
        "hakaru_step",
        Kind::Info,
        "Every step so far, by number (from 1, across rounds and probes), round, clients and offered rate.",
    );
    for s in &board.steps {
        o.sample("hakaru_step_info", &step_labels(&board.run, s), 1);
    }
    o.family(
        "hakaru_step_finished",
        Kind::Gauge,
        "1 once the step has ended and its series hold the result's exact totals; 0 while it runs (live counts).",
    );
    for s in &board.steps {
        let done = u8::from(s.finished.is_some());
        o.sample("hakaru_step_finished", &step_labels(&board.run, s), done);
    }
    o.family(
        "hakaru_step_elapsed_seconds",
        Kind::Gauge,
        "How long the step has run (at its end: its measured wall time).",
    );
    for s in &board.steps {
        o.sample(
            "hakaru_step_elapsed_seconds",
            &step_labels(&board.run, s),
            s.elapsed_s,
        );
    }
    o.family(
        "hakaru_requests",
        Kind::Counter,
        "Requests that ended in the step: responses of any status and errors.",
    );
    for s in &board.steps {
        o.sample(
            "hakaru_requests_total",
            &step_labels(&board.run, s),
            s.requests,
        );
    }
    o.family(
        "hakaru_failed_requests",
        Kind::Counter,
        "Requests that ended without a 2xx/3xx response (errors, 4xx, 5xx).",
    );
    for s in &board.steps {
        o.sample(
            "hakaru_failed_requests_total",
            &step_labels(&board.run, s),
            s.failed,
        );
    }
    finished_families(&mut o, board);
    o.family(
        "hakaru_latency_seconds",
        Kind::Histogram,
        "Response time of the responses (open model: from each request's due time).",
    );
    for s in &board.steps {
        o.histogram(
            "hakaru_latency_seconds",
            &step_labels(&board.run, s),
            &s.latency,
            false,
        );
    }
    label_families(&mut o, board);
    if format == Format::OpenMetrics {
        o.text.push_str("# EOF\n");
    }
    o.text
}

/// What a step says only at its end: responses by status, errors by kind, bytes.
fn finished_families(o: &mut Out, board: &Board) {
    let done = || {
        board
            .steps
            .iter()
            .filter_map(|s| s.finished.as_ref().map(|f| (step_labels(&board.run, s), f)))
    };
    o.family(
        "hakaru_responses",
        Kind::Counter,
        "Whole HTTP responses by status, once the step has ended (exact).",
    );
    for (labels, f) in done() {
        for (status, n) in &f.statuses {
            let mut l = labels.clone();
            l.push(("status", status.to_string()));
            o.sample("hakaru_responses_total", &l, n);
        }
    }
    o.family(
        "hakaru_errors",
        Kind::Counter,
        "Requests without an HTTP response, by kind (timeout, connect, reset…), once the step has ended.",
    );
    for (labels, f) in done() {
        for (kind, n) in &f.errors {
            let mut l = labels.clone();
            l.push(("kind", kind.as_str().to_string()));
            o.sample("hakaru_errors_total", &l, n);
        }
    }
    o.family(
        "hakaru_received_bytes",
        Kind::Counter,
        "Response bytes received, once the step has ended.",
    );
    for (labels, f) in done() {
        o.sample("hakaru_received_bytes_total", &labels, f.bytes_received);
    }
}

/// Each kind of request in a finished step (a group, a pattern's name, a phase's
/// workload…): the label's key becomes the series' label name, `group="search"`.
fn label_families(o: &mut Out, board: &Board) {
    let labelled = || {
        board.steps.iter().flat_map(|s| {
            let labels = step_labels(&board.run, s);
            s.finished.iter().flat_map(move |f| {
                let labels = labels.clone();
                f.labels.iter().map(move |t| {
                    let mut l = labels.clone();
                    l.push((label_name(&t.key), t.value.clone()));
                    (l, t)
                })
            })
        })
    };
    o.family(
        "hakaru_label_requests",
        Kind::Counter,
        "Requests that ended, per kind of request, once the step has ended.",
    );
    for (l, t) in labelled() {
        o.sample("hakaru_label_requests_total", &l, t.requests);
    }
    o.family(
        "hakaru_label_responses",
        Kind::Counter,
        "Whole HTTP responses by status, per kind of request, once the step has ended.",
    );
    for (l, t) in labelled() {
        for (status, n) in &t.statuses {
            let mut l = l.clone();
            l.push(("status", status.to_string()));
            o.sample("hakaru_label_responses_total", &l, n);
        }
    }
    o.family(
        "hakaru_label_errors",
        Kind::Counter,
        "Requests without an HTTP response by kind of error, per kind of request, once the step has ended.",
    );
    for (l, t) in labelled() {
        for (kind, n) in &t.errors {
            let mut l = l.clone();
            l.push(("kind", kind.as_str().to_string()));
            o.sample("hakaru_label_errors_total", &l, n);
        }
    }
    o.family(
        "hakaru_label_latency_seconds",
        Kind::Histogram,
        "Response time per kind of request, one bucket per octave, once the step has ended.",
    );
    for (l, t) in labelled() {
        if let Some(lat) = &t.latency {
            o.histogram("hakaru_label_latency_seconds", &l, lat, true);
        }
    }
}

/// A result label's key as a series' label name: the keys hakaru makes ("group",
/// "name", "workload", "op", "host") as they are; any other (a result from a later
/// hakaru) as `kind_of_request`, a valid name that cannot clash with ours.
fn label_name(key: &str) -> &'static str {
    match key {
        "group" => "group",
        "name" => "name",
        "workload" => "workload",
        "op" => "op",
        "host" => "host",
        _ => "kind_of_request",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::{Counts, Snapshot};
    use crate::engine::{Progress, StepSpec};
    use crate::metrics::board::{Finished, LabelTotals};
    use crate::runner::Position;
    use crate::stats::ErrorKind;
    use std::collections::BTreeMap;
    use std::time::Duration;

    fn board() -> Board {
        let mut b = Board::default();
        let at = Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 2,
        };
        let closed = StepSpec {
            n_clients: 4,
            duration: Some(Duration::from_secs(2)),
            n_requests: None,
            rate: None,
        };
        let w = Counts::default();
        w.record(Duration::from_micros(100));
        w.record(Duration::from_millis(3));
        b.step_started(at, &closed);
        b.progress(&Progress {
            elapsed: Duration::from_millis(1500),
            finished: 3,
            failed: 1,
            latency: Snapshot::of([&w]),
        });
        b.steps[0].finished = Some(Finished {
            statuses: BTreeMap::from([(200, 2)]),
            errors: BTreeMap::from([(ErrorKind::Timeout, 1)]),
            bytes_received: 20,
            labels: vec![LabelTotals {
                key: "group".into(),
                value: "se\"arch".into(),
                requests: 3,
                statuses: BTreeMap::from([(200, 2)]),
                errors: BTreeMap::new(),
                latency: Some(b.steps[0].latency.clone()),
            }],
        });
        let open = StepSpec {
            rate: Some(std::sync::Arc::new(
                crate::engine::pacer::RateProfile::constant(250.0).unwrap(),
            )),
            ..closed
        };
        b.step_started(at, &open);
        b
    }

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn prometheus_text_golden_lines() {
        let t = render(&board(), Format::Prometheus);
        let l = lines(&t);
        for want in [
            "# TYPE hakaru_run_info gauge",
            "# TYPE hakaru_step_info gauge",
            r#"hakaru_step_info{step="1",round="1",clients="4"} 1"#,
            r#"hakaru_step_info{step="2",round="1",clients="4",rate="250"} 1"#,
            r#"hakaru_step_finished{step="1",round="1",clients="4"} 1"#,
            r#"hakaru_step_finished{step="2",round="1",clients="4",rate="250"} 0"#,
            r#"hakaru_step_elapsed_seconds{step="1",round="1",clients="4"} 1.5"#,
            "# TYPE hakaru_requests_total counter",
            r#"hakaru_requests_total{step="1",round="1",clients="4"} 3"#,
            r#"hakaru_requests_total{step="2",round="1",clients="4",rate="250"} 0"#,
            r#"hakaru_failed_requests_total{step="1",round="1",clients="4"} 1"#,
            r#"hakaru_responses_total{step="1",round="1",clients="4",status="200"} 2"#,
            r#"hakaru_errors_total{step="1",round="1",clients="4",kind="timeout"} 1"#,
            r#"hakaru_received_bytes_total{step="1",round="1",clients="4"} 20"#,
            "# TYPE hakaru_latency_seconds histogram",
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="0.000032"} 0"#,
            // 100 µs sits in [96, 112): counted from the edge 0.000112 on.
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="0.000096"} 0"#,
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="0.000112"} 1"#,
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="0.003072"} 2"#,
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="67.108864"} 2"#,
            r#"hakaru_latency_seconds_bucket{step="1",round="1",clients="4",le="+Inf"} 2"#,
            r#"hakaru_latency_seconds_count{step="1",round="1",clients="4"} 2"#,
            // Live: each response at its bucket's lower edge, 96 µs + 2560 µs.
            r#"hakaru_latency_seconds_sum{step="1",round="1",clients="4"} 0.002656"#,
            r#"hakaru_label_requests_total{step="1",round="1",clients="4",group="se\"arch"} 3"#,
            r#"hakaru_label_responses_total{step="1",round="1",clients="4",group="se\"arch",status="200"} 2"#,
            r#"hakaru_label_latency_seconds_bucket{step="1",round="1",clients="4",group="se\"arch",le="0.000128"} 1"#,
        ] {
            assert!(l.contains(&want), "missing {want}\n{t}");
        }
        // Four buckets per octave for a step, one for a label; no EOF in this format.
        let step_buckets = l
            .iter()
            .filter(|x| x.starts_with(r#"hakaru_latency_seconds_bucket{step="1""#))
            .count();
        assert_eq!(step_buckets, 4 * 21 + 1 + 1);
        let label_buckets = l
            .iter()
            .filter(|x| x.starts_with("hakaru_label_latency_seconds_bucket"))
            .count();
        assert_eq!(label_buckets, 22 + 1);
        assert!(!t.contains("# EOF"));
    }

    #[test]
    fn openmetrics_names_families_without_suffixes_and_ends_with_eof() {
        let t = render(&board(), Format::OpenMetrics);
        let l = lines(&t);
        for want in [
            "# TYPE hakaru_run info",
            r#"hakaru_run_info{version=""#,
            "# TYPE hakaru_step info",
            "# TYPE hakaru_requests counter",
            "# HELP hakaru_requests Requests that ended in the step: responses of any status and errors.",
            r#"hakaru_requests_total{step="1",round="1",clients="4"} 3"#,
            "# TYPE hakaru_latency_seconds histogram",
        ] {
            assert!(
                l.iter().any(|x| x.starts_with(want)),
                "missing {want}\n{t}"
            );
        }
        assert_eq!(l.last(), Some(&"# EOF"));
        // Every family declared once.
        let types: Vec<_> = l.iter().filter(|x| x.starts_with("# TYPE")).collect();
        let mut unique = types.clone();
        unique.dedup();
        assert_eq!(types.len(), unique.len());
    }

    #[test]
    fn the_accept_header_picks_the_format() {
        let prom = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::from_accept(Some(prom)), Format::OpenMetrics);
        assert_eq!(Format::from_accept(Some("text/plain")), Format::Prometheus);
        assert_eq!(Format::from_accept(None), Format::Prometheus);
    }

    #[test]
    fn buckets_are_cumulative_and_every_edge_is_a_live_bucket_edge() {
        let e: Vec<u64> = edges(false).map(|(_, us)| us).collect();
        assert_eq!(e.first(), Some(&32));
        assert_eq!(e.last(), Some(&(1 << 26)));
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        // Octave edges are a subset, so a label's buckets sum the same responses.
        assert!(edges(true).all(|(_, us)| e.contains(&us)));
        assert_eq!(seconds(40), "0.00004");
        assert_eq!(escape("a\\b\"c\nd"), r#"a\\b\"c\nd"#);
    }

    /// Issue 35: two runs scraped from one address one after the other looked like
    /// one series that reset; each series now names its run.
    #[test]
    fn every_series_names_its_run() {
        let mut b = board();
        b.run = "2026-11-29T06:20:01.123Z/4242".into();
        let text = render(&b, Format::Prometheus);
        let run = r#"run="2026-11-29T06:20:01.123Z/4242""#;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(line.contains(run), "{line}");
        }
        assert!(
            text.contains(&format!("hakaru_run_info{{{run},version=")),
            "{text}"
        );
    }
}
