//! A key-value run told per command, as memtier_benchmark's table tells it: each
//! command's operations per second, its hits and misses and hit ratio (reads only:
//! a write's `250` is a write done, not a hit), and its latency (average, p50, p99,
//! p99.9), then the totals. Built from what was measured per command (each
//! label's counts by reply and histogram; a run of one command, the step's own),
//! with each command's kind from the result's `settings.store_commands`; the
//! terminal, Markdown and HTML show the same rows.
//!
//! The reply numbers a store's answers are counted under (`250`, `254`…) are named
//! on the floor ([`crate::report::fmt::status_name`]), so that no view a person
//! reads shows them raw.

use crate::report::chart::esc;
pub(crate) use crate::report::fmt::{
    all_stores, status_name, STORE_EXISTS, STORE_MISS, STORE_NO_TOKEN, STORE_VALUE,
};
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share};
use crate::report::table::{md_table, Align};
use crate::result::{LatencySummary, RunResult, StepResult, StoreCommand};

/// The label keys a key-value run counts its commands under: a commands file's
/// `command`, YCSB's `op` (a suite's phase over a store).
const COMMAND_KEYS: [&str; 2] = ["command", "op"];
/// A command name wider than this is cut (with an ellipsis) to keep 80 columns.
const NAME_WIDTH: usize = 12;
/// What a cell says where the figure means nothing (a write's hit ratio).
const NONE: &str = "—";

const HEADERS: [&str; 9] = [
    "command", "ops/s", "hits", "misses", "hit %", "avg", "p50", "p99", "p99.9",
];

/// Whether every target is a key-value store: its answers are replies to
/// operations, not HTTP responses.
pub fn is_store(run: &RunResult) -> bool {
    all_stores(&run.targets)
}

/// Whether the command `name` reads, as the run listed it.
pub fn reads(run: &RunResult, name: &str) -> Option<bool> {
    listed(&run.settings.store_commands, name)
}

fn listed(commands: &[StoreCommand], name: &str) -> Option<bool> {
    commands.iter().find(|c| c.name == name).map(|c| c.reads)
}

/// One command's row, or the totals'.
struct Row {
    name: String,
    /// `Some(true)`: a read, whose hits and misses are shown; `Some(false)` a write;
    /// `None` not known (a label past the cap, a file before the kinds were kept).
    reads: Option<bool>,
    /// Whole replies (error replies are failures, counted apart).
    replies: u64,
    hits: u64,
    misses: u64,
    latency: Option<LatencySummary>,
}

/// The rows of `step`, commands in the order of the run's list (the file's order),
/// then the totals; empty when the run is not a store's or names no commands.
fn rows(run: &RunResult, step: &StepResult) -> Vec<Row> {
    if !is_store(run) {
        return Vec::new();
    }
    command_rows(&run.settings.store_commands, step)
}

/// The rows of `step`, whose requests were `commands` to a store (in their order),
/// then the totals; empty when it names none.
fn command_rows(commands: &[StoreCommand], step: &StepResult) -> Vec<Row> {
    if commands.is_empty() {
        return Vec::new();
    }
    let kind = |name: &str| listed(commands, name);
    let count = |statuses: &std::collections::BTreeMap<u16, u64>, code: u16| {
        statuses.get(&code).copied().unwrap_or(0)
    };
    let answered = |l: &LatencySummary| (l.count > 0).then_some(*l);
    let mut rows: Vec<Row> = Vec::new();
    let labels: Vec<_> = step
        .labels
        .iter()
        .filter(|l| COMMAND_KEYS.contains(&l.key.as_str()))
        .collect();
    if labels.is_empty() {
        // One command: the step's figures are its own.
        let [one] = commands else {
            return Vec::new();
        };
        rows.push(Row {
            name: one.name.clone(),
            reads: Some(one.reads),
            replies: step.responses,
            hits: count(&step.statuses, STORE_VALUE),
            misses: count(&step.statuses, STORE_MISS),
            latency: answered(&step.latency),
        });
    } else {
        for c in commands {
            if let Some(l) = labels.iter().find(|l| l.value == c.name) {
                rows.push(Row {
                    name: c.name.clone(),
                    reads: Some(c.reads),
                    replies: l.responses,
                    hits: count(&l.statuses, STORE_VALUE),
                    misses: count(&l.statuses, STORE_MISS),
                    latency: answered(&l.latency),
                });
            }
        }
        // A label the list does not name (past the cap: "other").
        for l in labels.iter().filter(|l| kind(&l.value).is_none()) {
            rows.push(Row {
                name: l.value.clone(),
                reads: None,
                replies: l.responses,
                hits: count(&l.statuses, STORE_VALUE),
                misses: count(&l.statuses, STORE_MISS),
                latency: answered(&l.latency),
            });
        }
    }
    let reads = || rows.iter().filter(|r| r.reads == Some(true));
    let total = Row {
        name: "total".into(),
        reads: Some(reads().count() > 0),
        replies: step.responses,
        hits: reads().map(|r| r.hits).sum(),
        misses: reads().map(|r| r.misses).sum(),
        latency: answered(&step.latency),
    };
    rows.push(total);
    rows
}

