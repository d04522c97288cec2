//! What a cache user reads after a key-value run (issue 35): the table per command
//! (hits, misses and hit % of reads, checked against the server's own
//! `keyspace_hits`/`get_hits`), the same table from `hakaru report` of the saved
//! result, `-v` without raw reply numbers, and the slowest requests with the key each
//! one sent — against Debian's redis-server and memcached, YCSB's workloads too.

use std::collections::BTreeMap;

use crate::kv::{mc_stats, memcached, redis, redis_info};
use crate::util::{ok, read_json, run, TempDir};

/// The row of `command` in the "Per command" table of `text`, split on blanks:
/// `[name, ops/s, hits, misses, hit %, …]`.
fn row(text: &str, command: &str) -> Vec<String> {
    let table = text
        .split("Per command")
        .nth(1)
        .unwrap_or_else(|| panic!("no table per command in\n{text}"));
    table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(command))
        .unwrap_or_else(|| panic!("no row {command} in\n{text}"))
        .split_whitespace()
        .map(String::from)
        .collect()
}

fn number(cell: &str) -> u64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("{cell:?} is no count"))
}

/// The table's lines, for comparing two printings of it.
fn table_lines(text: &str) -> Vec<String> {
    let from = text.find("Per command").expect("a table");
    text[from..]
        .lines()
        .take_while(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// `-v`'s lists: every line of the fastest and slowest requests.
fn listed(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("<client ")).collect()
}

#[test]
fn redis_summary_shows_get_hit_ratio_per_command_as_the_server_counts_it() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-sum-redis");
    let cmds = dir.write(
        "cmds.txt",
        "weight=1 SET key:{key} {value}\nweight=4 GET key:{key}\nweight=1 INCR n:{key}\n",
    );
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("r.csv");
    let text = ok(&run(&[
        "run",
        "-v",
        "-c",
        "4",
        "-n",
        "3000",
        "--keys",
        "300",
        "--commands",
        cmds.to_str().unwrap(),
        &url,
        "-o",
        out.to_str().unwrap(),
    ]));
    let stats = redis_info(r.port, "stats", None);
    let count = |k: &str| stats[k].trim().parse::<u64>().unwrap();
    let get = row(&text, "GET");
    assert_eq!(number(&get[2]), count("keyspace_hits"), "{text}");
    assert_eq!(number(&get[3]), count("keyspace_misses"), "{text}");
    assert!(count("keyspace_misses") > 0 && count("keyspace_hits") > 0);
    let ratio = count("keyspace_hits") as f64 * 100.0
        / (count("keyspace_hits") + count("keyspace_misses")) as f64;
    let said: f64 = get[4].trim_end_matches('%').parse().unwrap();
    assert!((said - ratio).abs() < 0.1, "{said} vs {ratio}: {text}");
    // Writes have no hit ratio; the totals' hits are the reads'.
    for write in ["SET", "INCR"] {
        assert_eq!(&row(&text, write)[2..5], ["—", "—", "—"], "{text}");
    }
    assert_eq!(number(&row(&text, "total")[2]), count("keyspace_hits"));
    for line in table_lines(&text) {
        assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
    }
    // -v: replies by name, and each listed command with the key it sent.
    let status = text.split("Status:").nth(1).unwrap();
    let status: String = status.lines().take(3).collect::<Vec<_>>().join("\n");
    assert!(
        !status.contains("250") && status.contains("hit/done"),
        "{status}"
    );
    let lines = listed(&text);
    assert!(!lines.is_empty(), "{text}");
    for l in &lines {
        assert!(!l.contains("{key}") && !l.contains(" 250 "), "{l}");
        // `  20.3 µs: GET hit <client 1>#377 GET key:439`: the key after the command.
        let sent = l.rsplit('#').next().unwrap();
        let key = sent
            .split_whitespace()
            .nth(2)
            .unwrap_or_else(|| panic!("{l}"));
        assert!(
            key.strip_prefix("key:")
                .or_else(|| key.strip_prefix("n:"))
                .is_some_and(|k| k.parse::<u64>().is_ok()),
            "{l}"
        );
    }
    // The saved result prints the same table.
    let again = ok(&run(&[
        "report",
        dir.path("r.json").to_str().unwrap(),
        "-o",
        dir.path("r.html").to_str().unwrap(),
    ]));
    assert_eq!(table_lines(&again), table_lines(&text), "{again}");
    let page = std::fs::read_to_string(dir.path("r.html")).unwrap();
    assert!(
        page.contains("<h2>Per command</h2>"),
        "the page has the table"
    );
    let j = read_json(&dir.path("r.json"));
    let kinds: BTreeMap<String, bool> = j["settings"]["store_commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["reads"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        BTreeMap::from([
            ("GET".into(), true),
            ("INCR".into(), false),
            ("SET".into(), false)
        ])
    );
}

#[test]
fn memcached_pipelined_summary_matches_get_hits_and_lists_the_keys_sent() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("kv-sum-mc");
    let url = format!("memcached://127.0.0.1:{}", m.port);
    let out = dir.path("m.csv");
    let text = ok(&run(&[
        "run",
        "-v",
        "-c",
        "8",
        "--pipeline",
        "4",
        "-n",
        "4000",
        "--ratio",
        "1:3",
        "--keys",
        "200",
        &url,
        "-o",
        out.to_str().unwrap(),
    ]));
    let st = mc_stats(m.port);
    let get = row(&text, "get");
    assert_eq!(number(&get[2]), st["get_hits"], "{text}");
    assert_eq!(number(&get[3]), st["get_misses"], "{text}");
    assert!(st["get_hits"] > 0 && st["get_misses"] > 0, "{st:?}");
    assert_eq!(&row(&text, "set")[2..5], ["—", "—", "—"], "{text}");
    let lines = listed(&text);
    assert!(!lines.is_empty(), "{text}");
    for l in lines {
        assert!(
            !l.contains("{key}") && !l.contains(" 254 ") && !l.contains(" 250 "),
            "{l}"
        );
        assert!(l.contains(" get key:") || l.contains(" set key:"), "{l}");
    }
}

