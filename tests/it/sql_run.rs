//! `hakaru run` on SQL targets as a user runs it from docs/guide/sql.md: the
//! regressions the audit of run, merge, k8s render and report over SQL found
//! (2026-11-29), each test named after its bug.

use std::process::Stdio;
use std::time::Duration;

use crate::mysql::Mariadb;
use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::{hakaru, read_json, stderr, wait_bounded, TempDir};

/// The bugs: a script of meta-commands alone (`\set`, as pgbench runs them at
/// millions a second) sent nothing and never yielded, so `-d 1s` never ended and
/// SIGTERM was not seen: the client looped on its worker for good. And an empty
/// script, which pgbench refuses, was taken and did the same. And shards of
/// different scripts or weights merged as one run.
#[test]
fn sql_run_a_script_of_meta_commands_alone_ends_at_its_duration() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-meta");
    let meta = dir.write("meta.sql", "\\set x random(1, 10)\n\\sleep 0 ms\n");
    let out = dir.path("meta.json");
    let mut child = hakaru()
        .args(["run", "-q", "-c", "2", "-d", "1s", "-f"])
        .arg(&meta)
        .arg("-o")
        .arg(&out)
        .arg(pg.url("postgres"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(30));
    assert!(status.is_some(), "a 1 s run of \\set alone did not end");
    assert_eq!(status.unwrap().code(), Some(0));
    let step = &read_json(&out)["steps"][0];
    assert!(step["responses"].as_u64().unwrap() > 0, "{step}");
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");

    // Empty: refused before any load, naming the file, as pgbench refuses it.
    let empty = dir.write("empty.sql", "-- nothing here\n");
    let o = crate::util::run(&[
        "run",
        "-n",
        "1",
        "-f",
        empty.to_str().unwrap(),
        &pg.url("postgres"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("empty.sql:1:1: empty command list"),
        "{}",
        stderr(&o)
    );
    // Shards of different weights are not one run: merged as one before.
    let one = dir.write("one.sql", "SELECT 1;\n");
    let shard = |k: &str, weight: &str, name: &str| {
        let out = dir.path(name);
        let o = crate::util::run(&[
            "run",
            "-q",
            "--shard",
            k,
            "-c",
            "2",
            "-n",
            "10",
            "-f",
            &format!("{}@{weight}", one.display()),
            "-f",
            meta.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            &pg.url("postgres"),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        dir.path(&name.replace(".csv", ".json"))
    };
    let (s1, s2) = (shard("1/2", "3", "s1.csv"), shard("2/2", "1", "s2.csv"));
    let m = dir.path("m.csv");
    let merge = |a: &std::path::Path, b: &std::path::Path| {
        crate::util::run(&[
            "merge",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "-o",
            m.to_str().unwrap(),
        ])
    };
    let o = merge(&s1, &s2);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("SQL scripts"), "{}", stderr(&o));
    let s2 = shard("2/2", "3", "s3.csv");
    let o = merge(&s1, &s2);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A SQL URL mistyped is no SQL target: -f says which targets take it.
    let o = crate::util::run(&[
        "run",
        "-n",
        "1",
        "-f",
        meta.to_str().unwrap(),
        "postgres:/db",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-f/--file applies to postgres:// and mysql:// targets only"),
        "{}",
        stderr(&o)
    );
}

/// The bugs: with the password in `PGPASSWORD`, the result recorded the URL
/// `postgres://bench@…` as `postgres://<redacted>@…` (the user read as a password,
/// as Redis reads a lone userinfo); and the page of a run whose transactions failed
/// with `sql_error` said how many and never which error (the SQLSTATE and message
/// the result keeps were on the console only).
#[test]
fn sql_run_keeps_the_user_and_its_page_names_the_first_error_of_each_kind() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-user");
    let bad = dir.write("bad.sql", "SELECT * FROM nosuch;\n");
    let ok = dir.write("ok.sql", "SELECT 1;\n");
    let url = format!("postgres://{USER}@127.0.0.1:{}/postgres", pg.port);
    let out = dir.path("r.json");
    let o = hakaru()
        .env("PGPASSWORD", PASSWORD)
        .args(["run", "-q", "-c", "2", "-n", "40", "-f"])
        .arg(format!("{}@1", bad.display()))
        .arg("-f")
        .arg(format!("{}@1", ok.display()))
        .arg("-o")
        .arg(&out)
        .arg(&url)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = read_json(&out);
    let line = j["command_line"].to_string();
    assert!(line.contains(&url), "{line}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(PASSWORD));
    let step = &j["steps"][0];
    assert!(step["errors"]["sql_error"].as_u64().unwrap() > 0, "{step}");

    let o = crate::util::run(&["report", out.to_str().unwrap(), "--markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(dir.path("r.html")).unwrap();
    let from = page
        .find("<h3>First error of each kind</h3>")
        .expect("samples");
    assert!(
        page[from..].contains("SQLSTATE 42P01: relation &quot;nosuch&quot; does not exist"),
        "{page}"
    );
    assert!(page.contains(">scripts<"), "{page}");
    // Each statement's row names it: `stmt=1` alone said nothing.
    assert_eq!(
        j["settings"]["sql_statements"],
        serde_json::json!(["SELECT * FROM nosuch;", "SELECT 1;"])
    );
    assert!(
        page.contains("<td>stmt=1 SELECT * FROM nosuch;</td>"),
        "{page}"
    );
    let md = crate::util::stdout(&o);
    assert!(
        md.contains("| sql_error | 2 | SQLSTATE 42P01: relation \"nosuch\" does not exist |"),
        "{md}"
    );
}

/// The bug: a refused login (a wrong password) was tried again at once, as fast
/// as the server answered: 10,699 logins in 1 s from 2 clients against MariaDB,
/// none of which could succeed. It now backs off as a failed connect does (1 ms
/// doubling to 10 ms), and is still counted, under its own kind, and exits 1.
#[test]
fn sql_run_a_refused_login_backs_off_as_a_failed_connect() {
    let Some(db) = Mariadb::start() else { return };
    let dir = TempDir::new("sql-refused");
    let tx = dir.write("tx.sql", "SELECT 1;\n");
    let wrong = format!(
        "mysql://{}:nope@127.0.0.1:{}/bench",
        crate::mysql::USER,
        db.port
    );
    let out = dir.path("wrong.json");
    let o = crate::util::run(&[
        "run",
        "-q",
        "-c",
        "2",
        "-d",
        "1s",
        "-f",
        tx.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        &wrong,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let step = &read_json(&out)["steps"][0];
    let refused = step["errors"]["reply_noauth"].as_u64().unwrap();
    // At the 10 ms cap, about 100 a second per client.
    assert!(
        (2..=600).contains(&refused),
        "{refused} logins refused in 1 s: {step}"
    );
}
