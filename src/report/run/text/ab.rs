//! `hakaru ab`'s report: ApacheBench's layout line for line (so scripts that read ab's
//! output read ours), its `-e` percentile CSV and `-g` gnuplot TSV, then what hakaru
//! adds below a marked line. Pure functions of a result and the facts the command saw.
//!
//! ab keeps every request's times and sorts them; hakaru keeps HDR histograms. What
//! the histograms give exactly is printed as ab prints it; what they cannot give is
//! printed as `-` and explained in the notes, never guessed.

use std::fmt::Write as _;
use std::io::{self, Write};

use hdrhistogram::Histogram;

use super::connection::per_request;
use super::profile::wrap;
use super::summary::{at_percent, field, field_more};
use crate::report::fmt::fmt_latency;
use crate::result::{decode_histogram, RunResult, StepResult};
use crate::stats::ErrorKind;

/// ab's "served within a certain time" rows, in percent.
const AB_PERCENTS: [u32; 9] = [50, 66, 75, 80, 90, 95, 98, 99, 100];

/// What ab's header shows that a result does not hold: the command saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct AbFacts {
    /// The first response's `Server` header ("" when it had none, as ab prints it);
    /// None when hakaru did not look (see `not_asked`).
    pub server_software: Option<String>,
    /// Why the server was not asked before the load (https, a body to send).
    pub not_asked: Option<String>,
    pub hostname: String,
    pub port: u16,
    /// The path and query of the URL.
    pub path: String,
    /// The first response's body length, in bytes.
    pub document_length: Option<u64>,
    /// `-l`: ab then prints "Variable".
    pub variable_length: bool,
    /// A body was sent (`-p`, `-u`): ab adds the sent lines.
    pub body_sent: bool,
}

/// ab's error breakdown: (connect, receive, length, exceptions). hakaru never counts a
/// length change as a failure, so Length is 0. The match is exhaustive so that a new
/// error kind has to be placed here.
fn ab_failures(step: &StepResult) -> (u64, u64, u64, u64) {
    let (mut connect, mut receive, mut exceptions) = (0, 0, 0);
    for (kind, n) in &step.errors {
        match kind {
            ErrorKind::Connect | ErrorKind::Tls => connect += n,
            ErrorKind::Reset
            | ErrorKind::Io
            | ErrorKind::Malformed
            | ErrorKind::Truncated
            | ErrorKind::Unsolicited
            | ErrorKind::GoAway
            | ErrorKind::StreamReset
            | ErrorKind::Protocol => receive += n,
            ErrorKind::Timeout | ErrorKind::FlowControlStall | ErrorKind::ClientLimit => {
                exceptions += n
            }
            // A key-value store's error reply: a whole answer that refused the command.
            ErrorKind::ReplyErr
            | ErrorKind::ReplyWrongtype
            | ErrorKind::ReplyMoved
            | ErrorKind::ReplyOom
            | ErrorKind::ReplyNoauth
            | ErrorKind::ReplyClientError
            | ErrorKind::ReplyServerError
            | ErrorKind::ReplyUnexpected => exceptions += n,
            // A SQL error answer: likewise a whole answer refusing the statement.
            ErrorKind::SqlSerializationFailure
            | ErrorKind::SqlDeadlock
            | ErrorKind::SqlUniqueViolation
            | ErrorKind::SqlTooManyConnections
            | ErrorKind::SqlAdminShutdown
            | ErrorKind::SqlLockWaitTimeout
            | ErrorKind::SqlCannotConnectNow
            | ErrorKind::SqlError => exceptions += n,
        }
    }
    (connect, receive, 0, exceptions)
}

/// ab rounds microseconds to whole milliseconds this way (`ap_round_ms`).
fn round_ms(us: f64) -> u64 {
    ((us.max(0.0) + 500.0) / 1000.0) as u64
}

/// One row of ab's Connection Times table, in ms; `None` is printed as `-`.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct TimesRow {
    min: Option<u64>,
    mean: Option<u64>,
    sd: Option<f64>,
    median: Option<u64>,
    max: Option<u64>,
}