/// A row's cells, as all three media show them.
fn cells(r: &Row, elapsed_s: f64) -> Vec<String> {
    let lat = |f: fn(&LatencySummary) -> f64| {
        r.latency
            .as_ref()
            .map_or_else(|| NONE.to_string(), |l| fmt_latency(f(l)))
    };
    let (hits, misses, ratio) = match r.reads {
        Some(true) => {
            let looked = r.hits + r.misses;
            let ratio = if looked == 0 {
                NONE.to_string()
            } else {
                fmt_share(r.hits as f64 * 100.0 / looked as f64)
            };
            (r.hits.to_string(), r.misses.to_string(), ratio)
        }
        _ => (NONE.into(), NONE.into(), NONE.into()),
    };
    vec![
        r.name.clone(),
        if elapsed_s > 0.0 {
            fmt_qps(r.replies as f64 / elapsed_s)
        } else {
            NONE.into()
        },
        hits,
        misses,
        ratio,
        lat(|l| l.mean_s),
        lat(|l| l.p50_s),
        lat(|l| l.p99_s),
        lat(|l| l.p999_s),
    ]
}

fn table(run: &RunResult, step: &StepResult) -> Vec<Vec<String>> {
    rows(run, step)
        .iter()
        .map(|r| cells(r, step.elapsed_s))
        .collect()
}

/// A suite phase's table in the terminal (`commands`: its
/// [`crate::result::suite::PhaseResult::store_commands`]), under a heading naming
/// the phase; empty for a phase that lists none.
pub fn phase_text(phase: &str, commands: &[StoreCommand], step: &StepResult) -> String {
    let rows: Vec<Vec<String>> = command_rows(commands, step)
        .iter()
        .map(|r| cells(r, step.elapsed_s))
        .collect();
    let heading = format!("Per command in {phase} (hits and misses of reads; a write's are —):");
    text_table(rows, &heading)
}

/// `name` cut to [`NAME_WIDTH`] characters.
fn cut(name: &str) -> String {
    if name.chars().count() <= NAME_WIDTH {
        return name.to_string();
    }
    let mut s: String = name.chars().take(NAME_WIDTH - 1).collect();
    s.push('…');
    s
}

/// The terminal's table, under a heading and with a line saying what a hit is;
/// empty for a run that is not a store's.
pub fn text(run: &RunResult, step: &StepResult) -> String {
    let heading = "Per command (hits and misses of reads; a write's are —):";
    text_table(table(run, step), heading)
}

/// `rows` as the terminal shows them, under `heading`, in 80 columns; empty
/// without rows.
fn text_table(mut rows: Vec<Vec<String>>, heading: &str) -> String {
    if rows.is_empty() {
        return String::new();
    }
    for r in &mut rows {
        r[0] = cut(&r[0]);
    }
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([HEADERS[c].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..HEADERS.len()).map(width).collect();
    // Two spaces between columns where 80 columns allow, else one.
    let two = widths.iter().sum::<usize>() + 2 * (widths.len() - 1) <= 80;
    let gap = if two { "  " } else { " " };
    let line = |cells: &[&str]| {
        let mut o = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let pad = " ".repeat(widths[c].saturating_sub(cell.chars().count()));
            if c == 0 {
                o.push_str(&format!("{cell}{pad}"));
            } else {
                o.push_str(&format!("{gap}{pad}{cell}"));
            }
        }
        o + "\n"
    };
    let mut o = format!("{heading}\n");
    o.push_str(&line(&HEADERS));
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        o.push_str(&line(&cells));
    }
    o
}

