//! The tables of a run's HTML report below its summary and charts: rounds (cold
//! against warm), hosts, statuses and errors, probes, and the run's settings.

use std::fmt::Write as _;

use crate::report::chart::{self, esc};
use crate::report::fmt::{
    clients, fmt_bytes, fmt_latency, fmt_qps, fmt_share, sig3, step_heading, step_label,
};
use crate::result::series::Series;

/// Each host's responses, errors and mean per step: whether the load was spread as
/// meant and one node was slower than the others.
pub(crate) fn hosts_section(s: &Series) -> String {
    let mut targets: Vec<&str> = s
        .points
        .iter()
        .flat_map(|p| p.hosts.iter().map(|h| h.target.as_str()))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    match targets.as_slice() {
        [] => return String::new(),
        [one] => {
            return format!(
            "<section><h2>Hosts</h2><p>Every {} went to one host, <code>{}</code>.</p></section>",
            crate::report::fmt::Work::of_series(s).item(),
            esc(one)
        )
        }
        _ => {}
    }
    // In the run's words: a SQL run's tps and transactions, a store's ops/s and replies.
    let work = crate::report::fmt::Work::of_series(s);
    let per_s = work.per_s();
    let mut o = format!(
        "<section><h2>Hosts</h2><div class=\"scroll\"><table><thead><tr><th>step</th><th class=\"l\">host</th>\
         <th>{}</th><th>share</th><th>errors</th><th>mean</th></tr></thead><tbody>",
        work.answers()
    );
    for p in &s.points {
        let total: u64 = p.hosts.iter().map(|h| h.responses + h.errors).sum();
        for (i, h) in p.hosts.iter().enumerate() {
            let step = if i == 0 {
                match p.rate {
                    Some(r) => format!("{} {per_s}", fmt_qps(r)),
                    None => clients(p.n_clients),
                }
            } else {
                String::new()
            };
            let _ = write!(
                o,
                "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&step),
                esc(&h.target),
                h.responses,
                fmt_share(crate::result::series::share(h.responses + h.errors, total)),
                h.errors,
                fmt_latency(h.mean_s)
            );
        }
    }
    let _ = write!(
        o,
        "</tbody></table></div><p class=\"note\">\"share\" is the host's part of the step's {}; a host much slower than the others drags every client that waits on it.</p></section>",
        work.items()
    );
    o
}

