//! The terminal table of a bulk write (`hakaru bulk`), laid out like the CouchDB
//! chapter's results: per (batch size, writers) the documents per second, requests per
//! second, megabytes sent per second, latency per request, documents acknowledged,
//! item errors by kind and the statuses seen; then what the run must not hide — a
//! requested mode the server did not honour, and `--verify`'s comparison.

pub mod chart;
pub mod page;

use std::fmt::Write as _;

use super::fmt::{fmt_latency, fmt_qps};
use crate::result::{RunResult, StepResult, VerifyResult};

/// The header of [`bulk_row`].
pub fn bulk_header() -> String {
    format!(
        "{:>7} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>12}  {:<20} {}",
        "batch",
        "writers",
        "docs/s",
        "req/s",
        "MB/s sent",
        "p50",
        "p99",
        "max",
        "acknowledged",
        "item errors",
        "statuses"
    )
}

/// One step's line of the table.
pub fn bulk_row(s: &StepResult) -> String {
    let bulk = s.bulk.clone().unwrap_or_default();
    let elapsed = s.elapsed_s.max(1e-9);
    let errors = if bulk.item_errors.is_empty() {
        "-".to_string()
    } else {
        bulk.item_errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut statuses: Vec<String> = s.statuses.iter().map(|(c, n)| format!("{c}×{n}")).collect();
    statuses.extend(s.errors.iter().map(|(k, n)| format!("{k}×{n}")));
    let lat = |v: f64| {
        if s.responses == 0 {
            "-".to_string()
        } else {
            fmt_latency(v)
        }
    };
    format!(
        "{:>7} {:>7} {:>10} {:>9} {:>9.2} {:>9} {:>9} {:>9} {:>12}  {:<20} {}",
        bulk.batch_size,
        bulk.writers,
        fmt_qps(bulk.docs_per_s),
        fmt_qps(s.qps),
        s.bytes_sent as f64 / elapsed / 1e6,
        lat(s.latency.p50_s),
        lat(s.latency.p99_s),
        lat(s.latency.max_s),
        bulk.docs_acknowledged,
        errors,
        if statuses.is_empty() {
            "-".to_string()
        } else {
            statuses.join(" ")
        }
    )
}

/// The whole table, then the warnings.
pub fn bulk_summary(run: &RunResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", bulk_header());
    for s in &run.steps {
        let _ = writeln!(out, "{}", bulk_row(s));
    }
    out + &bulk_notes(run)
}

/// What follows the table: what was sent, what was not written, and the warnings
/// (alone where the table's rows were already shown as the steps ended).
pub fn bulk_notes(run: &RunResult) -> String {
    let mut out = String::new();
    if let Some(b) = &run.settings.bulk {
        let sent: u64 = run
            .steps
            .iter()
            .filter_map(|s| s.items.as_ref())
            .map(|i| i.sent)
            .sum();
        let _ = writeln!(
            out,
            "Latency is per request ({}); documents are {}; IDs {}; {} documents sent.",
            if b.single {
                "one document each"
            } else {
                "one batch each"
            },
            b.doc,
            b.ids,
            sent
        );
    }
    let mut failed = std::collections::BTreeMap::<&str, u64>::new();
    for s in &run.steps {
        for (k, n) in s.items.iter().flat_map(|i| &i.failed) {
            *failed.entry(k).or_default() += n;
        }
    }
    if !failed.is_empty() {
        let kinds: Vec<String> = failed.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            out,
            "Not written: {} documents ({}).",
            failed.values().sum::<u64>(),
            kinds.join(", ")
        );
    }
    if let Some(line) = cut_off(run) {
        let _ = writeln!(out, "{line}");
    }
    for e in explanations(run) {
        let _ = writeln!(out, "{e}");
    }
    for w in mode_warnings(run) {
        let _ = writeln!(out, "Warning: {w}");
    }
    out
}

