//! `hakaru report` and `hakaru compare` on log-pipeline results (`"kind":
//! "hakaru-stream"`, written by `watch`, `stream send` and `stream run`): the seed's
//! table (records/s and MiB/s per record size, with loss and duplicates when
//! verified), the charts against record size, and the per-interval timelines beside
//! the machine (free memory, page cache, dirty and writeback pages, disk and network
//! bytes/s, the receiver's CPU) — as terminal text, Markdown, HTML, SVG and PNG.
//!
//! A stream result is read from its JSON (beside a CSV given instead), which keeps the
//! timelines. Comparisons are in [`crate::report::stream::compare`].

use std::fmt::Write as _;
use std::path::Path;

use crate::report::chart::{esc, LineChart};
use crate::report::fmt::{fmt_latency, sig3};
use crate::report::output::{sibling, OutputPlan, Rendered, ReportError};
use crate::report::stream::{
    experiment_table, grouped, send_summary, size_name, size_rows, timelines, verify_block,
    watch_table, Segment, SizeRow,
};
use crate::result::stream::StreamResult;

/// Which command wrote the result.
fn what(r: &StreamResult) -> &'static str {
    if !r.sizes.is_empty() {
        "stream run"
    } else if r.send.is_some() {
        "stream send"
    } else {
        "watch"
    }
}

