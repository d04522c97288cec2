//! `hakaru ab` against the embedded target and nginx: ab's defaults (one connection
//! per request unless -k), ab's layout, and its -e/-g files.

use crate::util::*;

/// The number after `label` on its line of the report.
fn number(out: &str, label: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} in:\n{out}"));
    line[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no number in {line:?}"))
}

fn check_ab_pair(url: &str) -> (String, String) {
    let off = ok(&run(&["ab", "-c", "10", "-n", "200", url]));
    assert_eq!(number(&off, "Complete requests:"), 200, "{off}");
    assert_eq!(number(&off, "Failed requests:"), 0, "{off}");
    assert_eq!(number(&off, "Connections opened:"), 200, "{off}");
    assert!(!off.contains("Keep-Alive requests:"), "{off}");
    let on = ok(&run(&["ab", "-c", "10", "-n", "200", "-k", url]));
    assert_eq!(number(&on, "Complete requests:"), 200, "{on}");
    assert!(number(&on, "Connections opened:") <= 10, "{on}");
    assert_eq!(number(&on, "Keep-Alive requests:"), 200, "{on}");
    for out in [&off, &on] {
        for line in [
            "Server Software:",
            "Server Hostname:        127.0.0.1",
            "Document Path:",
            "Concurrency Level:      10",
            "Time taken for tests:",
            "Requests per second:",
            "Connection Times (ms)",
            "Total:  ",
            "Percentage of the requests served within a certain time (ms)",
            " 100%  ",
        ] {
            assert!(out.contains(line), "missing {line:?} in:\n{out}");
        }
    }
    (off, on)
}

#[test]
fn ab_defaults_against_the_embedded_target() {
    let t = target();
    let url = format!("http://{}/bytes/100", t.addr);
    let (off, _) = check_ab_pair(&url);
    assert_eq!(number(&off, "Document Length:"), 100, "{off}");
    assert_eq!(number(&off, "HTML transferred:"), 20_000, "{off}");
    // 400 counted requests and the one uncounted look before each run.
    assert_eq!(t.stats.requests(), 402);
}

#[test]
fn ab_against_nginx_names_the_server() {
    if !have("nginx") {
        return;
    }
    let s = nginx(&[("index.html", b"hello from nginx\n")], false);
    let url = format!("http://127.0.0.1:{}/index.html", s.port);
    let (off, on) = check_ab_pair(&url);
    for out in [&off, &on] {
        assert!(out.contains("Server Software:        nginx"), "{out}");
        assert_eq!(number(out, "Document Length:"), 17, "{out}");
    }
}

#[test]
fn ab_writes_its_percentile_csv_and_gnuplot_files() {
    let t = target();
    let dir = TempDir::new("ab-files");
    let (csv, tsv) = (dir.path("p.csv"), dir.path("p.tsv"));
    let out = run(&[
        "ab",
        "-q",
        "-c",
        "2",
        "-n",
        "300",
        "-e",
        csv.to_str().unwrap(),
        "-g",
        tsv.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]);
    ok(&out);
    assert!(!stderr(&out).contains("Completed"), "-q: {}", stderr(&out));
    let csv = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 102);
    assert_eq!(lines[0], "Percentage served,Time in ms");
    assert!(lines[101].starts_with("100,"));
    let tsv = std::fs::read_to_string(tsv).unwrap();
    assert_eq!(tsv.lines().count(), 301);
    assert!(tsv.starts_with("starttime\tseconds\tctime\tdtime\tttime\twait\n"));
    // Every response's wait is a number no larger than its total (issue 19: `-` before).
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (total, wait): (u64, u64) = (cols[4].parse().unwrap(), cols[5].parse().unwrap());
        assert!(wait <= total, "{line}");
    }
}

/// Regression (issue 19): ab's Waiting row was all dashes and Processing showed only
/// a mean; they are each request's write to its response's head and to its last
/// byte, so against `/delay/20` both are at least 20 ms and neither passes Total.
#[test]
fn ab_waiting_is_time_to_the_response_head() {
    let t = target();
    let out = ok(&run(&[
        "ab",
        "-k",
        "-c",
        "2",
        "-n",
        "20",
        &format!("http://{}/delay/20", t.addr),
    ]));
    let row = |label: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} in:\n{out}"))[label.len()..]
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    let waiting = row("Waiting:");
    let min: u64 = waiting[0].parse().unwrap_or_else(|_| panic!("{out}"));
    assert!(min >= 20, "{out}");
    let total: u64 = row("Total:")[4].parse().unwrap();
    let max_wait: u64 = waiting[4].parse().unwrap();
    assert!(max_wait <= total, "{out}");
    // Processing (Total − Connect) has its spread too, not only a mean.
    let processing = row("Processing:");
    let min: u64 = processing[0].parse().unwrap_or_else(|_| panic!("{out}"));
    assert!(min >= 20, "{out}");
}