/// Bytes as people read them: 812 B, 45.3 KB, 1.05 MB (powers of 1000, like MB/s).
fn fmt_bytes(b: f64) -> String {
    if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

/// The sentences a count alone would hide, one per step where it happened: batches
/// refused as too large (413), and batches the server kept only part of. Each says the
/// batch size and the bytes per request, which is what a limit is about.
pub fn explanations(run: &RunResult) -> Vec<String> {
    let mut out = Vec::new();
    for st in &run.steps {
        let Some(b) = &st.bulk else { continue };
        let sent = st.total_requests + st.unfinished;
        let per_request = if sent > 0 {
            fmt_bytes(st.bytes_sent as f64 / sent as f64)
        } else {
            "-".into()
        };
        let at = format!(
            "at batch size {} with {} writer{} (about {per_request} per request)",
            b.batch_size,
            b.writers,
            if b.writers == 1 { "" } else { "s" }
        );
        let too_large = st.statuses.get(&413).copied().unwrap_or(0);
        if too_large > 0 {
            out.push(format!(
                "Too large: {at}, {too_large} requests were answered 413 Content Too Large and their {} documents not written. The server, or a proxy in front of it, refuses bodies this big (nginx's client_max_body_size is 1 MB unless set; serve --docs takes 64 MiB): use smaller --batch-sizes or raise the limit.",
                too_large * b.batch_size
            ));
        }
        let not_kept = b
            .item_errors
            .get(crate::result::NOT_KEPT)
            .copied()
            .unwrap_or(0);
        if not_kept > 0 {
            let target = run.settings.bulk.as_ref().map_or("", |s| s.target.as_str());
            let why = if target == "groonga" || target == "template" {
                "the answer's count of documents loaded was below the batch: a body cut short (a proxy's or the server's limit), a Content-Type the server does not read as JSON (Groonga then loads nothing and still answers 200), or records it could not load"
            } else {
                "the answer listed fewer results than the batch had documents: a body cut short on the way, or a server that dropped part of it"
            };
            out.push(format!(
                "Truncated: {at}, the answers kept {not_kept} fewer documents than the requests carried ({} kept); {why}.",
                b.docs_acknowledged,
            ));
        }
    }
    out
}

/// One sentence on the requests still in flight when timed steps ended, per step.
pub fn cut_off(run: &RunResult) -> Option<String> {
    let parts: Vec<String> = run
        .steps
        .iter()
        .filter(|st| st.unfinished > 0)
        .map(|st| {
            let (batch, writers) = st
                .bulk
                .as_ref()
                .map_or((1, st.n_clients), |b| (b.batch_size, b.writers));
            format!(
                "batch {batch} × {writers} writer{}: {} request{} ({} documents)",
                if writers == 1 { "" } else { "s" },
                st.unfinished,
                if st.unfinished == 1 { "" } else { "s" },
                st.unfinished * batch
            )
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Cut off when the step ended, still in flight — {}. The server may still write them, and its work on them runs into the next step (use --count, a longer --duration, or --interval).",
            parts.join("; ")
        )
    })
}

/// Modes asked for that the answers show were not honoured.
pub fn mode_warnings(run: &RunResult) -> Vec<String> {
    let mut out = Vec::new();
    let Some(b) = &run.settings.bulk else {
        return out;
    };
    if b.batch_ok {
        let count = |code: u16| -> u64 {
            run.steps
                .iter()
                .map(|s| s.statuses.get(&code).copied().unwrap_or(0))
                .sum()
        };
        let (created, accepted) = (count(201), count(202));
        if accepted == 0 && created > 0 {
            out.push(format!(
                "batch=ok asked, the server answered 201 ({created} times, never 202): the mode was ignored, every write was a normal one"
            ));
        } else if accepted > 0 && created > 0 {
            out.push(format!(
                "batch=ok asked, the server answered 202 {accepted} times and 201 {created} times: only some writes were batched"
            ));
        }
    }
    out
}