pub(crate) fn label_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Where the records went and were counted, in one line.
pub(crate) fn setup_line(r: &StreamResult) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &r.send {
        parts.push(format!(
            "sent to {} ({}-byte {} records carrying {})",
            s.to, s.record_size, s.format, s.layout
        ));
        if let Some(c) = s.count {
            parts.push(format!("{} records per sender", grouped(c)));
        }
        if let Some(rate) = &s.rate {
            parts.push(format!("--rate {rate}"));
        }
        if let Some(shard) = s.shard {
            parts.push(format!("shard {shard}"));
        }
        if let Some(late) = s.start_late_s {
            parts.push(format!("started {late:.3} s after --start-at"));
        }
        parts.push(format!(
            "{} sender{}",
            s.report.senders.len(),
            if s.report.senders.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some(to) = &r.to {
        parts.push(format!("sent to {to}"));
    }
    let w = r.watch.as_ref().or_else(|| {
        r.sizes
            .first()
            .and_then(|s| s.repeats.first())
            .map(|x| &x.watch)
    });
    if let Some(w) = w {
        parts.push(format!(
            "watched at {}: every {} s, warm-up {} s, window {} s",
            w.source, w.interval_s, w.warmup_s, w.window_s
        ));
    }
    parts.push(format!("started {}", r.started_at));
    parts.join("; ")
}

pub(crate) fn incomplete(r: &StreamResult) -> Vec<String> {
    if r.complete {
        Vec::new()
    } else {
        vec![format!(
            "The {} was stopped or is still going: this is what it measured so far.",
            what(r)
        )]
    }
}

/// The terminal text: what the command printed at its end.
pub fn text(r: &StreamResult) -> String {
    let mut s = String::new();
    for w in incomplete(r) {
        let _ = writeln!(s, "{w}");
    }
    if let Some(w) = &r.watch {
        s.push_str(&watch_table(w));
        if let Some(v) = &w.verify {
            s.push_str(&verify_block(v));
        }
    }
    if let Some(send) = &r.send {
        s.push_str(&send_summary(&send.report, send.record_size));
    }
    if !r.sizes.is_empty() {
        s.push_str(&experiment_table(&r.sizes));
    }
    s
}

pub(crate) fn dash_or(v: Option<u64>) -> String {
    v.map_or("–".into(), grouped)
}

pub(crate) fn p99(row: &SizeRow) -> String {
    match row.verify.and_then(|v| v.p99_us) {
        Some(us) if us > 0 => fmt_latency(us as f64 / 1e6),
        _ => "–".into(),
    }
}

pub(crate) fn rate_cells(row: &SizeRow) -> (String, String) {
    if row.measured {
        (
            grouped(row.records_per_s.round() as u64),
            format!("{:.1}", row.mib_per_s),
        )
    } else {
        ("–".into(), "–".into())
    }
}

/// The seed's table as HTML rows, one run or several (`label` column then).
pub(crate) fn size_table_html(runs: &[(&str, Vec<SizeRow>)]) -> String {
    let several = runs.len() > 1;
    let mut o = String::from("<div class=\"scroll\"><table><thead><tr><th>record size</th>");
    if several {
        o.push_str("<th class=\"l\">result</th>");
    }
    o.push_str("<th>records/s</th><th>MiB/s</th>");
    if several {
        o.push_str("<th>vs first</th>");
    }
    o.push_str("<th>rounds</th><th>sent</th><th>received</th><th>lost</th><th>duplicated</th><th>out of order</th><th>p99</th></tr></thead><tbody>");
    for (size, rows) in by_size(runs) {
        let first = rows.first().map(|(_, r)| r.records_per_s);
        for (label, r) in rows {
            let (rps, mibs) = rate_cells(r);
            let v = r.verify;
            let _ = write!(o, "<tr><td>{}</td>", esc(&size_name(size)));
            if several {
                let _ = write!(o, "<td class=\"l\">{}</td>", esc(label));
            }
            let _ = write!(
                o,
                "<td>{rps}{}</td><td>{mibs}</td>",
                if r.sender_side { " (sent)" } else { "" }
            );
            if several {
                let _ = write!(o, "<td>{}</td>", ratio(first, r));
            }
            let _ = write!(
                o,
                "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                r.rounds,
                dash_or(r.sent),
                dash_or(r.received),
                dash_or(v.map(|v| v.lost)),
                dash_or(v.map(|v| v.duplicated)),
                dash_or(v.map(|v| v.out_of_order)),
                p99(r)
            );
        }
    }
    o.push_str("</tbody></table></div>");
    o
}

pub(crate) fn ratio(first: Option<f64>, r: &SizeRow) -> String {
    match first {
        Some(f) if f > 0.0 && r.measured => format!("{:.2}×", r.records_per_s / f),
        _ => "–".into(),
    }
}

/// One record size's rows, one per result that has it: (result's label, row).
pub(crate) type SizeGroup<'a> = (Option<u64>, Vec<(&'a str, &'a SizeRow)>);

/// The rows of every run grouped by record size (sizes in order, runs in order).
pub(crate) fn by_size<'a>(runs: &'a [(&'a str, Vec<SizeRow>)]) -> Vec<SizeGroup<'a>> {
    let mut sizes: Vec<Option<u64>> = runs
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| r.record_size))
        .collect();
    sizes.sort();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|size| {
            let rows = runs
                .iter()
                .flat_map(|(l, rows)| {
                    rows.iter()
                        .filter(move |r| r.record_size == size)
                        .map(move |r| (*l, r))
                })
                .collect();
            (size, rows)
        })
        .collect()
}

/// The table of one watch's windows, and its verification, as HTML.
fn watch_detail_html(seg: &Segment) -> String {
    let w = seg.watch;
    let mut o = String::from(
        "<div class=\"scroll\"><table><thead><tr><th>window</th><th>from s</th><th>to s</th><th>records/s</th><th>MiB/s</th><th>records</th></tr></thead><tbody>",
    );
    for r in &w.runs {
        let _ = write!(
            o,
            "<tr><td>{}{}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            r.run,
            if r.cut_short { " (cut short)" } else { "" },
            r.from_s,
            r.to_s,
            grouped(r.records_per_s.round() as u64),
            r.mib_per_s,
            grouped(r.records)
        );
    }
    o.push_str("</tbody></table></div>");
    if w.runs.is_empty() {
        o.push_str("<p>The watch ended before its first window.</p>");
    }
    if let Some(v) = &w.verify {
        for line in verify_block(v).lines().filter(|l| !l.starts_with(' ')) {
            let _ = write!(o, "<p>{}</p>", crate::report::page::rich(line));
        }
    }
    for e in &w.reader_errors {
        let _ = write!(o, "<p>Reader stopped: {}</p>", esc(e));
    }
    o
}

/// Every interval of the segments as a table, folded away.
fn timeline_table_html(segs: &[Segment]) -> String {
    let mut o = String::from(
        "<details><summary>Every interval</summary><div class=\"scroll\"><table><thead><tr><th>t s</th><th class=\"l\">phase</th><th>records/s</th><th>MiB/s</th><th>p50 ms</th><th>p99 ms</th><th>free MiB</th><th>cache MiB</th><th>dirty MiB</th><th>writeback MiB</th><th>disk MiB/s</th><th>net in MiB/s</th><th>net out MiB/s</th><th>CPU %</th></tr></thead><tbody>",
    );
    for s in segs {
        for p in &s.watch.timeline {
            let phase = if segs.len() > 1 {
                format!("round {}, {}", s.round, p.phase)
            } else {
                p.phase.clone()
            };
            let _ = write!(
                o,
                "<tr><td>{:.1}</td><td class=\"l\">{}</td><td>{}</td><td>{:.1}</td>",
                s.offset_s + p.t_s,
                esc(&phase),
                grouped(p.records_per_s.round() as u64),
                p.mib_per_s
            );
            match &p.latency {
                Some(l) => {
                    let _ = write!(
                        o,
                        "<td>{}</td><td>{}</td>",
                        sig3(l.p50_us as f64 / 1000.0),
                        sig3(l.p99_us as f64 / 1000.0)
                    );
                }
                None => o.push_str(&"<td>–</td>".repeat(2)),
            }
            match &p.machine {
                Some(m) => {
                    let _ = write!(
                        o,
                        "<td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
                        m.mem_free_mib,
                        m.page_cache_mib,
                        m.dirty_mib,
                        m.writeback_mib,
                        m.disk_write_mib_per_s,
                        m.net_rx_mib_per_s,
                        m.net_tx_mib_per_s,
                        m.pid_cpu_pct.map_or("–".into(), |c| format!("{c:.0}"))
                    );
                }
                None => o.push_str(&"<td>–</td>".repeat(8)),
            }
            o.push_str("</tr>");
        }
    }
    o.push_str("</tbody></table></div></details>");
    o
}

fn senders_html(r: &StreamResult) -> String {
    let Some(send) = &r.send else {
        return String::new();
    };
    let mut o = String::from("<section><h2>Senders</h2><div class=\"scroll\"><table><thead><tr><th>sender</th><th>records</th><th>MiB</th><th>seconds</th><th>records/s</th><th class=\"l\">stopped early</th></tr></thead><tbody>");
    for s in &send.report.senders {
        let rps = if s.elapsed_s > 0.0 {
            s.records as f64 / s.elapsed_s
        } else {
            0.0
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.2}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            s.sender,
            grouped(s.records),
            s.bytes as f64 / 1048576.0,
            s.elapsed_s,
            grouped(rps.round() as u64),
            esc(s.error.as_deref().unwrap_or("–"))
        );
    }
    o.push_str("</tbody></table></div>");
    for line in send_summary(&send.report, send.record_size).lines() {
        let _ = write!(o, "<p>{}</p>", crate::report::page::rich(line.trim()));
    }
    o.push_str("</section>");
    o
}