/// YCSB over Redis and memcached (a `suite`): each listed operation names its record.
#[test]
fn ycsb_over_stores_lists_the_record_each_slow_operation_sent() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    for (url, read) in [
        (format!("redis://127.0.0.1:{}", r.port), "HGETALL user"),
        (format!("memcached://127.0.0.1:{}", m.port), "get user"),
    ] {
        let dir = TempDir::new("kv-sum-ycsb");
        let file = dir.write(
            "y.toml",
            &format!(
                "timeout = \"10s\"\n\
                 [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 2\n\
                 [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"load\", records = 200 }}\n\
                 [[phase]]\nname = \"run\"\nduration = \"1s\"\nclients = 2\n\
                 [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"c\", records = 200 }}\n"
            ),
        );
        let out = dir.path("y.csv");
        ok(&run(&[
            "suite",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]));
        let j = read_json(&dir.path("y.json"));
        let slow = j["steps"][1]["slowest"].as_array().unwrap();
        assert!(!slow.is_empty(), "{url}");
        for s in slow {
            let sent = s["sent"].as_str().unwrap_or_else(|| panic!("{url}: {s}"));
            assert!(sent.starts_with(read), "{url}: {sent}");
        }
    }
}

/// The row of `command` in the table of phase `phase`, split on blanks.
fn phase_row(text: &str, phase: &str, command: &str) -> Vec<String> {
    let from = text
        .find(&format!("Per command in {phase} "))
        .unwrap_or_else(|| panic!("no table per command of {phase} in\n{text}"));
    row(&text[from..], command)
}

/// The server's own hits and misses of reads: redis' `keyspace_hits`/`_misses`,
/// memcached's `get_hits`/`get_misses`.
fn server_hits(url: &str, port: u16) -> (u64, u64) {
    if url.starts_with("redis://") {
        let stats = redis_info(port, "stats", None);
        let count = |k: &str| stats[k].trim().parse::<u64>().unwrap();
        (count("keyspace_hits"), count("keyspace_misses"))
    } else {
        let st = mc_stats(port);
        (st["get_hits"], st["get_misses"])
    }
}

/// A suite's summary of YCSB over Redis or memcached printed no table per command:
/// its phases count operations under `op=` labels, not a commands file's `command=`.
/// Workload B reads 95% of 400 records of which 200 were loaded: the read row's hits
/// and misses are the server's own, less those in flight at the phase's end (an
/// update's write counts in neither).
#[test]
fn a_suites_ycsb_phase_over_a_store_prints_its_table_per_command_with_the_servers_hits() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    for (url, port) in [
        (format!("redis://127.0.0.1:{}", r.port), r.port),
        (format!("memcached://127.0.0.1:{}", m.port), m.port),
    ] {
        let dir = TempDir::new("kv-sum-suite");
        let file = dir.write(
            "y.toml",
            &format!(
                "timeout = \"10s\"\n\
                 [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 2\n\
                 [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"load\", records = 200 }}\n\
                 [[phase]]\nname = \"run\"\nduration = \"1s\"\nclients = 2\n\
                 [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"b\", records = 400 }}\n"
            ),
        );
        let out = dir.path("y.csv");
        let text = ok(&run(&[
            "suite",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]));
        let (hits, misses) = server_hits(&url, port);
        assert!(
            hits > 0 && misses > 0,
            "{url}: {hits} hits, {misses} misses"
        );
        // The phase ends by its clock: each of the 2 clients may have had a read
        // answered by the server but not yet received.
        let read = phase_row(&text, "run", "read");
        let (h, n) = (number(&read[2]), number(&read[3]));
        assert!(
            h <= hits && n <= misses && (hits - h) + (misses - n) <= 2,
            "{url}: the server's {hits} hits, {misses} misses: {text}"
        );
        assert_eq!(&phase_row(&text, "run", "update")[2..5], ["—", "—", "—"]);
        assert_eq!(number(&phase_row(&text, "run", "total")[2]), h);
        // The load's one operation is a write.
        assert_eq!(&phase_row(&text, "load", "insert")[2..5], ["—", "—", "—"]);
        for line in table_lines(&text) {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
        // The saved result prints the same tables.
        let again = ok(&run(&[
            "report",
            dir.path("y.json").to_str().unwrap(),
            "-o",
            dir.path("y.html").to_str().unwrap(),
        ]));
        assert_eq!(phase_row(&again, "run", "read"), read, "{again}");
        let page = std::fs::read_to_string(dir.path("y.html")).unwrap();
        assert_eq!(
            page.matches("<table class=\"labels store\">").count(),
            2,
            "{url}"
        );
        let j = read_json(&dir.path("y.json"));
        let kinds = &j["suite"]["phases"][1]["store_commands"];
        assert_eq!(
            kinds,
            &serde_json::json!([
                {"name": "read", "reads": true},
                {"name": "update", "reads": false}
            ]),
            "{url}"
        );
    }
}