impl TimesRow {
    fn of(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return TimesRow::default();
        }
        TimesRow {
            min: Some(round_ms(h.min() as f64)),
            mean: Some(round_ms(h.mean())),
            sd: Some(h.stdev() / 1e3),
            median: Some(round_ms(h.value_at_quantile(0.5) as f64)),
            max: Some(round_ms(h.max() as f64)),
        }
    }

    fn line(&self, label: &str) -> String {
        let n = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
        let sd = self.sd.map_or("-".into(), |v| format!("{v:.1}"));
        // ab's "%5d %4d %5.1f %6d %7d".
        format!(
            "{label:<12}{:>5} {:>4} {:>5} {:>6} {:>7}",
            n(self.min),
            n(self.mean),
            sd,
            n(self.median),
            n(self.max)
        )
    }
}

/// Connect times as ab counts them: each request's connect, 0 for a request sent on a
/// reused connection. The connect histogram holds every connect; the requests that
/// did not connect are added as zeros.
fn connect_as_ab(step: &StepResult, responses: u64) -> Option<Histogram<u64>> {
    let mut h = decode_histogram(step.connect_histogram.as_deref()?).ok()?;
    let reused = responses.saturating_sub(h.len());
    if reused > 0 {
        h.record_n(0, reused).ok()?;
    }
    Some(h)
}

/// The step's time from each request's write to its response's head (ab's Waiting),
/// when the run timed it (`hakaru ab` does; results of other commands do not).
fn waiting_as_ab(step: &StepResult) -> Option<Histogram<u64>> {
    timed(step.waiting_histogram.as_deref())
}

/// A histogram the run kept, when it holds anything.
fn timed(encoded: Option<&str>) -> Option<Histogram<u64>> {
    decode_histogram(encoded?).ok().filter(|h| !h.is_empty())
}