#[test]
fn ab_posts_a_file_with_abs_content_type() {
    let t = target();
    let dir = TempDir::new("ab-post");
    let body = dir.write("body.txt", "hello");
    let out = run(&[
        "ab",
        "-n",
        "200",
        "-p",
        body.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]);
    let text = ok(&out);
    assert!(
        stderr(&out).contains("Completed 100 requests"),
        "{}",
        stderr(&out)
    );
    assert!(text.contains("Total body sent:"), "{text}");
    assert!(text.contains("kb/s sent"), "{text}");
    assert!(
        text.contains("Server Software:        (not asked"),
        "{text}"
    );
    assert_eq!(t.stats.requests(), 200);
}

#[test]
fn ab_refuses_more_clients_than_requests() {
    let out = run(&["ab", "-c", "10", "http://127.0.0.1:1/"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("-c 10 is more than -n 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ab_head_and_custom_methods() {
    let t = target();
    let url = format!("http://{}/bytes/100", t.addr);
    let out = ok(&run(&["ab", "-i", "-n", "20", &url]));
    assert_eq!(number(&out, "Complete requests:"), 20, "{out}");
    assert_eq!(number(&out, "Failed requests:"), 0, "{out}");
    assert_eq!(number(&out, "Document Length:"), 0, "{out}");
    let out = ok(&run(&["ab", "-m", "DELETE", "-n", "5", &url]));
    assert_eq!(number(&out, "Complete requests:"), 5, "{out}");
    assert!(
        out.contains("(not asked: hakaru sends no uncounted DELETE"),
        "{out}"
    );
}

/// Regression (issue 19): `hakaru ab` sent HTTP/1.1; ab sends HTTP/1.0 (with
/// `Connection: Keep-Alive` under `-k`), and servers answer the two differently. A
/// listener in the test reads what arrives.
#[test]
fn ab_speaks_http10_as_ab_does() {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = std::thread::spawn(move || {
        let mut heads = Vec::new();
        // The uncounted look before the load, then the load's one request.
        for _ in 0..2 {
            let (conn, _) = listener.accept().unwrap();
            conn.set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            let mut r = BufReader::new(conn);
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let mut conn = r.into_inner();
            let _ = conn.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
            heads.push(head);
        }
        heads
    });
    let out = ok(&run(&["ab", "-k", "-n", "1", &format!("http://{addr}/x")]));
    let heads = seen.join().unwrap();
    let load = heads.last().unwrap();
    assert!(load.starts_with("GET /x HTTP/1.0\r\n"), "{load}\n{out}");
    assert!(load.contains("Connection: Keep-Alive\r\n"), "{load}");
}

/// `ab --http2` (issue 22): the requests go as HTTP/2 streams on shared connections of
/// the embedded target's h2c server, counted exactly by the server, and the result
/// says every connection was HTTP/2.
#[test]
fn ab_over_http2_shares_h2c_connections() {
    use hakaru::server::basic::start_basic;
    use hakaru::server::listen::ServerOptions;
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            http2: true,
            ..Default::default()
        },
    )
    .expect("the HTTP/2 target starts");
    let dir = TempDir::new("ab-h2");
    let json = dir.path("r.json");
    let out = ok(&run(&[
        "ab",
        "-k",
        "--http2",
        "--streams",
        "5",
        "-c",
        "10",
        "-n",
        "1000",
        "-o",
        json.to_str().unwrap(),
        &format!("http://{}/", server.addr),
    ]));
    assert_eq!(number(&out, "Complete requests:"), 1000, "{out}");
    assert_eq!(number(&out, "Failed requests:"), 0, "{out}");
    assert!(
        out.contains("(not asked: the look before the load speaks HTTP/1.1 only)"),
        "{out}"
    );
    let st = read_json(&json)["steps"][0].clone();
    assert_eq!(st["statuses"]["200"], 1000, "{st}");
    // 10 clients, 5 streams a connection: 2 connections, both HTTP/2.
    assert_eq!(st["connections_opened"], 2, "{st}");
    assert_eq!(st["connections_http2"], 2, "{st}");
    assert_eq!(server.stats.requests(), 1000);
    assert_eq!(server.stats.connections(), 2);
    // Waiting is timed over HTTP/2 too: its row was all dashes (no time to the
    // response's head was taken on a stream).
    assert!(st["waiting_histogram"].is_string(), "{st}");
    let waiting = out
        .lines()
        .find(|l| l.starts_with("Waiting:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        waiting["Waiting:".len()..]
            .split_whitespace()
            .all(|f| f.parse::<f64>().is_ok()),
        "{out}"
    );
}

/// `ab --http2` is refused before any load where `run --http2` is: without -k (ab's
/// one connection per request would not happen), and on a key-value target.
#[test]
fn ab_http2_is_refused_without_keep_alive_and_on_a_store() {
    for (args, says) in [
        (
            &["ab", "--http2", "-n", "5", "http://127.0.0.1:1/"][..],
            "--http2 keeps connections open, as -k does: give -k with it",
        ),
        (
            &["ab", "-k", "--http2", "-n", "5", "redis://127.0.0.1:1/"][..],
            "--http2: a key-value store speaks its own protocol, not HTTP/2",
        ),
        (
            &["ab", "-k", "--streams", "5", "http://127.0.0.1:1/"][..],
            "--http2",
        ),
    ] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("Completed"), "{}", stderr(&out));
    }
}