/// All charts of one result, with the file suffix each gets as SVG/PNG.
fn charts_of(label: &str, r: &StreamResult) -> Vec<(String, LineChart)> {
    let rows = size_rows(r);
    let mut out = Vec::new();
    if rows.iter().filter(|r| r.record_size.is_some()).count() > 1 {
        let runs = [(label, &rows[..])];
        out.push((
            "-sizes-records".into(),
            super::chart::size_chart(&runs, false),
        ));
        out.push(("-sizes-mib".into(), super::chart::size_chart(&runs, true)));
    }
    let groups = timelines(r);
    let several = groups.len() > 1;
    for (size, segs) in &groups {
        let prefix = match size {
            Some(b) if several => format!("-{b}B"),
            _ => String::new(),
        };
        for (k, c) in super::chart::timeline_charts(label, *size, segs)
            .into_iter()
            .enumerate()
        {
            let name = ["records", "io", "memory", "dirty", "cpu"][k.min(4)];
            out.push((format!("{prefix}-{name}"), c));
        }
    }
    out
}

/// One result's page.
pub fn html_page(label: &str, r: &StreamResult) -> String {
    let rows = size_rows(r);
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1><p class=\"sub\">Log pipeline, measured with <code>hakaru {}</code>: records/s and MiB/s {}</p><p class=\"note\">{}</p>",
        esc(label),
        what(r),
        if r.send.is_some() { "at the sender" } else { "at the receiver" },
        esc(&setup_line(r))
    );
    b.push_str(&crate::report::page::warnings_box(&incomplete(r)));
    let _ = write!(
        b,
        "<section><h2>Per record size</h2>{}<p class=\"note\">Rates are the mean of the measured windows (after the warm-up); MiB are 2²⁰ bytes. Lost, duplicated and p99 come from <code class=\"flag\">--verify</code>.</p></section>",
        size_table_html(&[(label, rows.clone())])
    );
    if rows.iter().filter(|r| r.record_size.is_some()).count() > 1 {
        let runs = [(label, &rows[..])];
        b.push_str(&crate::report::page::chart_section(
            &super::chart::size_chart(&runs, false),
        ));
        b.push_str(&crate::report::page::chart_section(
            &super::chart::size_chart(&runs, true),
        ));
    }
    let groups = timelines(r);
    for (size, segs) in &groups {
        let _ = write!(
            b,
            "<section><h2>Timeline{}</h2>",
            match size {
                Some(_) if groups.len() > 1 => format!(" — {}", esc(&size_name(*size))),
                _ => String::new(),
            }
        );
        for s in segs.iter() {
            if segs.len() > 1 {
                let _ = write!(b, "<h3>Round {}</h3>", s.round);
            }
            b.push_str(&watch_detail_html(s));
        }
        b.push_str("</section>");
        for c in super::chart::timeline_charts(label, *size, segs) {
            b.push_str(&crate::report::page::chart_section(&c));
        }
        let _ = write!(b, "<section>{}</section>", timeline_table_html(segs));
    }
    b.push_str(&senders_html(r));
    if !r.command.is_empty() {
        let _ = write!(
            b,
            "<p>Command: <code>{}</code></p>",
            esc(&r.command.join(" "))
        );
    }
    crate::report::page::page(&format!("{label} — hakaru stream report"), &b)
}