pub(crate) fn status_section(s: &Series) -> String {
    let codes = s.status_codes();
    let kinds: Vec<String> = {
        let mut k: Vec<String> = s
            .points
            .iter()
            .flat_map(|p| p.errors.keys().cloned())
            .collect();
        k.sort();
        k.dedup();
        k
    };
    // A store's replies by name (`hit/done`), never its internal numbers.
    let store = crate::report::fmt::Work::of_series(s) == crate::report::fmt::Work::Command;
    // A SQL transaction's too (`ok`): the number it is counted under is the engine's.
    let sql = crate::report::fmt::Work::of_series(s) == crate::report::fmt::Work::Transaction;
    let said = |c: u16| {
        let name = if sql {
            crate::report::fmt::sql_status_name(c)
        } else {
            crate::report::fmt::status_name(c, None).filter(|_| store)
        };
        name.map_or_else(|| c.to_string(), str::to_string)
    };
    // A transaction has no status: it ended ok, or in an error of a kind.
    let mut o = String::from(if sql {
        "<section><h2>Outcomes and errors per step</h2>"
    } else {
        "<section><h2>Status and errors per step</h2>"
    });
    if s.points.iter().all(|p| p.error_share == 0.0)
        && s.points
            .iter()
            .all(|p| codes.iter().all(|c| p.ok_status.contains(*c)))
    {
        let list: Vec<String> = codes.iter().map(|c| said(*c)).collect();
        if store {
            let _ = write!(
                o,
                "<p>Every command of every step got a reply ({}): no timeouts, no error replies.</p>",
                esc(&list.join(", "))
            );
        } else if sql {
            o.push_str(
                "<p>Every transaction of every step ended with every statement answered \
                 (ok): no timeouts, no errors.</p>",
            );
        } else {
            let _ = write!(
                o,
                "<p>Every request of every step got a {} response: no timeouts, no errors.</p>",
                if list.is_empty() {
                    "successful".into()
                } else {
                    list.join("/")
                }
            );
        }
    }
    if let Some(svg) = chart::error_chart(s) {
        o.push_str(&svg);
    }
    if codes.len() <= 1 && kinds.is_empty() {
        // One status everywhere: the sentence above says it all.
        o.push_str("</section>");
        return o;
    }
    let _ = write!(
        o,
        "<div class=\"scroll\"><table><thead><tr><th>{}</th>",
        step_heading(s)
    );
    for c in &codes {
        // HTTP's 0 is drnbench's "no response"; a SQL run's and a store's by name.
        let name = if *c == 0 && !sql && !store {
            "0 (no response)".into()
        } else {
            said(*c)
        };
        let _ = write!(o, "<th>{}</th>", esc(&name));
    }
    for k in &kinds {
        let _ = write!(o, "<th>{}</th>", esc(k));
    }
    o.push_str("</tr></thead><tbody>");
    for p in &s.points {
        let _ = write!(o, "<tr><td>{}</td>", esc(&step_label(p)));
        for c in &codes {
            let _ = write!(
                o,
                "<td>{}</td>",
                p.statuses
                    .get(c)
                    .map(|v| fmt_share(*v))
                    .unwrap_or_else(|| "–".into())
            );
        }
        for k in &kinds {
            let _ = write!(
                o,
                "<td>{}</td>",
                p.errors
                    .get(k)
                    .map(|v| fmt_share(*v))
                    .unwrap_or_else(|| "–".into())
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div><p class=\"note\">");
    o.push_str(if sql {
        "Shares in percent of each step's transactions. \"error\" is a transaction that \
         ended in an error, counted by its kind in the columns after it.</p></section>"
    } else if store {
        "Shares in percent of each step's commands. \"error\" is a command without a \
         reply or with an error reply, counted by its kind in the columns after it.</p></section>"
    } else {
        "Shares in percent of each step's requests. Status 0 means no response: a timeout \
         or a connection error, as drnbench counts it.</p></section>"
    });
    let samples = first_errors_table(s);
    if !samples.is_empty() {
        o.truncate(o.len() - "</section>".len());
        o.push_str(&samples);
        o.push_str("</section>");
    }
    o
}

/// Each error kind's first message, and the step it came from (`step_label`), kinds
/// in name order: what a kind's share cannot say (`sql_error`: which SQLSTATE or
/// MySQL code, and the server's words).
pub(crate) fn first_errors(s: &Series) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for p in &s.points {
        for (kind, message) in &p.error_samples {
            if !out.iter().any(|(k, _, _)| k == kind) {
                out.push((kind.clone(), step_label(p), message.clone()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// [`first_errors`] as a table (nothing when the result keeps no message).
fn first_errors_table(s: &Series) -> String {
    let rows = first_errors(s);
    if rows.is_empty() {
        return String::new();
    }
    let mut o = format!(
        "<h3>First error of each kind</h3><div class=\"scroll\"><table><thead><tr>\
         <th class=\"l\">kind</th><th>{}</th><th class=\"l\">message</th></tr></thead><tbody>",
        step_heading(s)
    );
    for (kind, step, message) in rows {
        let _ = write!(
            o,
            "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&kind),
            esc(&step),
            esc(&message)
        );
    }
    o.push_str("</tbody></table></div>");
    o
}

pub(crate) fn probe_value(name: &str, v: f64) -> String {
    // Rates and shares recorded as 0..1 read better as percentages.
    let lname = name.to_ascii_lowercase();
    if lname.ends_with("bytes") || lname.contains("_bytes") {
        fmt_bytes(v)
    } else if (lname.contains("rate") || lname.contains("share"))
        && (0.0..=1.0).contains(&v)
        && !lname.contains("per_second")
    {
        format!("{:.1}%", v * 100.0)
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        sig3(v)
    }
}

pub(crate) fn probes_section(s: &Series) -> String {
    let names = s.probe_names();
    if names.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "<section><h2>Probes</h2><div class=\"scroll\"><table><thead><tr><th>clients</th>",
    );
    for n in &names {
        let _ = write!(o, "<th>{}</th>", esc(n));
    }
    o.push_str("</tr></thead><tbody>");
    for p in &s.points {
        let _ = write!(o, "<tr><td>{}</td>", esc(&step_label(p)));
        for n in &names {
            let _ = write!(
                o,
                "<td>{}</td>",
                p.probes
                    .get(n)
                    .map(|v| probe_value(n, *v))
                    .unwrap_or_else(|| "–".into())
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div><p class=\"note\">Server-side numbers recorded around each step. A cache hit rate near 100% means the run measured the cache, not the search.</p></section>");
    o
}

pub(crate) fn run_section(s: &Series) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(t) = &s.tool {
        rows.push(("tool".into(), t.clone()));
    }
    if let Some(t) = &s.started_at {
        rows.push(("started".into(), t.clone()));
    }
    if !s.targets.is_empty() {
        rows.push(("targets".into(), s.targets.join(", ")));
    }
    if let Some(st) = &s.settings {
        if let Some(d) = st.duration_s {
            rows.push(("step duration".into(), format!("{d} s")));
        }
        if let Some(n) = st.n_requests {
            let items = crate::report::fmt::Work::of_series(s).items();
            rows.push((format!("{items} per step"), n.to_string()));
        }
        rows.push(("interval".into(), format!("{} s", st.interval_s)));
        if st.wait_s > 0.0 {
            let items = crate::report::fmt::Work::of_series(s).items();
            rows.push((format!("wait between {items}"), format!("{} s", st.wait_s)));
        }
        rows.push(("timeout".into(), format!("{} s", st.timeout_s)));
        // A SQL run's connections as pgbench says them, not HTTP's flag.
        let (name, says) = crate::report::fmt::Work::of_series(s).kept(st.keep_alive);
        rows.push((name.to_lowercase(), says.into()));
        rows.push(("load model".into(), st.model.to_string()));
        // A SQL run's "patterns" are its scripts, drawn by weight, in no order.
        rows.push(
            if crate::report::fmt::Work::of_series(s) == crate::report::fmt::Work::Transaction {
                (
                    "scripts".into(),
                    format!(
                        "{} drawn by weight from {} (seed {})",
                        st.n_patterns, st.patterns_source, st.seed
                    ),
                )
            } else {
                (
                    "patterns".into(),
                    format!(
                        "{} from {} ({} order, seed {})",
                        st.n_patterns, st.patterns_source, st.order, st.seed
                    ),
                )
            },
        );
        rows.push(("engine threads".into(), st.threads.to_string()));
    }
    if let Some(m) = &s.machine {
        rows.push((
            "load machine".into(),
            format!(
                "{} · {} · {} CPU{} {} · {:.1} GiB",
                m.hostname,
                m.os,
                m.cpus,
                if m.cpus == 1 { "" } else { "s" },
                if m.cpu_model.is_empty() {
                    String::new()
                } else {
                    format!("({})", m.cpu_model)
                },
                m.memory_bytes as f64 / (1u64 << 30) as f64
            ),
        ));
    }
    let mut o = String::from("<section><h2>Run</h2>");
    if rows.is_empty() {
        let _ = write!(
            o,
            "<p>This {} records no settings or machine facts; hakaru's JSON result does.</p>",
            esc(s.format.describe())
        );
    } else {
        o.push_str("<dl>");
        for (k, v) in rows {
            let _ = write!(o, "<dt>{}</dt><dd>{}</dd>", esc(&k), esc(&v));
        }
        o.push_str("</dl>");
    }
    if !s.command_line.is_empty() {
        let _ = write!(
            o,
            "<p>Command: <code>{}</code></p>",
            esc(&s.command_line.join(" "))
        );
    }
    o.push_str("</section>");
    o
}

/// The sections a hakaru JSON result adds at the top of its report, above what any
/// result file shows: the thresholds' verdicts.
pub(crate) fn verdict_sections(run: &crate::result::RunResult) -> String {
    let mut b = String::new();
    if let Some(t) = &run.thresholds {
        b.push_str(&crate::report::threshold::threshold_html(run, t));
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::series_of;

    fn with_timeouts(rates: &[Option<f64>]) -> Series {
        let mut s = series_of(&[(50, 100.0, 0.01), (50, 90.0, 0.2)]);
        for (p, r) in s.points.iter_mut().zip(rates) {
            p.rate = *r;
            p.statuses = [(200, 60.0), (0, 40.0)].into_iter().collect();
            p.error_share = 40.0;
        }
        s
    }

    /// The rows of the status table, as "label|cells".
    fn rows(html: &str) -> Vec<String> {
        html.split("<tr>")
            .skip(1)
            .map(|r| r.replace("</td><td>", "|").replace("</th><th>", "|"))
            .map(|r| {
                r.replace("<td>", "")
                    .replace("<th>", "")
                    .split("</")
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn status_rows_are_labelled_by_rate_when_open_model() {
        let html = status_section(&with_timeouts(&[Some(500.0), Some(1250.5)]));
        assert_eq!(
            rows(&html),
            [
                "rate|0 (no response)|200",
                "500/s|40.0%|60.0%",
                "1250/s|40.0%|60.0%"
            ]
        );
        assert!(html.contains(">500/s</text>") && html.contains("offered rate"));
        let html = status_section(&with_timeouts(&[None, None]));
        assert_eq!(
            rows(&html),
            [
                "clients|0 (no response)|200",
                "50|40.0%|60.0%",
                "50|40.0%|60.0%"
            ]
        );
        assert!(html.contains("concurrent clients"));
        let html = status_section(&with_timeouts(&[None, Some(500.0)]));
        assert_eq!(rows(&html)[0], "step|0 (no response)|200");
    }

    /// A SQL run's hosts table called its steps "500.0 req/s" and its counts
    /// "responses", "the step's requests": tps and transactions; a store's ops/s.
    #[test]
    fn a_sql_run_s_hosts_are_in_tps_and_transactions_never_req_s() {
        let mut s = with_timeouts(&[Some(500.0), Some(1000.0)]);
        s.targets = vec![
            "postgres://10.0.0.1:5432".into(),
            "postgres://10.0.0.2:5432".into(),
        ];
        for p in &mut s.points {
            p.hosts = s
                .targets
                .iter()
                .map(|t| crate::result::series::HostPoint {
                    target: t.clone(),
                    responses: 100,
                    errors: 0,
                    mean_s: 0.002,
                })
                .collect();
        }
        let html = hosts_section(&s);
        assert!(html.contains("<td>500.0 tps</td>"), "{html}");
        assert!(
            html.contains("<th>transactions</th><th>share</th>"),
            "{html}"
        );
        assert!(html.contains("the step's transactions"), "{html}");
        assert!(!html.contains("req") && !html.contains("respons"), "{html}");
        s.targets = vec![
            "redis://10.0.0.1:6379".into(),
            "redis://10.0.0.2:6379".into(),
        ];
        assert!(hosts_section(&s).contains("<td>500.0 ops/s</td>"));
        s.targets = vec!["http://10.0.0.1".into(), "http://10.0.0.2".into()];
        let html = hosts_section(&s);
        assert!(html.contains("<td>500.0 req/s</td>") && html.contains("<th>responses</th>"));
    }

    /// A SQL run's page named its transactions' status 250 (the number the engine
    /// counts a store's reply under): it says ok.
    #[test]
    fn a_sql_run_s_status_is_ok_never_250() {
        let mut s = with_timeouts(&[None, None]);
        s.targets = vec!["postgres://127.0.0.1:5432".into()];
        for p in &mut s.points {
            p.statuses = [(crate::kv::STATUS_REPLY, 97.0), (0, 3.0)]
                .into_iter()
                .collect();
        }
        let html = status_section(&s);
        assert_eq!(rows(&html)[0], "clients|error|ok", "{html}");
        for p in &mut s.points {
            p.statuses = [(crate::kv::STATUS_REPLY, 100.0)].into_iter().collect();
            p.error_share = 0.0;
            p.ok_status = crate::stats::OkStatus::default();
        }
        let html = status_section(&s);
        assert!(!html.contains("250"), "{html}");
        // Nor its heading "Status": a transaction has none.
        assert!(
            html.starts_with("<section><h2>Outcomes and errors per step</h2>"),
            "{html}"
        );
    }

    /// A SQL run's status table headed its failed transactions "0 (no response)"
    /// (a deadlock was answered) under a note of "requests" and "as drnbench counts
    /// it": they are "error", by kind after it; a store's likewise.
    #[test]
    fn a_sql_run_s_failures_are_error_never_no_response() {
        let mut s = with_timeouts(&[None, None]);
        s.targets = vec!["mysql://127.0.0.1:3306/sbtest".into()];
        let html = status_section(&s);
        assert!(html.contains("<th>error</th>"), "{html}");
        assert!(
            html.contains("Shares in percent of each step's transactions. \"error\" is a transaction that ended in an error"),
            "{html}"
        );
        assert!(
            !html.contains("no response") && !html.contains("requests"),
            "{html}"
        );
        s.targets = vec!["redis://127.0.0.1:6379".into()];
        let html = status_section(&s);
        assert!(html.contains("<th>error</th>") && html.contains("each step's commands"));
        assert!(
            !html.contains("no response") && !html.contains("requests"),
            "{html}"
        );
    }

    /// The bug: a SQL run's page said `sql_error 33.7%` and nowhere which error:
    /// the SQLSTATE or MySQL code and the server's message the result keeps were
    /// on the console only. Now each kind's first message is under the table.
    #[test]
    fn a_run_s_page_names_each_error_kind_s_first_message() {
        let mut s = with_timeouts(&[None, None]);
        s.targets = vec!["mysql://127.0.0.1:3306/bench".into()];
        s.points[0].errors = [("sql_error".to_string(), 30.0)].into_iter().collect();
        s.points[1].errors = [
            ("sql_deadlock".to_string(), 5.0),
            ("sql_error".to_string(), 1.0),
        ]
        .into_iter()
        .collect();
        s.points[0].error_samples = [(
            "sql_error".to_string(),
            "MySQL error 1146 (42S02): Table 'bench.nosuch' doesn't exist".to_string(),
        )]
        .into_iter()
        .collect();
        s.points[1].error_samples = [
            (
                "sql_deadlock".to_string(),
                "MySQL error 1213 (40001): Deadlock <found>".to_string(),
            ),
            ("sql_error".to_string(), "a later one".to_string()),
        ]
        .into_iter()
        .collect();
        let html = status_section(&s);
        assert!(html.ends_with("</table></div></section>"), "{html}");
        let from = html
            .find("<h3>First error of each kind</h3>")
            .expect("the samples");
        let rows = rows(&html[from..].replace(" class=\"l\"", ""));
        assert_eq!(
            rows,
            [
                "kind|clients|message",
                "sql_deadlock|50|MySQL error 1213 (40001): Deadlock &lt;found&gt;",
                "sql_error|50|MySQL error 1146 (42S02): Table &#39;bench.nosuch&#39; doesn&#39;t exist",
            ],
            "{html}"
        );
        assert!(!html.contains("a later one"), "{html}");
    }

    /// A SQL run's Run section said "patterns: 2 from a.sql@3 b.sql@1 (random
    /// order, …)": they are its scripts, drawn by weight.
    #[test]
    fn a_sql_run_s_settings_name_its_scripts_never_patterns() {
        let mut r = crate::result::fixture::run(vec![crate::result::fixture::bare_step(4)]);
        r.targets = vec!["postgres://127.0.0.1:5432".into()];
        r.settings.patterns_source = "a.sql@3 b.sql@1".into();
        r.settings.n_patterns = 2;
        let html = run_section(&Series::from_run(&r, "t"));
        assert!(html.contains(">scripts<"), "{html}");
        assert!(
            html.contains("2 drawn by weight from a.sql@3 b.sql@1 (seed "),
            "{html}"
        );
        assert!(
            !html.contains("patterns") && !html.contains("order"),
            "{html}"
        );
    }
}
