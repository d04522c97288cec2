use super::*;
use crate::sql::sysbench::Test;
use crate::sql::Dialect;

/// One event's statements: (sql, params, prepared name), each answered `ok` (a
/// write changing one row).
fn event(c: &mut Oltp, ok: bool) -> Vec<(String, Vec<String>, Option<String>)> {
    c.begin();
    let mut out = Vec::new();
    loop {
        match c.next() {
            Action::Query {
                sql,
                params,
                prepared,
                ..
            } => {
                let p = params
                    .iter()
                    .map(|v| String::from_utf8_lossy(v.unwrap()).into_owned())
                    .collect();
                out.push((sql.to_string(), p, prepared.map(str::to_string)));
            }
            Action::Done => return out,
            other => panic!("{other:?}"),
        }
        c.answered(&StatementAnswer {
            failed: !ok,
            affected: u64::from(ok),
            ..StatementAnswer::default()
        });
    }
}

fn client(o: OltpOptions) -> (Oltp, Rc<Cell<QueryCounts>>) {
    let counts = Rc::default();
    (
        Oltp::new(Arc::new(Plan::new(o)), 9, 0, Rc::clone(&counts)),
        counts,
    )
}

#[test]
fn read_write_is_sysbenchs_transaction_prepared_per_table() {
    let mut o = OltpOptions::new(Test::ReadWrite, Dialect::Postgres);
    o.tables = 4;
    let (mut c, counts) = client(o);
    let e = event(&mut c, true);
    assert_eq!(e.len(), 20);
    assert_eq!(e[0].0, "BEGIN");
    assert_eq!(e[0].2.as_deref(), Some("sb_begin"));
    assert_eq!(e[19].0, "COMMIT");
    // Ten point selects on one table.
    let t = &e[1].0["SELECT c FROM sbtest".len().."SELECT c FROM sbtest1".len()];
    for q in &e[1..11] {
        assert_eq!(q.0, format!("SELECT c FROM sbtest{t} WHERE id=$1::bigint"));
        assert_eq!(q.2.as_deref(), Some(format!("sb_point_{t}").as_str()));
        let id: u32 = q.1[0].parse().unwrap();
        assert!((1..=10_000).contains(&id));
    }
    assert!(e[11]
        .0
        .ends_with("WHERE id BETWEEN $1::bigint AND $2::bigint"));
    let (a, b): (u32, u32) = (e[11].1[0].parse().unwrap(), e[11].1[1].parse().unwrap());
    assert_eq!(b - a, 99);
    assert!(e[12].0.starts_with("SELECT SUM(k) FROM sbtest"));
    assert!(e[13].0.ends_with(" ORDER BY c") && e[14].0.starts_with("SELECT DISTINCT c"));
    assert!(e[15].0.contains("SET k=k+1 WHERE id=$1::bigint"));
    assert!(e[16].0.contains("SET c=$1 WHERE id=$2::bigint"));
    assert_eq!(e[16].1[0].len(), 119);
    assert!(e[17].0.starts_with("DELETE FROM sbtest"));
    assert!(e[18]
        .0
        .ends_with("(id, k, c, pad) VALUES ($1::bigint, $2::bigint, $3, $4)"));
    // The pair deletes and inserts the same id in the same table.
    assert_eq!(e[17].1[0], e[18].1[0]);
    assert_eq!(e[17].0[12..19], e[18].0[12..19]);
    assert_eq!(
        counts.get(),
        QueryCounts {
            read: 14,
            write: 4,
            other: 2
        }
    );
}