/// One result in Markdown: the seed's table, the windows, the checks.
pub fn markdown(label: &str, r: &StreamResult) -> String {
    let mut o = format!("## {label}\n\n{}\n\n", setup_line(r));
    for w in incomplete(r) {
        let _ = writeln!(o, "> **Warning:** {w}\n");
    }
    o.push_str(&size_table_markdown(&[(label, size_rows(r))]));
    for (size, segs) in timelines(r) {
        if segs.len() == 1 && segs[0].watch.runs.len() > 1 {
            let _ = writeln!(
                o,
                "\n{}:\n\n```\n{}```",
                size_name(size),
                watch_table(segs[0].watch)
            );
        }
        for s in &segs {
            if let Some(v) = &s.watch.verify {
                let _ = writeln!(
                    o,
                    "\n{}{}:\n\n```\n{}```",
                    size_name(size),
                    if segs.len() > 1 {
                        format!(", round {}", s.round)
                    } else {
                        String::new()
                    },
                    verify_block(v)
                );
            }
        }
    }
    if let Some(send) = &r.send {
        let _ = writeln!(
            o,
            "\n{}",
            send_summary(&send.report, send.record_size).trim_end()
        );
    }
    o.push('\n');
    o
}

pub(crate) fn size_table_markdown(runs: &[(&str, Vec<SizeRow>)]) -> String {
    let several = runs.len() > 1;
    let mut o = String::from("| record size |");
    if several {
        o.push_str(" result |");
    }
    o.push_str(" records/s | MiB/s |");
    if several {
        o.push_str(" vs first |");
    }
    o.push_str(" rounds | lost | duplicated | p99 |\n|---:|");
    if several {
        o.push_str("---|");
    }
    o.push_str("---:|---:|");
    if several {
        o.push_str("---:|");
    }
    o.push_str("---:|---:|---:|---:|\n");
    for (size, rows) in by_size(runs) {
        let first = rows.first().map(|(_, r)| r.records_per_s);
        for (label, r) in rows {
            let (rps, mibs) = rate_cells(r);
            let _ = write!(o, "| {} |", size_name(size));
            if several {
                let _ = write!(o, " {label} |");
            }
            let _ = write!(
                o,
                " {rps}{} | {mibs} |",
                if r.sender_side { " (sent)" } else { "" }
            );
            if several {
                let _ = write!(o, " {} |", ratio(first, r));
            }
            let v = r.verify;
            let _ = writeln!(
                o,
                " {} | {} | {} | {} |",
                r.rounds,
                dash_or(v.map(|v| v.lost)),
                dash_or(v.map(|v| v.duplicated)),
                p99(r)
            );
        }
    }
    o
}

