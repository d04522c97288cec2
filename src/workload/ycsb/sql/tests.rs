//! The SQL conversation's statements, load numbering, transactions and counts.

use super::*;

fn settings(core: Core, records: u64, batch: u64) -> YcsbSettings {
    YcsbSettings {
        core,
        target: target("postgres://u@127.0.0.1:5432/db").unwrap(),
        db_path: String::new(),
        records,
        distribution: Distribution::Uniform,
        fields: 10,
        field_length: 20,
        max_scan: 100,
        batch,
        headers: vec![],
        keep_alive: true,
        timeout: Duration::from_secs(1),
        seed: 3,
        shard: None,
    }
}

fn turn(n: u64) -> Turn {
    Turn {
        client: 0,
        n,
        index: None,
    }
}

/// A transaction's statements as the engine would see them: (name, text, params).
fn transaction(s: &mut SqlYcsbSource, n: u64) -> (usize, Vec<(String, String, Vec<String>)>) {
    let info = RequestSource::next(s, turn(n)).info;
    let mut out = Vec::new();
    loop {
        match Conversation::next(s) {
            Action::Query {
                sql,
                params,
                prepared,
                ..
            } => out.push((
                prepared.unwrap().to_string(),
                sql.to_string(),
                params
                    .iter()
                    .map(|p| String::from_utf8(p.unwrap().to_vec()).unwrap())
                    .collect(),
            )),
            Action::Done => return (info, out),
            other => panic!("{other:?}"),
        }
        s.answered(&StatementAnswer::default());
    }
}

/// The load inserts records 0..records once each, `batch` a statement, the last
/// one shorter: 250 records in 100, 100 and 50.
#[test]
fn the_load_inserts_every_record_once_in_multi_row_statements() {
    let w = SqlYcsb::new(settings(Core::Load, 250, 100), TABLE);
    assert_eq!(w.load_requests(), 3);
    let (mut s, _) = w.client(0.into());
    let mut keys = std::collections::BTreeSet::new();
    for n in 0..3 {
        let (info, stmts) = transaction(&mut s, n);
        assert_eq!(info, LOAD);
        let (name, sql, params) = &stmts[0];
        let rows = params.len() / 11;
        assert_eq!(
            (name.as_str(), rows),
            (if n < 2 {
                ("ycsb_load", 100)
            } else {
                ("ycsb_load_tail", 50)
            })
        );
        assert!(
            sql.starts_with("INSERT INTO usertable (YCSB_KEY, FIELD0,"),
            "{sql}"
        );
        assert!(sql.ends_with(&format!("${})", rows * 11)), "{sql}");
        for row in params.chunks(11) {
            assert!(keys.insert(row[0].clone()), "{} twice", row[0]);
            assert!(row[1..].iter().all(|v| v.len() == 20));
        }
    }
    assert_eq!(keys.len(), 250);
    let mut want = Vec::new();
    for r in 0..250 {
        write_id(&mut want, r);
        assert!(keys.contains(std::str::from_utf8(&want).unwrap()));
        want.clear();
    }
}

#[test]
fn statements_are_ycsb_jdbc_bindings() {
    let st = Statements::new(Dialect::Postgres, TABLE, 2, 2, 1);
    let texts: Vec<&str> = st.list.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts[S_READ], "SELECT * FROM usertable WHERE YCSB_KEY = $1");
    assert_eq!(
        texts[S_SCAN],
        "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2"
    );
    assert_eq!(
        texts[S_INSERT],
        "INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1) VALUES ($1, $2, $3)"
    );
    assert_eq!(
        texts[S_LOAD],
        "INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1) VALUES ($1, $2, $3), ($4, $5, $6)"
    );
    assert_eq!(
        texts[S_UPDATE + 1],
        "UPDATE usertable SET FIELD1 = $1 WHERE YCSB_KEY = $2"
    );
    let my = Statements::new(Dialect::Mysql, TABLE, 1, 1, 1);
    assert_eq!(
        my.list[S_UPDATE].text,
        "UPDATE usertable SET FIELD0 = ? WHERE YCSB_KEY = ?"
    );
    assert_eq!(
        create_table_sql(TABLE, 2),
        "CREATE TABLE IF NOT EXISTS usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT)"
    );
    assert!(check_table("usertable").is_ok());
    assert!(check_table("user table").is_err() && check_table("1t").is_err());
}

/// Workload F: half reads, half read-modify-writes, each one transaction of
/// BEGIN, the read, the update of one field and COMMIT; a failed statement ends it.
#[test]
fn a_read_modify_write_is_one_transaction() {
    let w = SqlYcsb::new(settings(Core::F, 100, 100), TABLE);
    let (mut s, mut check) = w.client(0.into());
    let mut rmw = 0;
    for n in 0..400 {
        let (info, stmts) = transaction(&mut s, n);
        let names: Vec<&str> = stmts.iter().map(|s| s.0.as_str()).collect();
        match info {
            READ => assert_eq!(names, ["ycsb_read"]),
            RMW => {
                rmw += 1;
                assert_eq!(names[..2], ["ycsb_begin", "ycsb_read"]);
                assert!(names[2].starts_with("ycsb_update"));
                assert_eq!(names[3], "ycsb_commit");
                // The update writes the record the read read.
                assert_eq!(stmts[1].2[0], stmts[2].2[1]);
            }
            other => panic!("{other}"),
        }
    }
    assert!((150..250).contains(&rmw), "{rmw} of 400");
    let mut items = ItemCounts::default();
    check.check(
        &Answer {
            status: 0,
            body: &[],
            truncated: false,
            items: 0,
        },
        &mut items,
    );
    assert_eq!(items.operations.len(), 1);
    // A failed read ends the transaction: no update, no commit.
    loop {
        let r = RequestSource::next(&mut s, turn(1000));
        if r.info == RMW {
            break;
        }
    }
    assert!(matches!(Conversation::next(&mut s), Action::Query { .. }));
    assert!(matches!(Conversation::next(&mut s), Action::Query { .. }));
    s.answered(&StatementAnswer {
        failed: true,
        ..StatementAnswer::default()
    });
    assert!(matches!(Conversation::next(&mut s), Action::Done));
}

#[test]
fn inserts_are_acknowledged_and_scans_bounded() {
    let w = SqlYcsb::new(settings(Core::E, 100, 100), TABLE);
    let (mut s, _) = w.client(0.into());
    let mut inserts = 0;
    for n in 0..1000 {
        let (info, stmts) = transaction(&mut s, n);
        match info {
            SCAN => {
                let len: u64 = stmts[0].2[1].parse().unwrap();
                assert!((1..=100).contains(&len));
            }
            INSERT => inserts += 1,
            other => panic!("{other}"),
        }
    }
    assert_eq!(w.shared.acknowledged.limit(), inserts);
    assert!((20..90).contains(&inserts), "{inserts}");
    let mut big = settings(Core::Load, 100, 6000);
    assert!(refused(&big).unwrap().contains("5957"));
    big.batch = 5957;
    assert!(refused(&big).is_none());
}