/// The whole report of `hakaru ab`: ab's layout, then hakaru's additions.
pub fn ab_summary(run: &RunResult, step: &StepResult, facts: &AbFacts) -> String {
    let mut out = String::new();
    let elapsed = step.elapsed_s;
    let done = step.total_requests;
    let keep_alive = run.settings.keep_alive;

    let software = match (&facts.server_software, &facts.not_asked) {
        (Some(s), _) => s.clone(),
        (None, Some(why)) => format!("(not asked: {why})"),
        (None, None) => "(no response before the load)".into(),
    };
    field(&mut out, "Server Software", software);
    field(&mut out, "Server Hostname", &facts.hostname);
    field(&mut out, "Server Port", facts.port);
    out.push('\n');
    field(&mut out, "Document Path", &facts.path);
    match (facts.variable_length, facts.document_length) {
        (true, _) => field(&mut out, "Document Length", "Variable"),
        (false, Some(n)) => field(&mut out, "Document Length", format!("{n} bytes")),
        (false, None) => field(&mut out, "Document Length", "unknown (see the notes)"),
    }
    out.push('\n');
    field(&mut out, "Concurrency Level", step.n_clients);
    field(
        &mut out,
        "Time taken for tests",
        format!("{elapsed:.3} seconds"),
    );
    field(&mut out, "Complete requests", done);
    let failed = step.error_total();
    field(&mut out, "Failed requests", failed);
    if failed > 0 {
        let (c, r, l, e) = ab_failures(step);
        let _ = writeln!(
            out,
            "   (Connect: {c}, Receive: {r}, Length: {l}, Exceptions: {e})"
        );
    }
    let non_2xx: u64 = step
        .statuses
        .iter()
        .filter(|(c, _)| !(200..300).contains(*c))
        .map(|(_, n)| n)
        .sum();
    if non_2xx > 0 {
        field(&mut out, "Non-2xx responses", non_2xx);
    }
    if keep_alive {
        field(
            &mut out,
            "Keep-Alive requests",
            step.responses.saturating_sub(step.server_closes),
        );
    }
    field(
        &mut out,
        "Total transferred",
        format!("{} bytes", step.bytes_received),
    );
    if facts.body_sent {
        field(&mut out, "Total body sent", step.bytes_sent);
    }
    match facts.document_length {
        Some(len) if !facts.variable_length => field(
            &mut out,
            "HTML transferred",
            format!("{} bytes", len * step.responses),
        ),
        _ => field(&mut out, "HTML transferred", "- (see the notes)"),
    }
    if elapsed > 0.0 && done > 0 {
        let d = done as f64;
        field(
            &mut out,
            "Requests per second",
            format!("{:.2} [#/sec] (mean)", d / elapsed),
        );
        field(
            &mut out,
            "Time per request",
            format!(
                "{:.3} [ms] (mean)",
                step.n_clients as f64 * elapsed * 1e3 / d
            ),
        );
        field(
            &mut out,
            "Time per request",
            format!(
                "{:.3} [ms] (mean, across all concurrent requests)",
                elapsed * 1e3 / d
            ),
        );
        let kb = |bytes: u64| bytes as f64 / 1024.0 / elapsed;
        field(
            &mut out,
            "Transfer rate",
            format!("{:.2} [Kbytes/sec] received", kb(step.bytes_received)),
        );
        if facts.body_sent {
            let _ = writeln!(out, "{:24}{:.2} kb/s sent", "", kb(step.bytes_sent));
            let _ = writeln!(
                out,
                "{:24}{:.2} kb/s total",
                "",
                kb(step.bytes_received + step.bytes_sent)
            );
        }
    }

    let total = step.decode_histogram().ok().filter(|h| !h.is_empty());
    if let Some(total) = &total {
        let connect = connect_as_ab(step, total.len());
        let connect_row = connect.as_ref().map(TimesRow::of).unwrap_or_default();
        let total_row = TimesRow::of(total);
        // Processing is Total − Connect per request: timed by `hakaru ab` (from each
        // request's write to its last byte); in a result without it only its mean
        // follows (a difference of means).
        let processing = match timed(step.processing_histogram.as_deref()) {
            Some(p) => TimesRow::of(&p),
            None => TimesRow {
                mean: connect.as_ref().map(|c| round_ms(total.mean() - c.mean())),
                ..TimesRow::default()
            },
        };
        out.push_str("\nConnection Times (ms)\n");
        out.push_str("              min  mean[+/-sd] median   max\n");
        let _ = writeln!(out, "{}", connect_row.line("Connect:"));
        let _ = writeln!(out, "{}", processing.line("Processing:"));
        let waiting = waiting_as_ab(step);
        let waiting_row = waiting.as_ref().map(TimesRow::of).unwrap_or_default();
        let _ = writeln!(out, "{}", waiting_row.line("Waiting:"));
        let _ = writeln!(out, "{}", total_row.line("Total:"));
        if total.len() > 1 {
            out.push_str("\nPercentage of the requests served within a certain time (ms)\n");
            for pct in AB_PERCENTS {
                let ms = round_ms(at_percent(total, f64::from(pct)) * 1e3);
                if pct == 100 {
                    let _ = writeln!(out, " 100%  {ms:>5} (longest request)");
                } else {
                    let _ = writeln!(out, "  {pct}%  {ms:>5}");
                }
            }
        }
    }

    out.push_str("\n--- hakaru's additions (ab's layout ends above) ---\n");
    extras(&mut out, run, step, facts, total.as_ref());
    out
}

