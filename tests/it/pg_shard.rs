//! `--shard K/N` and `merge` over `postgres://` (issue 33 item 6): two shards of a
//! `run … -f script` against one private PostgreSQL 15 (`pg::Postgres`) merge into
//! exactly what the server committed.

use crate::pg::Postgres;
use crate::util::*;

#[test]
fn two_shards_of_a_postgres_run_merge_into_the_servers_committed_count() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("pg-shard");
    pg.psql("postgres", "CREATE DATABASE bench");
    pg.psql(
        "bench",
        "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL DEFAULT 0); \
         INSERT INTO t (id) SELECT generate_series(1, 100)",
    );
    // Each transaction adds one to a counter: the counters' sum is the commits.
    let tx = dir.write(
        "tx.sql",
        "\\set id random(1, 100)\nUPDATE t SET n = n + 1 WHERE id = :id;\n",
    );
    let url = pg.url("bench");
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let out = dir.path(&format!("s{}.csv", &k[..1]));
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "400",
            "-M",
            "prepared",
            "--shard",
            k,
            "-f",
            tx.to_str().unwrap(),
            &url,
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]));
        files.push(out.with_extension("json"));
    }
    let merged = dir.path("m.csv");
    ok(&run(&[
        "merge",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
    ]));
    let m = read_json(&merged.with_extension("json"));
    let step = &m["steps"][0];
    let shard_responses: Vec<u64> = files
        .iter()
        .map(|f| read_json(f)["steps"][0]["responses"].as_u64().unwrap())
        .collect();
    // Each shard ran its half of the 400; together the whole, none failed.
    assert_eq!(shard_responses, [200, 200]);
    assert_eq!(step["responses"].as_u64(), Some(400), "{step}");
    assert_eq!(step["total_requests"].as_u64(), Some(400), "{step}");
    let committed: u64 = pg.psql("bench", "SELECT sum(n) FROM t").parse().unwrap();
    assert_eq!(committed, 400);
}
