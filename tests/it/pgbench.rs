//! `hakaru pgbench` against a private PostgreSQL 15 (tests/it/pg.rs): `-i`'s row
//! counts exact, and bad options refused before anything connects.

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::{hakaru, run};

#[test]
fn pgbench_initialize_makes_pgbenchs_exact_row_counts() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let port = pg.port.to_string();
    let out = hakaru()
        .args([
            "pgbench",
            "-i",
            "-s",
            "2",
            "--foreign-keys",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            USER,
            "postgres",
        ])
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}\n{}", pg.log());
    for line in [
        "dropping old tables...",
        "creating tables...",
        "generating data (client-side)...",
        "vacuuming...",
        "creating primary keys...",
        "creating foreign keys...",
    ] {
        assert!(err.contains(line), "{line}: {err}");
    }
    assert!(err.contains("200000 of 200000 tuples (100%) done"), "{err}");
    let counts = pg.psql(
        "postgres",
        "SELECT (SELECT count(*) FROM pgbench_branches) || ' ' || (SELECT count(*) FROM pgbench_tellers) || ' ' || (SELECT count(*) FROM pgbench_accounts) || ' ' || (SELECT count(*) FROM pgbench_history)",
    );
    assert_eq!(counts, "2 20 200000 0");
    // The rows are pgbench's: each account in its branch, balances 0.
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT bid, abalance FROM pgbench_accounts WHERE aid = 100001"
        ),
        "2|0"
    );
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conname LIKE 'pgbench_%'"
        ),
        "5"
    );
}

#[test]
fn pgbench_refuses_a_bad_script_with_its_line_and_column_before_connecting() {
    let dir = crate::util::TempDir::new("pgbench-bad");
    let path = dir.write("bad.sql", "SELECT 1;\n\\set x random(1)\n");
    let p = path.to_str().unwrap().to_string();
    // Port 1: nothing listens; the script's error must come first.
    let out = run(&[
        "pgbench",
        "-f",
        &p,
        "-h",
        "127.0.0.1",
        "-p",
        "1",
        "postgres",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{p}:2:8: random() takes 2 argument(s), given 1")),
        "{err}"
    );
}

/// pgbench's own `hash`, `hash_fnv1a` and `hash_murmur2`, read from its `debug()`
/// lines, against `sql::script::expr`'s: the same numbers for the same seeds.
#[test]
fn hashes_match_pgbench_15s() {
    use hakaru::sql::script::expr::{hash_fnv1a, hash_murmur2};
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-hash");
    let script = dir.write(
        "h.sql",
        "\\set a debug(hash_murmur2(1, 0))\n\\set b debug(hash_fnv1a(1, 0))\n\\set c debug(hash_murmur2(-7, 12345))\n\\set d debug(hash_fnv1a(123456789, 99))\nSELECT 1;\n",
    );
    let out = std::process::Command::new(format!("{}/pgbench", crate::pg::PG_BIN))
        .args([
            "-n",
            "-t",
            "1",
            "-f",
            script.to_str().unwrap(),
            "-h",
            "127.0.0.1",
            "-p",
            &pg.port.to_string(),
            "-U",
            USER,
            "postgres",
        ])
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let got: Vec<i64> = err
        .lines()
        .filter(|l| l.starts_with("debug("))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        got,
        [
            hash_murmur2(1, 0),
            hash_fnv1a(1, 0),
            hash_murmur2(-7, 12345),
            hash_fnv1a(123456789, 99)
        ],
        "{err}"
    );
}

/// `hakaru pgbench ARGS postgres` on the harness's server, with its login.
pub fn pgbench(pg: &Postgres, args: &[&str]) -> std::process::Output {
    pgbench_on(pg.port, args)
}

/// The same on another port (a proxy's in front of the server), with its login.
pub fn pgbench_on(port: u16, args: &[&str]) -> std::process::Output {
    let port = port.to_string();
    let mut all = vec!["pgbench", "-h", "127.0.0.1", "-p", &port, "-U", USER];
    all.extend_from_slice(args);
    all.push("postgres");
    hakaru()
        .args(&all)
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap()
}