/// Documents of requests cut off at a step's end: neither acknowledged nor failed.
pub fn docs_in_flight(run: &RunResult) -> u64 {
    run.steps
        .iter()
        .map(|s| s.unfinished * s.bulk.as_ref().map_or(1, |b| b.batch_size))
        .sum()
}

/// `hakaru demo --bulk`'s table: the rows of several runs, each labelled with its
/// mode (the chapter's bulk sizes, single inserts, `batch=ok`, full commit), then any
/// mode a server did not honour.
pub fn labelled_table(parts: &[(&str, &RunResult)]) -> String {
    let mut out = format!("{:<12} {}\n", "mode", bulk_header());
    for (label, run) in parts {
        for s in &run.steps {
            let _ = writeln!(out, "{label:<12} {}", bulk_row(s));
        }
    }
    for (label, run) in parts {
        for w in mode_warnings(run) {
            let _ = writeln!(out, "Warning ({label}): {w}");
        }
    }
    out
}

/// One sentence on what durable writes cost: single inserts with full commit against
/// the same without.
pub fn full_commit_cost(without: &StepResult, with: &StepResult) -> String {
    let rate = |s: &StepResult| s.bulk.as_ref().map_or(0.0, |b| b.docs_per_s);
    let (a, b) = (rate(without), rate(with));
    let cost = if b > 0.0 && a > 0.0 {
        format!("{:.1}× slower", a / b)
    } else {
        "no comparison (a step wrote nothing)".to_string()
    };
    format!(
        "Full commit (X-Couch-Full-Commit: true, an fsync per write): {} docs/s against {} docs/s without, {cost}.",
        fmt_qps(b),
        fmt_qps(a)
    )
}

