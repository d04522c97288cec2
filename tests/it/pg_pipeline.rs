//! Issue 33: `\startpipeline`/`\endpipeline` on the wire, as PostgreSQL's
//! extended-query pipeline and as pgbench 15 runs it: a pipeline's statements go
//! out with one Sync and their answers come back in one round trip; an error in
//! it skips the rest, rolls back, counts its SQLSTATE and leaves the connection
//! usable; and what pgbench aborts a client for is refused before any load.

use crate::pg::{Postgres, PASSWORD, PG_BIN, USER};
use crate::pgbench::{pgbench, pgbench_on, sessions_and_commits};
use crate::util::{self, TempDir};

/// Debian's pgbench 15 (the peer) on `port` with the harness's login.
fn peer(port: u16, args: &[&str]) -> std::process::Output {
    let port = port.to_string();
    std::process::Command::new(format!("{PG_BIN}/pgbench"))
        .args(["-h", "127.0.0.1", "-p", &port, "-U", USER])
        .args(args)
        .arg("postgres")
        .env("PGPASSWORD", PASSWORD)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The report's text, the run having succeeded.
fn report(o: &std::process::Output, who: &str) -> String {
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{who}: {text}\n{err}");
    text
}

/// A number after `key` in the report (`latency average = 41.2 ms`).
fn figure(text: &str, key: &str) -> f64 {
    let at = text
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {text}"))
        + key.len();
    let rest = text[at..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse().unwrap()
}

/// `-r`'s rows: (latency ms, the command's text).
fn per_command(text: &str) -> Vec<(f64, String)> {
    let rows = text
        .split("statement latencies in milliseconds")
        .nth(1)
        .unwrap_or_else(|| panic!("no -r rows in {text}"));
    rows.lines()
        .skip(1)
        .map_while(|l| {
            let mut cells = l.split_whitespace();
            let ms = cells.next()?.parse().ok()?;
            cells.next()?.parse::<u64>().ok()?;
            Some((ms, cells.collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// A Toxiproxy proxy `name` in front of PostgreSQL whose answers each wait
/// `latency_ms` (the latency toxic, downstream): its port.
fn slow_proxy(toxiproxy: &util::Server, pg: &Postgres, latency_ms: u32) -> u16 {
    let api = format!("http://127.0.0.1:{}", toxiproxy.port);
    let port = util::free_port();
    let created = util::http(
        &format!("{api}/proxies"),
        "POST",
        Some(&format!(
            r#"{{"name":"pg","listen":"127.0.0.1:{port}","upstream":"127.0.0.1:{}","enabled":true}}"#,
            pg.port
        )),
    );
    assert_eq!(created.as_ref().map(|r| r.0), Some(201), "{created:?}");
    let toxic = util::http(
        &format!("{api}/proxies/pg/toxics"),
        "POST",
        Some(&format!(
            r#"{{"name":"slow","type":"latency","stream":"downstream","attributes":{{"latency":{latency_ms}}}}}"#
        )),
    );
    assert_eq!(toxic.as_ref().map(|r| r.0), Some(200), "{toxic:?}");
    port
}

/// Eight SELECTs, pipelined or not.
fn selects(pipelined: bool) -> String {
    let body = "SELECT 1;\n".repeat(8);
    if pipelined {
        format!("\\startpipeline\n{body}\\endpipeline\n")
    } else {
        body
    }
}

/// Before, pipelined statements went one at a time: N answers were N round trips.
/// Behind a 40 ms latency toxic, a pipeline of 8 SELECTs is one round trip (~40 ms
/// a transaction, as Debian's pgbench makes it), the same 8 unpipelined ~8 × 40 ms.
#[test]
fn a_pipeline_of_eight_statements_is_one_round_trip_not_eight() {
    let _one_at_a_time = util::timed();
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let Some(toxiproxy) = crate::suite::toxiproxy() else {
        return;
    };
    let latency = 40.0;
    let port = slow_proxy(&toxiproxy, &pg, latency as u32);
    let dir = TempDir::new("pg-pipeline-rtt");
    let piped = dir.write("piped.sql", &selects(true));
    let plain = dir.write("plain.sql", &selects(false));
    let run = |file: &std::path::Path| {
        let args = ["-n", "-M", "extended", "-c", "1", "-t", "5", "-r", "-f"];
        let mut args = args.to_vec();
        args.push(file.to_str().unwrap());
        report(&pgbench_on(port, &args), "hakaru")
    };
    let text = run(&piped);
    assert!(text.contains("5/5"), "{text}");
    let p50 = figure(&text, "latency percentiles (ms): p50");
    assert!(
        (latency..2.0 * latency).contains(&p50),
        "one round trip of {latency} ms: {text}"
    );
    // The first transaction's time held the client's login (several round trips
    // behind the toxic: 402 ms against 46), so the average was 116 ms where
    // pgbench's, which logs in before its clock, is ~46. Now both log in first.
    let avg = figure(&text, "latency average =");
    assert!(
        (latency..2.0 * latency).contains(&avg),
        "no login in a transaction's time: {text}"
    );
    // -r as pgbench's: a pipelined statement's time is its sending, the wait is
    // \endpipeline's.
    let rows = per_command(&text);
    assert_eq!(rows.len(), 9, "{text}");
    let (end_ms, end) = rows.last().unwrap();
    assert_eq!(end, "\\endpipeline", "{text}");
    assert!((latency..2.0 * latency).contains(end_ms), "{text}");
    assert!(rows[..8].iter().all(|(ms, _)| *ms < 5.0), "{text}");

    let text = run(&plain);
    let avg = figure(&text, "latency average =");
    assert!(avg >= 0.9 * 8.0 * latency, "eight round trips: {text}");

    // The peer, through the same proxy: one round trip too.
    let f = piped.to_str().unwrap();
    let text = report(
        &peer(
            port,
            &["-n", "-M", "extended", "-c", "1", "-t", "5", "-f", f],
        ),
        "pgbench",
    );
    let avg = figure(&text, "latency average =");
    assert!((latency..2.0 * latency).contains(&avg), "pgbench: {text}");
    drop(toxiproxy);
}

/// A transaction in a pipeline (pgbench's own test script: `BEGIN ISOLATION LEVEL
/// SERIALIZABLE` first, `-M prepared`): every transaction the report counts is one
/// the server committed, and Debian's pgbench running the same script counts and
/// shapes its report alike.
#[test]
fn pipelined_transactions_are_the_servers_commits_as_pgbench_s_are() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql(
        "postgres",
        "CREATE TABLE acc (id int PRIMARY KEY, v int NOT NULL); \
         INSERT INTO acc SELECT g, 0 FROM generate_series(0, 3) g; \
         CREATE TABLE hist (c int, v int)",
    );
    let dir = TempDir::new("pg-pipeline-commits");
    let script = dir.write(
        "txn.sql",
        "\\set d 1\n\\startpipeline\nBEGIN ISOLATION LEVEL SERIALIZABLE;\n\
         UPDATE acc SET v = v + :d WHERE id = :client_id;\n\
         SELECT v FROM acc WHERE id = :client_id;\n\
         INSERT INTO hist VALUES (:client_id, :d);\nEND;\n\\endpipeline\n",
    );
    let f = script.to_str().unwrap();
    let args = [
        "-n", "-M", "prepared", "-c", "4", "-j", "2", "-t", "50", "-r", "-f", f,
    ];
    let (s0, c0) = sessions_and_commits(&pg);
    let ours = report(&pgbench(&pg, &args), "hakaru");
    let (s1, c1) = sessions_and_commits(&pg);
    assert!(ours.contains("200/200"), "{ours}");
    assert!(ours.contains("number of failed transactions: 0"), "{ours}");
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) || ' ' || sum(v) FROM hist"),
        "200 200"
    );
    // The server's commits: the 200, and one for each session's login.
    assert_eq!(c1 - c0 - (s1 - s0), 200, "{ours}");

    let theirs = report(&peer(pg.port, &args), "pgbench");
    assert!(theirs.contains("200/200"), "{theirs}");
    assert_eq!(pg.psql("postgres", "SELECT count(*) FROM hist"), "400");
    // The same report lines, the same -r shape: the SQL statements near nothing
    // (each is its sending), \endpipeline the wait.
    for line in [
        "query mode: prepared",
        "number of clients: 4",
        "number of transactions actually processed: 200/200",
        "number of failed transactions: 0",
    ] {
        assert!(
            ours.contains(line) && theirs.contains(line),
            "{line}\n{ours}\n{theirs}"
        );
    }
    for text in [&ours, &theirs] {
        let rows = per_command(text);
        let end = rows.iter().find(|(_, t)| t == "\\endpipeline").unwrap().0;
        let sql: Vec<_> = rows.iter().filter(|(_, t)| !t.starts_with('\\')).collect();
        assert_eq!(sql.len(), 5, "{text}");
        assert!(sql.iter().all(|(ms, _)| *ms <= end), "{text}");
    }
}

/// An error in the middle of a pipeline, as the server has it: the statements
/// before it rolled back with it, those after it skipped until the Sync; the
/// transaction counted failed under its SQLSTATE's kind; and the connection goes
/// on to the next transaction (one session for the run). In an explicit block the
/// block is rolled back too.
#[test]
fn an_error_mid_pipeline_counts_its_sqlstate_and_the_connection_goes_on() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE TABLE log (k int)");
    let dir = TempDir::new("pg-pipeline-error");
    for (name, begin, end) in [("implicit", "", ""), ("block", "BEGIN;\n", "COMMIT;\n")] {
        pg.psql("postgres", "TRUNCATE log");
        // k = 1 divides by zero (22012) between two inserts; k = 2 commits both.
        let script = dir.write(
            &format!("{name}.sql"),
            &format!(
                "\\set k random(1, 2)\n\\startpipeline\n{begin}INSERT INTO log VALUES (:k);\n\
                 SELECT 1 / (:k - 1);\nINSERT INTO log VALUES (:k + 10);\n{end}\\endpipeline\n\
                 SELECT 1;\n"
            ),
        );
        let f = script.to_str().unwrap();
        let (s0, _) = sessions_and_commits(&pg);
        let out = pgbench(
            &pg,
            &[
                "-n",
                "-M",
                "extended",
                "-c",
                "1",
                "-t",
                "40",
                "--random-seed",
                "7",
                "-f",
                f,
            ],
        );
        let (s1, _) = sessions_and_commits(&pg);
        let text = String::from_utf8_lossy(&out.stdout);
        let failed = figure(&text, "number of failed transactions:") as u64;
        assert!((1..40).contains(&failed), "{name}: {text}");
        assert!(text.contains("\nerror sql_error: "), "{name}: {text}");
        assert!(
            text.contains("22012"),
            "{name}: the sample names it: {text}"
        );
        assert!(
            !text.contains("error reset")
                && !text.contains("error malformed")
                && !text.contains("error timeout"),
            "{name}: {text}"
        );
        // Only k = 2's rows: k = 1's first insert rolled back, its second skipped.
        let rows = pg.psql(
            "postgres",
            "SELECT count(*) || ' ' || count(*) FILTER (WHERE k IN (2, 12)) FROM log",
        );
        let ok = 40 - failed;
        assert_eq!(rows, format!("{} {}", 2 * ok, 2 * ok), "{name}: {text}");
        // One login for the run (and the one that read the scale's absence).
        assert!(s1 - s0 <= 2, "{name}: {} sessions: {text}", s1 - s0);
    }
}

/// What pgbench 15 aborts a client for in a pipeline is refused before any load,
/// with the file and line (the port is dead: nothing connects); and a pipeline on
/// a `mysql://` target, whose protocol has none.
#[test]
fn a_pipeline_pgbench_would_abort_is_refused_before_any_load() {
    let dir = TempDir::new("pg-pipeline-bad");
    let dead = util::free_port().to_string();
    for (text, says) in [
        (
            "\\startpipeline\n\\startpipeline\n\\endpipeline\n",
            "n.sql:2:1: \\startpipeline inside",
        ),
        (
            "\\startpipeline\nSELECT 1 \\gset\n\\endpipeline\n",
            "n.sql:2:10: \\gset is not allowed",
        ),
        (
            "SELECT 1;\n\\startpipeline\nSELECT 2;\n",
            "n.sql:2:1: \\startpipeline without",
        ),
    ] {
        let script = dir.write("n.sql", text);
        let f = script.to_str().unwrap();
        let o = util::hakaru()
            .args([
                "pgbench",
                "-h",
                "127.0.0.1",
                "-p",
                &dead,
                "-M",
                "extended",
                "-f",
                f,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{says:?} in {err}");
    }
    let script = dir.write("p.sql", "\\startpipeline\nSELECT 1;\n\\endpipeline\n");
    let url = format!("mysql://u@127.0.0.1:{dead}/db");
    let o = util::hakaru()
        .args(["run", &url, "-f", script.to_str().unwrap(), "-d", "1s"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("MySQL's protocol has no pipeline"), "{err}");
}

/// `run -v` on a PostgreSQL target said its transactions' status as `250` (a
/// store's number the engine counts them under); it names them `ok`, a pipelined
/// one as any other.
#[test]
fn run_verbose_names_a_pipelined_transaction_ok_not_250() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("pg-pipeline-v");
    let script = dir.write("p.sql", &selects(true));
    let url = pg.url("postgres");
    let o = util::hakaru()
        .args([
            "run",
            &url,
            "-M",
            "extended",
            "-f",
            script.to_str().unwrap(),
        ])
        .args(["-c", "2", "-n", "20", "-v", "--n-slow-requests", "1"])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}\n{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("Status:\n  ok: 100"), "{text}");
    assert!(text.contains(" SQL ok <client "), "{text}");
    // The server's port may hold "250" (25055 failed about one run in six), and so
    // may a figure ("2501.80 [#/sec]"): the status would stand alone.
    let said = text.replace(&format!("127.0.0.1:{}", pg.port), "127.0.0.1:PORT");
    let words = said.split(|c: char| !c.is_ascii_digit() && c != '.');
    assert!(!words.into_iter().any(|w| w == "250"), "{text}");
    // The summary speaks of transactions and counts their bytes: it said "whole HTTP
    // responses" and "0 bytes received, 0 bytes sent" for every SQL run.
    assert!(text.contains("Complete transactions:  20 "), "{text}");
    assert!(
        !text.contains("HTTP") && !text.contains("Non-2xx"),
        "{text}"
    );
    let bytes: Vec<u64> = text
        .lines()
        .find_map(|l| l.strip_prefix("Total transferred:"))
        .unwrap_or_else(|| panic!("{text}"))
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    // 20 transactions of 8 statements: at least a message each way per statement.
    assert!(
        bytes.len() == 2 && bytes.iter().all(|&b| b > 20 * 8 * 5),
        "{text}"
    );
}

/// What pgbench 15 runs inside a pipeline (`\set`, `\sleep`, `\if`), hakaru runs,
/// with the rows pgbench makes; what pgbench 15 aborts its client for there, it
/// does abort (so hakaru's refusals before any load refuse nothing pgbench runs).
#[test]
fn pgbench_15_runs_and_aborts_the_pipelines_hakaru_runs_and_refuses() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE TABLE seen (c int, k int)");
    let dir = TempDir::new("pg-pipeline-peer");
    let script = dir.write(
        "ok.sql",
        "\\startpipeline\n\\set k random(1, 2)\nINSERT INTO seen VALUES (:client_id, :k);\n\
         \\sleep 1 ms\n\\if :k = 1\nINSERT INTO seen VALUES (:client_id, 10);\n\\else\n\
         INSERT INTO seen VALUES (:client_id, 20);\n\\endif\n\\endpipeline\n",
    );
    let f = script.to_str().unwrap();
    let args = ["-n", "-M", "prepared", "-c", "2", "-t", "10", "-f", f];
    let ours = report(&pgbench(&pg, &args), "hakaru");
    assert!(ours.contains("20/20"), "{ours}");
    let theirs = report(&peer(pg.port, &args), "pgbench");
    assert!(theirs.contains("20/20"), "{theirs}");
    // Each transaction: its draw, and the branch its draw chose.
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) FILTER (WHERE k IN (1, 2)) || ' ' || \
             count(*) FILTER (WHERE k IN (10, 20)) FROM seen"
        ),
        "40 40"
    );
    for (name, text) in [
        (
            "nested",
            "\\startpipeline\n\\startpipeline\nSELECT 1;\n\\endpipeline\n",
        ),
        (
            "gset",
            "\\startpipeline\nSELECT 1 AS one \\gset\n\\endpipeline\n",
        ),
        ("open", "\\startpipeline\nSELECT 1;\n"),
        ("stray", "SELECT 1;\n\\endpipeline\n"),
    ] {
        let script = dir.write(&format!("{name}.sql"), text);
        let f = script.to_str().unwrap();
        let args = ["-n", "-M", "extended", "-t", "1", "-f", f];
        let o = peer(pg.port, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "pgbench runs {name}: {err}");
        assert!(
            err.contains("aborted") || err.contains("pipeline"),
            "{name}: {err}"
        );
        let o = pgbench(&pg, &args);
        assert_eq!(o.status.code(), Some(2), "hakaru refuses {name}");
    }
}