fn extras(
    out: &mut String,
    run: &RunResult,
    step: &StepResult,
    facts: &AbFacts,
    total: Option<&Histogram<u64>>,
) {
    if run.settings.keep_alive {
        field(out, "Keep-alive", "on (-k)");
    } else {
        field(
            out,
            "Keep-alive",
            "off (ab's default: one connection per request;",
        );
        field_more(out, "-k keeps them alive)");
    }
    let mut conns = format!("{}", step.connections_opened);
    // -k asked for keep-alive and the server closed every connection anyway (Groonga's
    // own HTTP server): ab's "Keep-Alive requests: 0" says so only to those who know
    // to look.
    let missing = crate::analysis::step::keep_alive_missing(&run.settings, step);
    if step.total_requests > 0 {
        let _ = write!(
            conns,
            " ({}{}",
            per_request(step.connections_opened as f64 / step.total_requests as f64),
            if missing {
                " — keep-alive did not happen:"
            } else {
                ")"
            }
        );
    }
    field(out, "Connections opened", conns);
    if missing && step.total_requests > 0 {
        field_more(out, "the server closed every connection)");
    }
    if let Some(h) = total {
        let p = |pct: f64| fmt_latency(at_percent(h, pct) / 1e3);
        field(
            out,
            "Response time",
            format!(
                "mean {}, p50 {}, p90 {}, p99 {},",
                fmt_latency(h.mean() / 1e6),
                p(50.0),
                p(90.0),
                p(99.0),
            ),
        );
        field_more(out, &format!("p99.9 {}, max {}", p(99.9), p(100.0)));
    }
    if step.errors.is_empty() {
        field(out, "Errors by kind", "none");
    } else {
        let kinds: Vec<String> = step
            .errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        field(out, "Errors by kind", wrap(&kinds.join(", ")));
    }
    if step.unfinished > 0 {
        field(
            out,
            "Unfinished at end",
            format!(
                "{} (in flight when -t ran out; neither success nor failure)",
                step.unfinished
            ),
        );
    }
    let cores = run.machine.cpus.max(1);
    field(
        out,
        "Client CPU",
        format!(
            "{:.2} s ({:.0}% of {cores} core{})",
            step.client_cpu_s,
            step.client_cpu_share * 100.0,
            if cores == 1 { "" } else { "s" }
        ),
    );
    out.push_str("Notes:\n");
    if facts.server_software.is_some() {
        note(
            out,
            "Server Software and Document Length come from one uncounted request sent \
             before the load.",
        );
    }
    if facts.document_length.is_none() && !facts.variable_length {
        note(
            out,
            "Document Length and HTML transferred are unknown: the server was not asked \
             before the load (see Server Software), and hakaru counts bytes on the wire, \
             not bodies.",
        );
    }
    if facts.document_length.is_some() && !facts.variable_length {
        note(
            out,
            "HTML transferred is Document Length × responses: hakaru counts bytes on the \
             wire, not bodies.",
        );
    }
    note(
        out,
        "Time per request (mean) is ab's arithmetic (concurrency × time taken ÷ \
         requests), not a measurement.",
    );
    note(
        out,
        "Connection Times: Total is each response's time from the histogram; Connect is \
         the connect histogram with 0 ms for requests on a reused connection, as ab \
         counts them; Processing is each request's write to its response's last byte \
         (Total − Connect), Waiting its write to the response's head (time to first \
         byte). ±sd is over all responses.",
    );
    if step.error_total() > 0 {
        note(
            out,
            "Failed requests: Connect = connect + tls, Receive = reset + io + malformed + \
             truncated (a body shorter than promised), Exceptions = timeout + \
             client_limit; a different length is never a failure.",
        );
    }
}