#[test]
fn plain_mode_writes_the_values_into_the_text() {
    let mut o = OltpOptions::new(Test::WriteOnly, Dialect::Mysql);
    o.prepared = false;
    o.skip_trx = true;
    let (mut c, _) = client(o);
    let e = event(&mut c, true);
    assert_eq!(e.len(), 4);
    assert!(e.iter().all(|q| q.1.is_empty() && q.2.is_none()));
    assert!(e[0].0.starts_with("UPDATE sbtest1 SET k=k+1 WHERE id="));
    assert!(e[1].0.starts_with("UPDATE sbtest1 SET c='"), "{}", e[1].0);
    assert!(e[3].0.contains("VALUES ("), "{}", e[3].0);
    assert!(!e[3].0.contains('?'));
}

#[test]
fn a_failed_statement_ends_the_event_and_counts_nothing() {
    let (mut c, counts) = client(OltpOptions::new(Test::ReadWrite, Dialect::Postgres));
    let e = event(&mut c, false);
    assert_eq!(e.len(), 1);
    assert_eq!(counts.get(), QueryCounts::default());
    // The next event starts over.
    assert_eq!(event(&mut c, true).len(), 20);
}

#[test]
fn oltp_insert_on_postgres_leaves_the_id_to_serial_and_else_draws_unique_ids() {
    let (mut c, _) = client(OltpOptions::new(Test::Insert, Dialect::Postgres));
    let e = event(&mut c, true);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].0
            .starts_with("INSERT INTO sbtest1 (k, c, pad) VALUES ("),
        "{}",
        e[0].0
    );
    // oltp_insert sends plain queries whatever --db-ps-mode says.
    assert!(e[0].2.is_none());
    let mut o = OltpOptions::new(Test::Insert, Dialect::Mysql);
    o.auto_inc = false;
    let (mut c, _) = client(o);
    let ids: std::collections::HashSet<String> = (0..1000)
        .map(|_| {
            let q = &event(&mut c, true)[0].0;
            let start = q.find("VALUES (").unwrap() + 8;
            q[start..].split(',').next().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 1000);
}

#[test]
fn select_random_points_draws_within_the_threads_slice() {
    let mut o = OltpOptions::new(Test::RandomPoints, Dialect::Postgres);
    o.threads = 4;
    o.rand.dist = crate::sql::sysbench::rand::Dist::Uniform;
    let counts = Rc::default();
    let mut c = Oltp::new(Arc::new(Plan::new(o)), 1, 2, counts);
    for _ in 0..50 {
        let e = event(&mut c, true);
        assert_eq!(e.len(), 1);
        assert!(e[0]
            .0
            .starts_with("SELECT id, k, c, pad FROM sbtest1 WHERE k IN ($1::bigint, $2::bigint,"));
        assert_eq!(e[0].1.len(), 10);
        for k in &e[0].1 {
            let k: u32 = k.parse().unwrap();
            assert!((5000..=7500).contains(&k), "{k}");
        }
    }
}

#[test]
fn select_random_ranges_and_bulk_insert_have_sysbenchs_shapes() {
    let (mut c, _) = client(OltpOptions::new(Test::RandomRanges, Dialect::Mysql));
    let e = event(&mut c, true);
    assert!(e[0]
        .0
        .starts_with("SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR k BETWEEN"));
    assert_eq!(e[0].1.len(), 20);
    let (a, b): (u32, u32) = (e[0].1[0].parse().unwrap(), e[0].1[1].parse().unwrap());
    assert_eq!(b - a, 5);
    let (mut c, counts) = client(OltpOptions::new(Test::BulkInsert, Dialect::Postgres));
    let first = event(&mut c, true);
    let second = event(&mut c, true);
    assert!(first[0]
        .0
        .starts_with("INSERT INTO sbtest1 VALUES (1,1),(2,2),"));
    assert!(first[0].0.ends_with(",(1000,1000)"));
    assert!(second[0]
        .0
        .starts_with("INSERT INTO sbtest1 VALUES (1001,1001),"));
    assert_eq!(counts.get().write, 2);
}