/// Bug: a pipeline bigger than the socket buffers hung until its timeout. Its
/// statements were written whole before any answer was read; the server, its
/// answers unread, stopped reading, and both ends waited (`Timeout: 1` after 5 s,
/// where Debian's pgbench, whose libpq reads while it writes, passes). 1,000
/// statements of 8 KB each way, sent in extended mode (each with its text).
#[test]
fn a_pipeline_bigger_than_the_socket_buffers_is_answered_not_timed_out() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("pg-pipeline-big");
    let statement = format!("SELECT repeat('x', 8000), '{}';\n", "y".repeat(8000));
    let script = dir.write(
        "big.sql",
        &format!("\\startpipeline\n{}\\endpipeline\n", statement.repeat(1000)),
    );
    let f = script.to_str().unwrap();
    // A hang is a transaction timed out (here within 10 s, not the drop-in's 60),
    // so the counts say it; the wall clock is not asserted.
    let args = [
        "-n",
        "-M",
        "extended",
        "-c",
        "1",
        "-t",
        "2",
        "--timeout",
        "10s",
        "-f",
        f,
    ];
    let text = report(&pgbench(&pg, &args), "hakaru");
    assert!(text.contains("actually processed: 2/2"), "{text}");
    assert!(text.contains("number of failed transactions: 0"), "{text}");
}