/// `hakaru report` on a stream result.
pub fn report(path: &Path, r: &StreamResult, plan: &OutputPlan) -> Result<Rendered, ReportError> {
    let label = label_of(path);
    let mut out = Rendered::default();
    let html_path = plan.html.clone().unwrap_or_else(|| sibling(path, "html"));
    out.put(html_path.clone(), html_page(&label, r));
    let charts = charts_of(&label, r);
    out.charts(charts.iter().map(|(s, c)| (s.clone(), c)), &html_path, plan)?;
    out.markdown(markdown(&label, r), text(r), plan);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::stream::compare::{classify, compare_html, compare_text};
    use crate::result::stream::{LatencyUs, VerifyReport};
    use crate::result::stream::{Means, Point, Repeat, SizeRun, WatchReport, Window};
    use crate::result::stream::{SendReport, SenderReport};

    fn watch(size: u64, rps: f64, lost: u64) -> WatchReport {
        let mib = rps * size as f64 / 1048576.0;
        WatchReport {
            source: "file:/var/log/unify.log".into(),
            interval_s: 10.0,
            warmup_s: 20.0,
            window_s: 100.0,
            repeat: 1,
            started_at: String::new(),
            timeline: (1..=12)
                .map(|i| Point {
                    t_s: 10.0 * i as f64,
                    phase: if i <= 2 {
                        "warmup".into()
                    } else {
                        "run 1".into()
                    },
                    bytes: (rps * 10.0) as u64 * size,
                    records: (rps * 10.0) as u64,
                    records_per_s: rps,
                    mib_per_s: mib,
                    machine: None,
                    latency: None,
                })
                .collect(),
            runs: vec![Window {
                run: 1,
                from_s: 20.0,
                to_s: 120.0,
                records: (rps * 100.0) as u64,
                bytes: (rps * 100.0) as u64 * size,
                records_per_s: rps,
                mib_per_s: mib,
                cut_short: false,
            }],
            mean: Means {
                records_per_s: rps,
                mib_per_s: mib,
            },
            total_records: (rps * 120.0) as u64,
            total_bytes: (rps * 120.0) as u64 * size,
            truncations: 0,
            rotations: 0,
            connections: 0,
            verify: Some(VerifyReport {
                senders: vec![],
                received: (rps * 120.0) as u64,
                lost,
                duplicated: 0,
                out_of_order: 0,
                foreign_lines: 0,
                latency_us: (size > 10).then_some(LatencyUs {
                    count: 1,
                    mean: 1.0,
                    min: 1,
                    p50: 1_000,
                    p90: 2_000,
                    p99: 12_000,
                    p999: 20_000,
                    max: 30_000,
                    early: 0,
                }),
            }),
            reader_errors: vec![],
        }
    }

    fn seed_run() -> StreamResult {
        let mut r = StreamResult::new(vec!["hakaru".into()], "2026-11-22T05:00:00Z".into());
        r.to = Some("tcp://127.0.0.1:514".into());
        r.complete = true;
        for (size, rps) in [(10u64, 937_779.0), (4096, 64_943.0)] {
            let w = watch(size, rps, 0);
            r.sizes.push(SizeRun {
                record_size: size as usize,
                mean: w.mean.clone(),
                repeats: vec![Repeat {
                    send: SendReport {
                        senders: vec![SenderReport {
                            sender: 0,
                            records: w.total_records,
                            bytes: w.total_bytes,
                            elapsed_s: 120.0,
                            error: None,
                        }],
                        elapsed_s: 120.0,
                        failed_senders: 0,
                        failed_batches: 0,
                    },
                    watch: w,
                }],
            });
        }
        r
    }

    #[test]
    fn a_stream_run_reads_as_the_seeds_table() {
        let r = seed_run();
        let rows = size_rows(&r);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].record_size, Some(4096));
        assert!((rows[1].mib_per_s - 253.68).abs() < 0.01);
        assert_eq!(
            size_table_markdown(&[("k2h", rows)]),
            "| record size | records/s | MiB/s | rounds | lost | duplicated | p99 |
|---:|---:|---:|---:|---:|---:|---:|
| 10 B | 937,779 | 8.9 | 1 | 0 | 0 | – |
| 4,096 B | 64,943 | 253.7 | 1 | 0 | 0 | 12.0 ms |
"
        );
        let page = html_page("k2h", &r);
        for want in [
            "Records per second by record size — k2h",
            "Timeline — 4,096 B",
            "Records arrived per second — k2h, 10 B",
            "sent to tcp://127.0.0.1:514",
        ] {
            assert!(page.contains(want), "{want}");
        }
        let suffixes: Vec<String> = charts_of("k2h", &r).into_iter().map(|c| c.0).collect();
        assert_eq!(
            suffixes,
            [
                "-sizes-records",
                "-sizes-mib",
                "-10B-records",
                "-10B-io",
                "-4096B-records",
                "-4096B-io"
            ]
        );
    }

    #[test]
    fn pipelines_side_by_side_per_record_size() {
        let a = seed_run();
        let mut b = StreamResult::new(vec![], String::new());
        b.complete = true;
        b.watch = Some(watch(4096, 32_000.0, 12));
        let rows = vec![("k2h", size_rows(&a)), ("rsyslog", size_rows(&b))];
        assert_eq!(
            compare_text(&rows),
            "record size  result        records/s       MiB/s  vs first        lost  duplicated         p99
       10 B  k2h             937,779         8.9     1.00×           0           0           –
    4,096 B  k2h              64,943       253.7     1.00×           0           0     12.0 ms
    4,096 B  rsyslog          32,000       125.0     0.49×          12           0     12.0 ms
"
        );
        let page = compare_html(&[("k2h", &a), ("rsyslog", &b)]);
        assert!(page.contains("MiB arrived per second — 4,096 B"));
        assert!(!page.contains("MiB arrived per second — 10 B"));
    }

    #[test]
    fn mixing_with_a_request_response_result_is_refused() {
        let dir = std::env::temp_dir().join(format!("hakaru-stream-page-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = dir.join("s.json");
        std::fs::write(&s, serde_json::to_string(&seed_run()).unwrap()).unwrap();
        let other = dir.join("r.csv");
        std::fs::write(&other, "n_clients,total_n_requests\n").unwrap();
        assert!(classify(std::slice::from_ref(&s)).unwrap().is_some());
        assert!(classify(std::slice::from_ref(&other)).unwrap().is_none());
        let e = classify(&[s.clone(), other.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("s.json") && e.contains("r.csv") && e.contains("request-response"),
            "{e}"
        );
        let e = crate::result::read::read_result(&s)
            .unwrap_err()
            .to_string();
        assert!(e.contains("log-pipeline result"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