/// The same table in Markdown; empty for a run that is not a store's.
pub fn markdown(run: &RunResult, step: &StepResult) -> String {
    let rows = table(run, step);
    if rows.is_empty() {
        return String::new();
    }
    let mut aligns = vec![Align::Right; HEADERS.len()];
    aligns[0] = Align::Left;
    md_table(&HEADERS, &aligns, &rows)
}

/// The same table in HTML; empty for a run that is not a store's.
pub fn html(run: &RunResult, step: &StepResult) -> String {
    html_table(table(run, step))
}

/// A suite phase's table in HTML ([`phase_text`]'s rows); empty for a phase that
/// lists no commands.
pub fn phase_html(commands: &[StoreCommand], step: &StepResult) -> String {
    let rows = command_rows(commands, step)
        .iter()
        .map(|r| cells(r, step.elapsed_s))
        .collect();
    html_table(rows)
}

fn html_table(rows: Vec<Vec<String>>) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut o = String::from("<table class=\"labels store\"><thead><tr>");
    for h in HEADERS {
        o.push_str(&format!("<th>{}</th>", esc(h)));
    }
    o.push_str("</tr></thead><tbody>");
    let last = rows.len() - 1;
    for (i, r) in rows.iter().enumerate() {
        o.push_str(if i == last {
            "<tr class=\"total\">"
        } else {
            "<tr>"
        });
        for (c, cell) in r.iter().enumerate() {
            let class = if c == 0 { "" } else { " class=\"num\"" };
            o.push_str(&format!("<td{class}>{}</td>", esc(cell)));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
    o
}

/// Each step's table, headed by its step when there are several: `(heading, table)`.
fn per_step(run: &RunResult, one: fn(&RunResult, &StepResult) -> String) -> Vec<(String, String)> {
    let many = run.steps.len() > 1;
    run.steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let head = if many {
                format!("Step {} ({} clients)", i + 1, s.n_clients)
            } else {
                String::new()
            };
            (head, one(run, s))
        })
        .filter(|(_, t)| !t.is_empty())
        .collect()
}

/// The page's section "Per command"; empty for a run that is not a store's.
pub fn html_section(run: &RunResult) -> String {
    let tables = per_step(run, html);
    if tables.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "<section class=\"labels\"><h2>Per command</h2>\
         <p class=\"note\">Hits and misses of reads (a write's replies are writes done, \
         not hits: —); latency from the send to the reply.</p>",
    );
    for (head, t) in tables {
        if !head.is_empty() {
            o.push_str(&format!("<h3>{}</h3>", esc(&head)));
        }
        o.push_str(&t);
    }
    o.push_str("</section>");
    o
}