/// Issue 33: without `-i` the load runs on the engine: `-c 4 -t 50` is 200
/// transactions, each one row in pgbench_history.
#[test]
fn pgbench_runs_clients_times_transactions_on_the_engine() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(&pg, &["-c", "4", "-j", "2", "-t", "50", "-b", "tpcb-like"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}\n{}", pg.log());
    assert!(text.contains("number of clients: 4"), "{text}");
    assert!(text.contains("200/200"), "{text}");
    assert!(text.contains("tps = "), "{text}");
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) FROM pgbench_history"),
        "200"
    );
}

/// `-S -T 2 -R 200 --latency-limit 50`: an open-model run for its time, with
/// pgbench's rate-limit lines.
#[test]
fn pgbench_rate_and_latency_limit_print_pgbenchs_lines() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(
        &pg,
        &[
            "-S",
            "-c",
            "2",
            "-T",
            "2",
            "-R",
            "200",
            "--latency-limit",
            "50",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("select only"), "{text}");
    assert!(text.contains("duration: 2 s"), "{text}");
    assert!(text.contains("rate limit schedule lag"), "{text}");
    assert!(text.contains("above the 50.0 ms latency limit"), "{text}");
}

/// The server's count of `postgres`'s sessions and commits, read from another
/// database so that reading them counts in neither.
pub fn sessions_and_commits(pg: &Postgres) -> (u64, u64) {
    // Counts reach the shared statistics within a second, and when a backend exits.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let s = pg.psql(
        "template1",
        "SELECT sessions || ' ' || xact_commit FROM pg_stat_database WHERE datname = 'postgres'",
    );
    let mut it = s.split(' ').map(|n| n.parse::<u64>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

/// Issue 33 item 2: `-C` logs in anew for each transaction, as pgbench does: the
/// server counts one session per transaction (and one for reading the scale), and
/// the report says pgbench's -C lines.
#[test]
fn pgbench_connect_per_transaction_logs_in_for_each_one() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let (s0, c0) = sessions_and_commits(&pg);
    let out = pgbench(&pg, &["-C", "-S", "-n", "-c", "3", "-t", "20"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}\n{}", pg.log());
    assert!(text.contains("60/60"), "{text}");
    assert!(text.contains("average connection time = "), "{text}");
    assert!(text.contains(" (including reconnection times)"), "{text}");
    assert!(!text.contains("initial connection time"), "{text}");
    let (s1, c1) = sessions_and_commits(&pg);
    // 60 transactions, each its own session, and the one that read the scale.
    assert_eq!(s1 - s0, 61, "{text}");
    // The server's commits: the 60 transactions, one for each login (a backend's
    // start commits its own), and the scale's count(*).
    assert_eq!(c1 - c0, 60 + 61 + 1, "{text}");
    // Each session ended by Terminate: no client lost in the server's log.
    assert!(
        !pg.log().contains("unexpected EOF on client connection"),
        "{}",
        pg.log()
    );
}

/// Issue 33 item 1: each pgbench 15 flag hakaru does not carry out is refused by
/// name with why, before anything connects (port 1: nothing listens), never
/// ignored; `--random-seed rand`, `-V` and `--show-script` are taken.
#[test]
fn pgbench_refuses_flags_it_does_not_carry_out_by_name_with_why() {
    let base = ["pgbench", "-h", "127.0.0.1", "-p", "1", "-t", "1"];
    for (flags, named) in [
        (&["-i", "--partitions", "4"][..], "--partitions: "),
        (
            &["-i", "--partition-method", "hash"][..],
            "--partition-method: ",
        ),
        (&["-i", "--tablespace", "t"][..], "--tablespace: "),
        (
            &["-i", "--index-tablespace", "t"][..],
            "--index-tablespace: ",
        ),
        (&["-l", "--sampling-rate", "0.1"][..], "--sampling-rate: "),
        (&["--verbose-errors"][..], "--verbose-errors: "),
        (&["-d"][..], "-d/--debug: "),
    ] {
        let out = run(&[&base[..], flags, &["postgres"]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(named), "{flags:?}: {err}");
        assert!(err.contains("not carried out by hakaru pgbench: "), "{err}");
    }
    // Taken: the seed, then the connection fails (exit 2 is bad input only).
    let out = run(&[&base[..], &["--random-seed", "rand", "postgres"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("--random-seed"), "{err}");
    assert!(err.contains("cannot connect"), "{err}");
    let out = run(&["pgbench", "-V"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("pgbench (hakaru "));
    let out = run(&["pgbench", "--show-script", "select-only"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 33 item 1: without `-n` the run vacuums first as pgbench does (its lines
/// on stderr, the history emptied); with a database that has no pgbench tables
/// the errors are printed and the run goes on.
#[test]
fn pgbench_vacuums_before_the_run_unless_n() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(init.status.success());
    let out = pgbench(&pg, &["-c", "1", "-t", "5", "-N"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("starting vacuum...end."), "{err}");
    let out = pgbench(&pg, &["-c", "1", "-t", "5", "-N", "-v"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("starting vacuum...starting vacuum pgbench_accounts...end.\nend."),
        "{err}"
    );
    // -v's truncate left only the second run's 5 rows.
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) FROM pgbench_history"),
        "5"
    );
    let out = pgbench(&pg, &["-c", "1", "-t", "5", "-N", "-n"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("vacuum"));
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) FROM pgbench_history"),
        "10"
    );
    pg.psql("postgres", "DROP TABLE pgbench_history");
    let dir = crate::util::TempDir::new("pgbench-vac");
    let f = dir.write("one.sql", "SELECT 1;\n");
    let out = pgbench(&pg, &["-t", "3", "-f", f.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("(ignoring this error and continuing anyway)"),
        "{err}"
    );
}

/// `-r` prints each SQL statement's latency and failures from its `stmt=` label,
/// and `--max-tries` pgbench's retry lines.
#[test]
fn pgbench_report_per_command_and_max_tries() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(
        &pg,
        &[
            "-c",
            "2",
            "-t",
            "20",
            "-b",
            "tpcb-like",
            "-r",
            "--max-tries",
            "3",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("number of transactions retried: 0 (0.000%)"),
        "{text}"
    );
    assert!(text.contains("total number of retries: 0"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("statement latencies in milliseconds and failures:"))
        .skip(1)
        .take_while(|l| l.starts_with("   "))
        .collect();
    // tpcb-like's seven statements, BEGIN to END, each timed, none failed.
    assert_eq!(rows.len(), 7, "{text}");
    assert!(rows[1].contains("UPDATE pgbench_accounts"), "{text}");
    // Bug: the rows read `BEGIN`, the `;` dropped; pgbench prints `BEGIN;`.
    assert!(rows[0].ends_with("  BEGIN;"), "{text}");
    for r in &rows {
        let mut cells = r.split_whitespace();
        let ms: f64 = cells.next().unwrap().parse().unwrap();
        assert!(ms > 0.0, "{r}");
        assert_eq!(cells.next(), Some("0"), "{r}");
    }
}

/// A custom `-f` script with `\set` and `\gset`: each transaction's inserted row
/// carries the value `\gset` read back, so 2 clients × 5 make 10 rows of 42.
#[test]
fn pgbench_runs_a_custom_script_with_set_and_gset() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE TABLE gs (v int)");
    let dir = crate::util::TempDir::new("pgbench-f");
    let script = dir.path("gs.sql");
    std::fs::write(
        &script,
        "\\set x 40 + 2\nSELECT :x AS got \\gset\nINSERT INTO gs VALUES (:got);\n",
    )
    .unwrap();
    let f = script.to_str().unwrap();
    let out = pgbench(&pg, &["-c", "2", "-t", "5", "-n", "-f", f]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("10/10"), "{text}");
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) || ' ' || min(v) || ' ' || max(v) FROM gs"
        ),
        "10 42 42"
    );
}

/// Issue 33 item 2: `hakaru pgbench` ends as `run` does. One run with the password
/// from `--password-file` (no PGPASSWORD), `-o`, `--threshold`/`--junit`, `-P 1`'s
/// lines while it goes and `-l --aggregate-interval 1`'s log; the log's counts add
/// up to the report's; the password is nowhere in the result.
#[test]
fn pgbench_writes_results_progress_and_the_aggregated_log() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let dir = crate::util::TempDir::new("pgbench-out");
    let pw = dir.write("pw", &format!("{PASSWORD}\n"));
    let result = dir.path("r.csv");
    let junit = dir.path("j.xml");
    let prefix = dir.path("agg");
    let port = pg.port.to_string();
    let child = hakaru()
        .args(["pgbench", "-h", "127.0.0.1", "-p", &port, "-U", USER])
        .args(["--password-file", pw.to_str().unwrap()])
        .args(["-S", "-c", "2", "-T", "3", "-P", "1"])
        .args(["-l", "--aggregate-interval", "1"])
        .args(["--log-prefix", prefix.to_str().unwrap()])
        .args(["-o", result.to_str().unwrap()])
        .args([
            "--threshold",
            "errors<=0",
            "--junit",
            junit.to_str().unwrap(),
        ])
        .arg("postgres")
        .env_remove("PGPASSWORD")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}\n{}", pg.log());
    // -P 1: pgbench's line, once a second, on stderr.
    let progress: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!(progress.len() >= 2, "{err}");
    for l in &progress {
        let re = l.split(", ").collect::<Vec<_>>();
        assert_eq!(re.len(), 4, "{l}");
        assert!(re[0].ends_with(" s") && re[1].ends_with(" tps"), "{l}");
        assert!(
            re[2].starts_with("lat ") && re[2].contains(" ms stddev "),
            "{l}"
        );
        assert_eq!(re[3], "0 failed", "{l}");
    }
    let processed: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("number of transactions actually processed: "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(processed > 0, "{text}");
    // -l --aggregate-interval 1: a line a second, counts adding up to the report's.
    // Bug: the lines had 7 fields (..., max_latency, failures); pgbench 15 writes
    // 15 always, the lag, skipped and retries 0 when they do not apply.
    let log = std::fs::read_to_string(format!("{}.{pid}", prefix.display())).unwrap();
    let mut sum = 0;
    for l in log.lines() {
        let f: Vec<u64> = l.split(' ').map(|v| v.parse().unwrap()).collect();
        assert_eq!(f.len(), 15, "{l}");
        assert_eq!(f[6..13], [0; 7], "no lag, skipped or retries: {l}");
        assert!(f[4] <= f[5], "min ≤ max: {l}");
        sum += f[1];
    }
    assert!((3..=4).contains(&log.lines().count()), "{log}");
    assert_eq!(sum, processed, "{log}\n{text}");
    // -o and --junit as run writes them; no password in the result.
    let json = std::fs::read_to_string(dir.path("r.json")).unwrap();
    assert!(
        !json.contains(PASSWORD),
        "the password leaked into the result"
    );
    assert!(json.contains("\"passed\": true"), "{json}");
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("<testsuite"));
    assert!(std::fs::read_to_string(&result).unwrap().lines().count() >= 2);

    // A threshold that fails exits 1, as run's does.
    let out = pgbench(&pg, &["-S", "-t", "5", "--threshold", "qps>100000000"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A run in which every transaction failed is no success either.
    let bad = dir.write("bad.sql", "SELECT 1/0;\n");
    let out = pgbench(&pg, &["-t", "3", "-f", bad.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("number of failed transactions: 3 (100.000%)"),
        "{text}"
    );
    // Its kind named as the result and every other report names it (the section
    // printed Rust's name for it, `SqlError`).
    assert!(
        text.contains("\nerror sql_error: 3 (SQLSTATE 22012"),
        "{text}"
    );
}

/// Issue 33 item 2: under `-R` with `--latency-limit`, a transaction already later
/// than the limit when its client is free is skipped, as pgbench does: one client
/// whose transactions take 20 ms asked for 200 a second keeps up with 50, and the
/// rest are skipped, counted apart (the report's line and the result's `skipped`).
#[test]
fn pgbench_skips_transactions_already_past_the_latency_limit() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-skip");
    let slow = dir.write("slow.sql", "SELECT pg_sleep(0.02);\n");
    let result = dir.path("r.json");
    let out = pgbench(
        &pg,
        &[
            "-c",
            "1",
            "-T",
            "2",
            "-R",
            "200",
            "--latency-limit",
            "5",
            "-P",
            "1",
            "-f",
            slow.to_str().unwrap(),
            "-o",
            result.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    let skipped: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("number of transactions skipped: "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    // About 400 due in 2 s, at most ~100 sent: most are skipped (bounds loose: a
    // busy machine is slower, never faster).
    assert!((200..=400).contains(&skipped), "{text}");
    let json = crate::util::read_json(&result);
    assert_eq!(json["steps"][0]["skipped"].as_u64(), Some(skipped));
    // Skipped are neither successes nor failures.
    assert!(text.contains("number of failed transactions: 0 "), "{text}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("progress: ") && l.contains(" ms, ") && l.ends_with(" skipped")),
        "{err}"
    );
}

/// Bad input before any load: `-o` onto the `-f` script (it would replace an
/// input), `-l` with `-R --latency-limit` (the skipped transactions' lines).
#[test]
fn pgbench_refuses_an_output_onto_its_script_and_a_log_without_the_skipped() {
    let dir = crate::util::TempDir::new("pgbench-refuse");
    let script = dir.write("s.csv", "SELECT 1;\n");
    let s = script.to_str().unwrap();
    let base = ["pgbench", "-h", "127.0.0.1", "-p", "1", "-t", "1"];
    let out = run(&[&base[..], &["-f", s, "-o", s, "postgres"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("-f script"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "SELECT 1;\n");
    let out = run(&[&base[..], &["-l", "-R", "10", "-L", "5", "postgres"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped transactions"));
}

/// Regression (issue 33's bench): a built-in script's `:scale` stayed 1 on tables
/// made with `-s 10`, so every tpcb-like transaction updated branch 1 and 16
/// clients queued on its row lock (half pgbench's tps). As pgbench, the run now
/// counts pgbench_branches.
#[test]
fn pgbench_builtin_scripts_take_the_scale_of_the_tables() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "3"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(&pg, &["-c", "2", "-t", "30"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("scaling factor: 3\n"), "{text}");
    // 60 transactions over 3 branches: each branch drawn (all on fewer: < 1e-10).
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(DISTINCT bid) FROM pgbench_history"
        ),
        "3"
    );
    // `-s` given to a run is overruled, with pgbench's warning (its prefix was
    // missing: `scale option ignored, …` alone).
    let out = pgbench(&pg, &["-n", "-s", "7", "-t", "1", "-S"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "pgbench: warning: scale option ignored, using count from pgbench_branches table (3)\n"
        ),
        "{err}"
    );
}

/// Issue 33: `-D` took numbers only (a text value was refused); pgbench takes any
/// text, `:name` its text as given. A table's name in simple mode, a value with a
/// space as an extended-mode parameter, `007` kept as written: the rows Debian's
/// pgbench makes with the same flags.
#[test]
fn pgbench_d_takes_text_and_substitutes_it_as_pgbench_does() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE TABLE dtab (n text, w text)");
    let dir = crate::util::TempDir::new("pgbench-d");
    let simple = dir.write("s.sql", "INSERT INTO :tbl (n) VALUES (:n);\n");
    let extended = dir.write("e.sql", "INSERT INTO dtab (n, w) VALUES (:n, :w);\n");
    let d = ["-D", "tbl=dtab", "-D", "n=007", "-D", "w=hello world"];
    let peer = |args: &[&str]| {
        std::process::Command::new(format!("{}/pgbench", crate::pg::PG_BIN))
            .args(["-h", "127.0.0.1", "-p", &pg.port.to_string(), "-U", USER])
            .args(args)
            .arg("postgres")
            .env("PGPASSWORD", PASSWORD)
            .output()
            .unwrap()
    };
    for (file, mode) in [(&simple, "simple"), (&extended, "extended")] {
        let mut args = vec!["-n", "-t", "2", "-M", mode, "-f", file.to_str().unwrap()];
        args.extend(d);
        for (who, out) in [("hakaru", pgbench(&pg, &args)), ("pgbench", peer(&args))] {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{who} {mode}: {err}");
        }
    }
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) FILTER (WHERE n = '7' AND w IS NULL) || ' ' || \
             count(*) FILTER (WHERE n = '007' AND w = 'hello world') FROM dtab"
        ),
        "4 4",
        "simple mode writes 007 as a number (7), extended sends the text"
    );
}

/// Bug: a transaction of more than 5 s failed as hakaru's `Timeout` (its `run`
/// default) where pgbench, which has no limit, passes it: a batch or a lock wait
/// in a ported script broke the port. The drop-in's limit is 60 s; `--timeout`
/// (hakaru's) sets another, and what passes it is still counted a timeout.
#[test]
fn pgbench_passes_a_transaction_longer_than_run_s_default_timeout() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-long");
    let long = dir.write("long.sql", "SELECT pg_sleep(5.5);\n");
    let f = long.to_str().unwrap();
    let out = pgbench(&pg, &["-n", "-c", "1", "-t", "1", "-f", f]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    assert!(text.contains("actually processed: 1/1"), "{text}");
    let out = pgbench(
        &pg,
        &["-n", "-c", "1", "-t", "1", "-f", f, "--timeout", "1s"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("actually processed: 0/1"), "{text}");
    assert!(text.contains("\nerror timeout: 1 "), "{text}");
}

/// Bug: with several scripts the report had no `SQL script N:` sections (pgbench 15
/// prints one per script: weight, transactions, failures, latency) and `-r`
/// listed every script's statements under one heading instead of each in its own.
#[test]
fn pgbench_several_scripts_get_a_section_each_with_their_statements() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-sections");
    let a = dir.write("a.sql", "SELECT 1;\n");
    let b = dir.write("b.sql", "SELECT 2;\nSELECT 3;\n");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let (fa, fb) = (format!("{a}@3"), format!("{b}@1"));
    let out = pgbench(&pg, &["-n", "-r", "-t", "40", "-f", &fa, "-f", &fb]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let one = format!("SQL script 1: {a}\n - weight: 3 (targets 75.0% of total)\n");
    let two = format!("SQL script 2: {b}\n - weight: 1 (targets 25.0% of total)\n");
    let (at_one, at_two) = (text.find(&one).expect(&text), text.find(&two).expect(&text));
    let (first, second) = (&text[at_one..at_two], &text[at_two..]);
    assert!(first.contains(" - statement latencies in milliseconds and failures:\n"));
    assert!(
        first.contains("SELECT 1") && !first.contains("SELECT 2"),
        "{first}"
    );
    assert!(
        second.contains("SELECT 2") && second.contains("SELECT 3"),
        "{second}"
    );
    // The sections' transactions add up to the run's.
    let count = |s: &str| -> u64 {
        let line = s
            .lines()
            .find(|l| l.ends_with(')') && l.contains(" transactions ("))
            .unwrap();
        line[3..].split(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(count(first) + count(second), 40, "{text}");
    assert!(!text.contains("\nstatement latencies"), "{text}");
}

/// Bug: `-c` past the server's max_connections ran on the connections it got,
/// counted the others' transactions as failed and exited 0; pgbench 15 stops with
/// "could not create connection for client N" and exits 1. The report still
/// comes (what ran is measured), then why the run failed, and exit 1.
#[test]
fn pgbench_fails_a_run_whose_clients_could_not_all_connect() {
    let Some(pg) = Postgres::start(&["max_connections=6"]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-too-many");
    let f = dir.write("one.sql", "SELECT 1;\n");
    let out = pgbench(
        &pg,
        &["-n", "-c", "10", "-t", "1", "-f", f.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
    assert!(text.contains("number of clients: 10"), "{text}");
    assert!(err.contains("could not connect"), "{err}");
}

/// Bug: `\aset` after a compound query (`\;`) stored only the first result's first
/// row, and `\gset` after one failed ("expected one row, got 2"); pgbench 15
/// stores every result's last row for `\aset` (a result without rows skipped) and
/// the last result's one row for `\gset`.
#[test]
fn pgbench_aset_and_gset_read_a_compound_query_as_pgbench_does() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql(
        "postgres",
        "CREATE TABLE got (a int, b int, c int, g int, k int)",
    );
    let dir = crate::util::TempDir::new("pgbench-aset");
    let script = dir.write(
        "aset.sql",
        "SELECT 1 AS a, 2 AS b \\; SELECT 1 AS none WHERE false \\; SELECT 3 AS c \\aset q_\n\
         SELECT generate_series(1, 4) AS g \\aset\n\
         SELECT 9 AS k \\; SELECT 5 AS k \\gset\n\
         INSERT INTO got VALUES (:q_a, :q_b, :q_c, :g, :k);\n",
    );
    let out = pgbench(&pg, &["-n", "-t", "2", "-f", script.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) || ' ' || string_agg(DISTINCT a || ',' || b || ',' || c || ',' || g || ',' || k, ' ') FROM got"),
        "2 1,2,3,4,5"
    );
}

/// Bugs: flags pgbench 15 accepts were refused: `-j 4 -c 2` (pgbench runs two
/// threads), `--max-tries 0` with `-T` (unlimited tries; pgbench prints no
/// `maximum number of tries` line then, but the retries' lines), and `-b list`
/// (pgbench lists its scripts on stderr and exits 0); and `--random-seed` said
/// nothing of the seed it took (pgbench says it, so a `rand` run can be repeated).
#[test]
fn pgbench_takes_more_threads_than_clients_unlimited_tries_and_b_list() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-accepts");
    let f = dir.write("one.sql", "SELECT 1;\n");
    let args = ["-n", "-c", "2", "-j", "4", "-T", "1", "--max-tries", "0"];
    let out = pgbench(&pg, &[&args[..], &["-f", f.to_str().unwrap()]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("number of threads: 2\n"), "{text}");
    assert!(!text.contains("maximum number of tries"), "{text}");
    assert!(text.contains("total number of retries: 0\n"), "{text}");
    // Bug: `--random-seed rand` never said its seed (pgbench says it on stderr).
    let out = pgbench(
        &pg,
        &[
            "-n",
            "-t",
            "1",
            "--random-seed",
            "rand",
            "-f",
            f.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("setting random seed to "), "{err}");
    let out = run(&["pgbench", "-b", "list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with("Available builtin scripts:\n      tpcb-like: "),
        "{err}"
    );
}

/// Bug: a script whose transactions failed with an error pgbench 15 aborts its
/// client for (here division by zero; anything but a serialization failure or a
/// deadlock) exited 0; pgbench 15 exits 2 ("Run was aborted"). hakaru measures on
/// and reports, then says why and exits 1. Serialization failures alone exit 0,
/// as pgbench counts them as failed transactions and goes on.
#[test]
fn pgbench_exits_1_when_transactions_failed_as_pgbench_would_abort_them() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-abort");
    let f = dir.write("div.sql", "\\set r random(0, 1)\nSELECT 1 / :r;\n");
    let out = pgbench(&pg, &["-n", "-t", "20", "-f", f.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
    assert!(text.contains("number of failed transactions: "), "{text}");
    assert!(
        err.contains("other than a serialization failure or a deadlock"),
        "{err}"
    );
}