/// sysbench's drivers count a statement by what it did: an UPDATE or DELETE that
/// changed no row is "other", not a write (it was counted a write whatever it did).
#[test]
fn a_write_that_changed_no_row_counts_as_other_as_sysbench_counts_it() {
    let (mut c, counts) = client(OltpOptions::new(Test::Delete, Dialect::Mysql));
    c.begin();
    assert!(matches!(c.next(), Action::Query { .. }));
    c.answered(&StatementAnswer::default());
    assert!(matches!(c.next(), Action::Done));
    c.begin();
    assert!(matches!(c.next(), Action::Query { .. }));
    c.answered(&StatementAnswer {
        affected: 1,
        ..StatementAnswer::default()
    });
    assert_eq!(
        counts.get(),
        QueryCounts {
            read: 0,
            write: 1,
            other: 1
        }
    );
}

/// An ignored error restarts the event from its first statement with fresh draws
/// (sysbench calls `event()` again); the failed try's good statements stay
/// counted; an error not ignored ends the event.
#[test]
fn an_ignored_error_restarts_the_event_and_another_ends_it() {
    let mut o = OltpOptions::new(Test::ReadWrite, Dialect::Mysql);
    o.ignore = crate::sql::sysbench::Ignore::default();
    let (mut c, counts) = client(o);
    c.begin();
    let mut first = Vec::new();
    for ok in [true, true, false] {
        match c.next() {
            Action::Query { sql, params, .. } => {
                first.push((sql.to_string(), params.iter().count()));
            }
            other => panic!("{other:?}"),
        }
        c.answered(&StatementAnswer {
            failed: !ok,
            ..StatementAnswer::default()
        });
    }
    assert!(matches!(c.next(), Action::Done));
    assert!(
        c.retry(SqlFailure::My(1213, *b"40001")),
        "a deadlock restarts it"
    );
    // BEGIN and one point select counted, as sysbench counts them.
    assert_eq!(counts.get().other, 1);
    assert_eq!(counts.get().read, 1);
    match c.next() {
        Action::Query { sql, .. } => assert_eq!(sql, "BEGIN", "from its first statement"),
        other => panic!("{other:?}"),
    }
    c.answered(&StatementAnswer::default());
    c.next();
    c.answered(&StatementAnswer {
        failed: true,
        ..StatementAnswer::default()
    });
    assert!(
        !c.retry(SqlFailure::My(1062, *b"23000")),
        "a duplicate key is not ignored"
    );
    assert!(matches!(c.next(), Action::Done));
    // PostgreSQL: the pgsql driver's three.
    let (mut p, _) = client(OltpOptions::new(Test::Insert, Dialect::Postgres));
    p.begin();
    p.next();
    p.answered(&StatementAnswer {
        failed: true,
        ..StatementAnswer::default()
    });
    assert!(p.retry(SqlFailure::Pg(*b"23505")));
    assert!(matches!(p.next(), Action::Query { .. }));
}

/// Bug: on PostgreSQL the integers were parameters of the column's type (integer),
/// where sysbench's pgsql driver binds them as bigint; the planner followed the
/// type (select_random_points on 1,000 rows: a sequential scan each, sysbench's a
/// bitmap index scan). Plain mode writes literals, as sysbench does.
#[test]
fn postgres_integers_are_bigint_parameters_as_sysbench_binds_them() {
    let o = OltpOptions::new(Test::PointSelect, Dialect::Postgres);
    let (mut c, _) = client(o.clone());
    assert_eq!(
        event(&mut c, true)[0].0,
        "SELECT c FROM sbtest1 WHERE id=$1::bigint"
    );
    let (mut c, _) = client(OltpOptions {
        prepared: false,
        ..o.clone()
    });
    assert!(!event(&mut c, true)[0].0.contains("::"));
    let (mut c, _) = client(OltpOptions {
        dialect: Dialect::Mysql,
        ..o
    });
    assert_eq!(event(&mut c, true)[0].0, "SELECT c FROM sbtest1 WHERE id=?");
}