/// The Markdown's section "Per command"; empty for a run that is not a store's.
pub fn markdown_section(run: &RunResult) -> String {
    let tables = per_step(run, markdown);
    if tables.is_empty() {
        return String::new();
    }
    let mut o =
        String::from("\n### Per command\n\nHits and misses of reads (a write's are —).\n\n");
    for (head, t) in tables {
        if !head.is_empty() {
            o.push_str(&format!("{head}:\n\n"));
        }
        o.push_str(&t);
        o.push('\n');
    }
    o
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::run::text::tests::snapshot;
    use crate::result::fixture::{bare_step, run};
    use crate::result::{LabelResult, StoreCommand};
    use crate::stats::ErrorKind;
    use std::collections::BTreeMap;

    fn latency(count: u64, mean_us: f64, p50: f64, p99: f64, p999: f64) -> LatencySummary {
        LatencySummary {
            count,
            mean_s: mean_us / 1e6,
            p50_s: p50 / 1e6,
            p99_s: p99 / 1e6,
            p999_s: p999 / 1e6,
            max_s: p999 * 2.0 / 1e6,
            ..LatencySummary::default()
        }
    }

    fn label(name: &str, statuses: &[(u16, u64)], lat: LatencySummary) -> LabelResult {
        let responses = statuses.iter().map(|(_, n)| n).sum();
        LabelResult {
            key: COMMAND_KEYS[0].into(),
            value: name.into(),
            total_requests: responses,
            responses,
            statuses: statuses.iter().copied().collect(),
            errors: BTreeMap::new(),
            bytes_received: 0,
            latency: lat,
            histogram: String::new(),
            timeline: None,
        }
    }

    /// A 10-second Redis run: 9 GETs (83,560 hits, 6,440 misses) and an MGET for
    /// each SET, as the run mixed them.
    pub(crate) fn store_run() -> RunResult {
        let mut step = bare_step(50);
        step.elapsed_s = 10.0;
        step.labels = vec![
            label(
                "GET",
                &[(250, 83_560), (254, 6_440)],
                latency(90_000, 412.0, 380.0, 1_250.0, 3_410.0),
            ),
            label(
                "SET",
                &[(250, 10_000)],
                latency(10_000, 455.0, 401.0, 1_320.0, 3_800.0),
            ),
            label(
                "name-of-many-words",
                &[(250, 9_000), (254, 1_000)],
                latency(10_000, 610.0, 550.0, 1_900.0, 5_120.0),
            ),
        ];
        step.responses = 110_000;
        step.total_requests = 110_002;
        step.qps = 11_000.0;
        step.statuses = [(250, 102_560), (254, 7_440)].into_iter().collect();
        step.errors = [(ErrorKind::Timeout, 2)].into_iter().collect();
        step.latency = latency(110_000, 431.0, 390.0, 1_290.0, 3_650.0);
        let mut r = run(vec![step]);
        r.targets = vec!["redis://127.0.0.1:6379".into()];
        r.settings.patterns_source = "cmds.txt".into();
        r.settings.store_commands = [("GET", true), ("SET", false), ("name-of-many-words", true)]
            .into_iter()
            .map(|(name, reads)| StoreCommand {
                name: name.into(),
                reads,
            })
            .collect();
        r
    }

    #[test]
    fn the_reply_numbers_are_the_stores_own() {
        assert_eq!(
            (STORE_VALUE, STORE_MISS, STORE_EXISTS, STORE_NO_TOKEN),
            (
                crate::kv::STATUS_REPLY,
                crate::kv::STATUS_MISS,
                crate::kv::STATUS_EXISTS,
                crate::kv::STATUS_NO_TOKEN
            )
        );
    }

    /// Issue 35: "hits: 83560 (a value read, a write done)" mixed SET completions with
    /// GET hits and the GET hit ratio was nowhere. Per command: a read's hits, misses
    /// and hit %, a write's "—", each with its rate and latency, then the totals (hits
    /// of reads only), in 80 columns.
    #[test]
    fn the_summary_shows_get_hit_ratio_per_command_at_80_columns() {
        let r = run_summary_of(&store_run());
        snapshot("store-summary.txt", &r);
        let table = text(&store_run(), &store_run().steps[0]);
        // The table, and every line of the summary.
        for line in r.lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
        let rows: Vec<&str> = table.lines().collect();
        assert!(
            rows[2].starts_with("GET ") && rows[2].contains("83560") && rows[2].contains("92.8%"),
            "{table}"
        );
        assert!(
            rows[3].starts_with("SET ") && rows[3].matches('—').count() == 3,
            "{table}"
        );
        assert!(rows[4].starts_with("name-of-man…"), "{table}");
        // Totals: the reads' hits (83,560 + 9,000), not the SETs' 10,000 writes.
        assert!(
            rows[5].starts_with("total") && rows[5].contains("92560") && rows[5].contains("11000"),
            "{table}"
        );
        assert!(!r.contains("a value read, a write done"), "{r}");
    }

    /// A suite's YCSB phase over a store printed no table per command: its requests
    /// are counted under `op=` labels. Workload F's read-modify-write, a read and a
    /// write under one label, is listed by no kind and reads "—".
    #[test]
    fn a_ycsb_phase_s_op_labels_make_its_table_at_80_columns() {
        let mut step = store_run().steps[0].clone();
        step.labels = vec![
            label(
                "read",
                &[(250, 40_000), (254, 10_000)],
                latency(50_000, 380.0, 350.0, 1_100.0, 2_900.0),
            ),
            label(
                "read-modify-write",
                &[(250, 58_000), (254, 2_000)],
                latency(60_000, 470.0, 420.0, 1_400.0, 3_900.0),
            ),
        ];
        for l in &mut step.labels {
            l.key = "op".into();
        }
        let read = StoreCommand {
            name: "read".into(),
            reads: true,
        };
        let t = phase_text("run", &[read], &step);
        snapshot("store-ycsb-phase.txt", &t);
        for line in t.lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
        let rows: Vec<&str> = t.lines().collect();
        assert!(rows[0].starts_with("Per command in run "), "{t}");
        assert!(
            rows[2].starts_with("read ") && rows[2].contains("80.0%"),
            "{t}"
        );
        assert!(rows[3].starts_with("read-modify…") && rows[3].matches('—').count() == 3);
        // No phase lists nothing: no table.
        assert_eq!(phase_text("load", &[], &step), "");
    }

    fn run_summary_of(r: &RunResult) -> String {
        crate::report::run::text::run_summary(r, &r.steps[0])
    }

    /// One command: no labels, the step's own figures under its name.
    #[test]
    fn one_command_is_the_step_s_figures() {
        let mut r = store_run();
        r.steps[0].labels.clear();
        r.settings.store_commands.truncate(1);
        let t = text(&r, &r.steps[0]);
        let rows: Vec<&str> = t.lines().collect();
        assert_eq!(rows.len(), 4, "{t}");
        assert!(
            rows[2].starts_with("GET ") && rows[2].contains("102560") && rows[2].contains("93.2%"),
            "{t}"
        );
        // An HTTP run, or a store's result from before the kinds were kept: nothing.
        r.settings.store_commands.clear();
        assert_eq!(text(&r, &r.steps[0]), "");
        let mut http = store_run();
        http.targets = vec!["http://127.0.0.1:1".into()];
        assert_eq!(
            (
                text(&http, &http.steps[0]),
                html_section(&http),
                markdown_section(&http)
            ),
            Default::default()
        );
    }

    #[test]
    fn the_page_and_the_markdown_show_the_same_rows() {
        let r = store_run();
        let md = markdown_section(&r);
        assert!(
            md.contains(
                "| GET | 9000 | 83560 | 6440 | 92.8% | 412 µs | 380 µs | 1.25 ms | 3.41 ms |"
            ),
            "{md}"
        );
        assert!(md.contains("| SET | 1000 | — | — | — |"), "{md}");
        let html = html_section(&r);
        assert!(
            html.contains("<h2>Per command</h2>")
                && html.contains(
                    "<td>GET</td><td class=\"num\">9000</td><td class=\"num\">83560</td>"
                ),
            "{html}"
        );
        assert!(
            html.contains("<tr class=\"total\"><td>total</td>"),
            "{html}"
        );
    }

    /// Issue 35: `-v` printed "250: 92.1%" and "GET 250" — internal numbers. A
    /// store's are named: hit or miss for a read, done or not done for a write.
    #[test]
    fn verbose_names_a_store_s_replies_never_250() {
        let mut r = store_run();
        r.requests = crate::result::RequestList::all(vec![crate::result::RequestInfo {
            id: None,
            method: "GET".into(),
            url: "GET key:{key}".into(),
        }]);
        r.steps[0].slowest = vec![crate::stats::RequestSample {
            elapsed_s: 0.0123,
            request: 0,
            status: 254,
            client: 3,
            index: 17,
            sent: Some("GET key:4711".into()),
        }];
        let t = crate::report::run::text::step_detail(&r, &r.steps[0], 1, 0);
        assert!(
            t.contains("  hit/done: 93.2%\n  miss/not done: 6.76%\n"),
            "{t}"
        );
        assert!(
            t.contains("  12.3 ms: GET miss <client 3>#17 GET key:4711\n"),
            "{t}"
        );
        assert!(t.contains("Errors:\n  timeout: 2"), "{t}");
        for raw in ["250", "254", "{key}"] {
            assert!(!t.contains(raw), "{raw} in\n{t}");
        }
        assert_eq!(status_name(STORE_VALUE, Some(false)), Some("done"));
        assert_eq!(status_name(200, None), None);
    }
}