/// One note, indented two spaces and broken between words within 80 columns.
fn note(out: &mut String, text: &str) {
    let mut line = String::from(" ");
    for word in text.split(' ') {
        if line.chars().count() + 1 + word.chars().count() > 80 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}

/// ab's `-e` file: "Percentage served,Time in ms", then 0 to 100 % (0 % the shortest,
/// 100 % the longest request) with three decimals, from the response-time histogram.
pub fn percentile_csv(step: &StepResult) -> Result<String, String> {
    let h = step.decode_histogram()?;
    let mut out = String::from("Percentage served,Time in ms\n");
    if h.is_empty() {
        return Ok(out);
    }
    for i in 0..=100u32 {
        let us = match i {
            0 => h.min(),
            100 => h.max(),
            _ => h.value_at_quantile(f64::from(i) / 100.0),
        };
        let _ = writeln!(out, "{i},{:.3}", us as f64 / 1e3);
    }
    Ok(out)
}

/// ab's `-g` file: its header and one line per response, in ab's order (by total time),
/// streamed from the histograms so nothing was kept per request during the load.
/// `ttime` is exact to the histogram; `starttime`/`seconds` are the step's start
/// (per-request start times are not kept); `ctime` is rank-paired from the connect
/// times as ab counts them (the i-th shortest connect beside the i-th shortest
/// total: the same distribution, not necessarily the same request), `dtime` is
/// `ttime − ctime`, and `wait` (time to first byte) is rank-paired the same way from
/// the waiting histogram (`-` in a result that did not time it).
pub fn write_gnuplot(step: &StepResult, out: &mut dyn Write) -> io::Result<()> {
    let bad = |e: String| io::Error::new(io::ErrorKind::InvalidData, e);
    let total = step.decode_histogram().map_err(bad)?;
    writeln!(out, "starttime\tseconds\tctime\tdtime\tttime\twait")?;
    if total.is_empty() {
        return Ok(());
    }
    let connect = connect_as_ab(step, total.len());
    let (ctime_str, secs) = ctime(&step.started_at);
    let runs = |h: &Histogram<u64>| {
        Runs::new(
            h.iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect::<Vec<_>>()
                .into_iter(),
        )
    };
    let mut connects = connect.as_ref().map(runs);
    let waiting = waiting_as_ab(step);
    let mut waits = waiting.as_ref().map(runs);
    for v in total.iter_recorded() {
        let t = round_ms(v.value_iterated_to() as f64);
        for _ in 0..v.count_at_value() {
            let c = connects
                .as_mut()
                .and_then(|r| r.next())
                .map_or(0, |us| round_ms(us as f64).min(t));
            let wait = waits
                .as_mut()
                .and_then(|r| r.next())
                .map_or("-".to_string(), |us| round_ms(us as f64).min(t).to_string());
            writeln!(out, "{ctime_str}\t{secs}\t{c}\t{}\t{t}\t{wait}", t - c)?;
        }
    }
    Ok(())
}

/// Values of a histogram's (value, count) runs one at a time.
struct Runs<I: Iterator<Item = (u64, u64)>> {
    inner: I,
    value: u64,
    left: u64,
}

impl<I: Iterator<Item = (u64, u64)>> Runs<I> {
    fn new(inner: I) -> Self {
        Runs {
            inner,
            value: 0,
            left: 0,
        }
    }
}

impl<I: Iterator<Item = (u64, u64)>> Iterator for Runs<I> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        while self.left == 0 {
            let (v, n) = self.inner.next()?;
            self.value = v;
            self.left = n;
        }
        self.left -= 1;
        Some(self.value)
    }
}