/// `--verify`'s lines: acknowledged against present, loud when they differ, and
/// explained when the difference is documents in flight at a timed step's end.
pub fn verify_summary(v: &VerifyResult) -> String {
    let mut out = format!(
        "Verify: {} documents acknowledged, {} present ({} before the first step, {} after the last, from {}).\n",
        v.acknowledged, v.present, v.present_before, v.present_after, v.url
    );
    if v.matches {
        return out;
    }
    let diff = v.present - v.acknowledged as i64;
    if v.explained() {
        let _ = writeln!(
            out,
            "Verify: {diff} more documents are on the server than were acknowledged, explained: {} documents were in requests still in flight when a timed step ended, and the server wrote {diff} of them without hakaru seeing the answer. Nothing acknowledged is missing; --count instead of --duration gives an exact match.",
            v.in_flight
        );
        return out;
    }
    let what = if diff < 0 {
        format!("{} acknowledged documents are NOT on the server", -diff)
    } else {
        format!(
            "{diff} more documents are on the server than were acknowledged (another writer, or writes counted as failed that were kept)"
        )
    };
    let _ = writeln!(out, "VERIFY FAILED: {what}.");
    if diff > 0 && v.in_flight > 0 {
        let _ = writeln!(
            out,
            "  {} of them may be documents in requests cut off at a step's end.",
            v.in_flight
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run};
    use crate::result::{BulkSettingsResult, BulkStepResult};

    fn bulk_run(statuses: &[(u16, u64)], batch_ok: bool) -> RunResult {
        let mut s = bare_step(10);
        s.elapsed_s = 2.0;
        s.responses = statuses.iter().map(|(_, n)| n).sum();
        s.qps = s.responses as f64 / 2.0;
        s.bytes_sent = 4_000_000;
        s.statuses = statuses.iter().copied().collect();
        s.bulk = Some(BulkStepResult {
            batch_size: 1000,
            writers: 10,
            docs_acknowledged: 7000,
            docs_per_s: 3500.0,
            item_errors: [("conflict".to_string(), 3)].into_iter().collect(),
        });
        let mut r = run(vec![s]);
        r.settings.bulk = Some(BulkSettingsResult {
            target: "couchdb".into(),
            batch_ok,
            doc: r#"{"foo":"bar"}"#.into(),
            ids: "sequential".into(),
            ..BulkSettingsResult::default()
        });
        r
    }

    #[test]
    fn the_table_reads_like_the_chapter() {
        let text = bulk_summary(&bulk_run(&[(201, 7)], false));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].trim_start().starts_with("batch writers"), "{text}");
        let row: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(&row[..5], &["1000", "10", "3500", "3.5", "2.00"], "{text}");
        assert!(
            lines[1].contains("conflict 3") && lines[1].ends_with("201×7"),
            "{text}"
        );
        assert!(!text.contains("Warning"));
    }

    #[test]
    fn an_ignored_batch_mode_is_said() {
        let text = bulk_summary(&bulk_run(&[(201, 7)], true));
        assert!(
            text.contains("Warning: batch=ok asked, the server answered 201"),
            "{text}"
        );
        assert!(mode_warnings(&bulk_run(&[(202, 7)], true)).is_empty());
    }

    #[test]
    fn a_verify_mismatch_is_loud() {
        let mut v = VerifyResult {
            url: "http://h/db".into(),
            acknowledged: 100,
            present: 100,
            present_before: 5,
            present_after: 105,
            matches: true,
            in_flight: 0,
        };
        let mut r = bulk_run(&[(201, 7)], false);
        assert!(!verify_summary(&v).contains("FAILED"));
        v.present = 90;
        v.matches = false;
        assert!(verify_summary(&v)
            .contains("VERIFY FAILED: 10 acknowledged documents are NOT on the server"));
        // More present than acknowledged, explained by requests cut off at the end.
        v.present = 3100;
        v.in_flight = 3000;
        r.steps[0].unfinished = 3;
        let text = verify_summary(&v);
        assert!(
            text.contains("Verify: 3000 more documents are on the server than were acknowledged, explained: 3000 documents were in requests still in flight"),
            "{text}"
        );
        assert!(!text.contains("FAILED"), "{text}");
        assert!(!v.failed());
        v.present = 3101;
        assert!(verify_summary(&v).contains("VERIFY FAILED: 3001 more"));
        assert!(bulk_summary(&r).contains(
            "Cut off when the step ended, still in flight — batch 1000 × 10 writers: 3 requests (3000 documents)."
        ));
    }

    #[test]
    fn a_413_and_a_truncated_batch_are_explained_with_their_size() {
        let mut r = bulk_run(&[(201, 5), (413, 2)], false);
        r.steps[0].total_requests = 7;
        r.steps[0].bytes_sent = 7 * 25_000;
        let b = r.steps[0].bulk.as_mut().unwrap();
        b.item_errors.insert("not_kept".into(), 40);
        let text = bulk_summary(&r);
        assert!(
            text.contains("Too large: at batch size 1000 with 10 writers (about 25.0 KB per request), 2 requests were answered 413 Content Too Large and their 2000 documents not written."),
            "{text}"
        );
        assert!(
            text.contains("Truncated: at batch size 1000 with 10 writers (about 25.0 KB per request), the answers kept 40 fewer documents than the requests carried (7000 kept); "),
            "{text}"
        );
    }

    #[test]
    fn the_demo_table_labels_rows_and_says_what_full_commit_cost() {
        let fast = bulk_run(&[(201, 7)], false);
        let mut slow = bulk_run(&[(201, 7)], false);
        slow.steps[0].bulk.as_mut().unwrap().docs_per_s = 350.0;
        let t = labelled_table(&[("single", &fast), ("full commit", &slow)]);
        assert!(t.lines().next().unwrap().starts_with("mode "), "{t}");
        assert!(t.contains("\nfull commit  "), "{t}");
        let line = full_commit_cost(&fast.steps[0], &slow.steps[0]);
        assert!(line.contains("10.0× slower"), "{line}");
        slow.steps[0].bulk = None;
        assert!(full_commit_cost(&fast.steps[0], &slow.steps[0]).contains("no comparison"));
    }
}