/// An RFC 3339 UTC time as C's `ctime` writes it ("Sun Nov 22 03:12:48 2026", as ab's
/// `-g` does) and as Unix seconds; ("-", 0) when it cannot be read.
fn ctime(rfc3339: &str) -> (String, i64) {
    let num = |r: std::ops::Range<usize>| rfc3339.get(r).and_then(|s| s.parse::<i64>().ok());
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(s)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return ("-".into(), 0);
    };
    if !(1..=12).contains(&mo) {
        return ("-".into(), 0);
    }
    let days = crate::timestamp::days_from_civil(y, mo, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + s;
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    (
        format!(
            "{} {} {d:02} {h:02}:{mi:02}:{s:02} {y}",
            DAYS[days.rem_euclid(7) as usize],
            MONTHS[(mo - 1) as usize]
        ),
        secs,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::encode_histogram;
    use crate::result::fixture::{recorded_step, run};
    use crate::stats::new_histogram;

    /// A fixed ab run: 200 requests over 10 clients without keep-alive, one timeout.
    fn fixed() -> (RunResult, StepResult, AbFacts) {
        let ok: Vec<(u16, u64)> = (0..199u64)
            .map(|i| (if i == 7 { 404 } else { 200 }, 800 + i * 40))
            .collect();
        let mut step = recorded_step(10, 0.5, &ok, &[(ErrorKind::Timeout, 30_000_000)]);
        step.started_at = "2026-11-22T03:12:48.123Z".into();
        step.connections_opened = 200;
        step.bytes_received = 199 * 98;
        step.bytes_sent = 200 * 80;
        step.client_cpu_s = 0.12;
        step.client_cpu_share = 0.12;
        let mut connect = new_histogram();
        for i in 0..200u64 {
            connect.record(50 + i * 3).unwrap();
        }
        step.connect_histogram = Some(encode_histogram(&connect));
        // Each response's head 0.3 ms before its end.
        let mut waiting = new_histogram();
        for i in 0..199u64 {
            waiting.record(500 + i * 40).unwrap();
        }
        step.waiting_histogram = Some(encode_histogram(&waiting));
        let mut processing = new_histogram();
        for i in 0..199u64 {
            processing.record(700 + i * 40).unwrap();
        }
        step.processing_histogram = Some(encode_histogram(&processing));
        let mut r = run(vec![step.clone()]);
        r.settings.keep_alive = false;
        let facts = AbFacts {
            server_software: Some("nginx/1.22.1".into()),
            not_asked: None,
            hostname: "127.0.0.1".into(),
            port: 8080,
            path: "/d/status".into(),
            document_length: Some(14),
            variable_length: false,
            body_sent: false,
        };
        (r, step, facts)
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    /// Compares with the committed file; `HAKARU_BLESS=1` rewrites it.
    pub(crate) fn snapshot(name: &str, text: &str) {
        let path = fixture(name);
        if std::env::var_os("HAKARU_BLESS").is_some() {
            std::fs::write(&path, text).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (HAKARU_BLESS=1 writes it)", path.display()));
        assert_eq!(text, want, "{name} differs (HAKARU_BLESS=1 to accept)");
    }

    #[test]
    fn ab_layout_snapshot() {
        let (r, step, facts) = fixed();
        snapshot("ab-summary.txt", &ab_summary(&r, &step, &facts));
    }

    /// hakaru's additions under ab's layout ran to 103 columns (the response time,
    /// the notes) and the run summary's "across all concurrent requests" line to 114:
    /// every line of the report fits 80 columns, ab's own "Time per request" lines
    /// worded as ab prints them even at a day-long run's figures.
    #[test]
    fn the_ab_report_fits_80_columns_in_ab_s_words() {
        let (r, mut step, facts) = fixed();
        let text = ab_summary(&r, &step, &facts);
        assert!(text.contains(
            "Time per request:       2.500 [ms] (mean, across all concurrent requests)\n"
        ));
        step.elapsed_s = 86_400.0;
        step.total_requests = 1;
        step.responses = 1;
        for text in [text, ab_summary(&r, &step, &facts)] {
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "over 80 columns: {line:?}\n{text}"
                );
            }
        }
    }

    /// Bug: `-k` against Groonga's own HTTP server opened a connection per request
    /// and nothing beside ab's "Keep-Alive requests: 0" said so.
    #[test]
    fn regression_ab_says_when_keep_alive_did_not_happen() {
        let (mut r, mut step, facts) = fixed();
        r.settings.keep_alive = true;
        let text = ab_summary(&r, &step, &facts);
        assert!(
            text.contains(
                "keep-alive did not happen:\n                        \
                 the server closed every connection)\n"
            ),
            "{text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
        step.connections_opened = 10;
        let text = ab_summary(&r, &step, &facts);
        assert!(
            text.contains("Connections opened:     10 (0.05 per request)\n"),
            "{text}"
        );
        step.connections_opened = 1;
        step.total_requests = 5000;
        let text = ab_summary(&r, &step, &facts);
        assert!(
            text.contains("Connections opened:     1 (1 per 5000 requests)\n"),
            "{text}"
        );
    }

    #[test]
    fn ab_layout_has_abs_lines_in_abs_order() {
        let (r, step, facts) = fixed();
        let text = ab_summary(&r, &step, &facts);
        let order = [
            "Server Software:        nginx/1.22.1",
            "Server Hostname:        127.0.0.1",
            "Server Port:            8080",
            "Document Path:          /d/status",
            "Document Length:        14 bytes",
            "Concurrency Level:      10",
            "Time taken for tests:   0.500 seconds",
            "Complete requests:      200",
            "Failed requests:        1",
            "   (Connect: 0, Receive: 0, Length: 0, Exceptions: 1)",
            "Non-2xx responses:      1",
            "Total transferred:      19502 bytes",
            "HTML transferred:       2786 bytes",
            "Requests per second:    400.00 [#/sec] (mean)",
            "Time per request:       25.000 [ms] (mean)",
            "Time per request:       2.500 [ms] (mean, across all concurrent requests)",
            "Connection Times (ms)",
            "              min  mean[+/-sd] median   max",
            "Connect:        0    0   0.2      0       1",
            "Processing:     1    5   2.3      5       9",
            "Waiting:        1    4   2.3      4       8",
            "Total:          1    5   2.3      5       9",
            "Percentage of the requests served within a certain time (ms)",
            "  50%      5",
            " 100%      9 (longest request)",
            "Keep-alive:             off",
            "Connections opened:     200 (1.00 per request)",
            "Errors by kind:         timeout 1",
        ];
        let mut at = 0;
        for line in order {
            let found = text[at..]
                .find(line)
                .unwrap_or_else(|| panic!("{line:?} missing after byte {at} in\n{text}"));
            at += found + line.len();
        }
        assert!(
            !text.contains("Keep-Alive requests"),
            "ab prints it only with -k"
        );
    }

    #[test]
    fn keep_alive_counts_requests_on_kept_connections() {
        let (mut r, mut step, facts) = fixed();
        r.settings.keep_alive = true;
        step.server_closes = 9;
        let text = ab_summary(&r, &step, &facts);
        assert!(text.contains("Keep-Alive requests:    190\n"), "{text}");
        assert!(text.contains("Keep-alive:             on (-k)\n"));
    }

    #[test]
    fn unknowns_are_said_not_guessed() {
        let (r, step, mut facts) = fixed();
        facts.server_software = None;
        facts.not_asked = Some("a POST body is not sent uncounted".into());
        facts.document_length = None;
        facts.body_sent = true;
        let text = ab_summary(&r, &step, &facts);
        assert!(text.contains("Server Software:        (not asked: a POST body"));
        assert!(text.contains("Document Length:        unknown"));
        assert!(text.contains("HTML transferred:       - (see the notes)"));
        assert!(text.contains("  Document Length and HTML transferred are unknown"));
        assert!(text.contains("Total body sent:        16000\n"), "{text}");
        assert!(text.contains(" kb/s sent\n") && text.contains(" kb/s total\n"));
        facts.variable_length = true;
        let text = ab_summary(&r, &step, &facts);
        assert!(text.contains("Document Length:        Variable\n"));
    }

    #[test]
    fn percentile_csv_is_abs_file() {
        let (_, step, _) = fixed();
        let csv = percentile_csv(&step).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 102);
        assert_eq!(lines[0], "Percentage served,Time in ms");
        assert_eq!(lines[1], "0,0.800");
        // The histogram keeps 3 significant digits: 8720 µs reads back as 8727.
        assert_eq!(lines[101], "100,8.727");
        snapshot("ab-percentiles.csv", &csv);
    }

    #[test]
    fn gnuplot_has_one_line_per_response_sorted_by_total() {
        let (_, step, _) = fixed();
        let mut buf = Vec::new();
        write_gnuplot(&step, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "starttime\tseconds\tctime\tdtime\tttime\twait");
        assert_eq!(lines.len(), 1 + 199);
        assert_eq!(lines[1], "Sun Nov 22 03:12:48 2026\t1795317168\t0\t1\t1\t1");
        // A result that did not time the wait says `-`, as before.
        let mut untimed = step.clone();
        untimed.waiting_histogram = None;
        let mut buf = Vec::new();
        write_gnuplot(&untimed, &mut buf).unwrap();
        assert!(String::from_utf8(buf)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("\t-"));
        let ttimes: Vec<u64> = lines[1..]
            .iter()
            .map(|l| l.split('\t').nth(4).unwrap().parse().unwrap())
            .collect();
        assert!(ttimes.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn ctime_matches_c() {
        assert_eq!(
            ctime("2026-11-22T03:12:48.000Z"),
            ("Sun Nov 22 03:12:48 2026".into(), 1_795_317_168)
        );
        assert_eq!(
            ctime("1970-01-01T00:00:00Z"),
            ("Thu Jan 01 00:00:00 1970".into(), 0)
        );
        assert_eq!(ctime("garbage"), ("-".into(), 0));
    }
}
