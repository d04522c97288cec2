use super::*;
use crate::sql::script::parse;

fn scripts(text: &str, mode: Mode) -> Arc<Scripts> {
    let script = parse("t.sql", text).unwrap();
    Arc::new(Scripts::new(
        vec![Weighted {
            name: "t.sql".into(),
            weight: 1,
            script,
        }],
        mode,
        vec![("scale".into(), Define::Value(Value::Int(2)))],
    ))
}

fn query(a: Action<'_>) -> (usize, String, Vec<Option<String>>, Option<String>) {
    match a {
        Action::Query {
            stmt,
            sql,
            params,
            prepared,
        } => (
            stmt,
            sql.to_string(),
            params
                .iter()
                .map(|p| p.map(|b| String::from_utf8_lossy(b).into_owned()))
                .collect(),
            prepared.map(str::to_string),
        ),
        a => panic!("expected a query, got {a:?}"),
    }
}

const OK: StatementAnswer<'static> = StatementAnswer {
    failed: false,
    rows: 0,
    affected: 0,
    first_row: &[],
    columns: &[],
    last_rows: 0,
    last_from: 0,
};

#[test]
fn plain_sql_runs_statement_by_statement() {
    let mut s = Session::new(scripts("BEGIN; SELECT 1;\nEND;", Mode::Simple), 1, 0);
    assert_eq!(s.begin(), 0);
    for (n, want) in ["BEGIN", "SELECT 1", "END"].iter().enumerate() {
        let (stmt, sql, _, _) = query(s.next());
        assert_eq!((stmt, sql.trim()), (n, *want));
        s.answered(&OK);
    }
    assert!(matches!(s.next(), Action::Done));
}

#[test]
fn variables_substitute_in_each_mode() {
    let text = "\\set a 3 * :scale\nSELECT :a, :client_id, :a, :undefined_in_simple;";
    let mut s = Session::new(scripts(text, Mode::Simple), 1, 4);
    s.begin();
    assert_eq!(query(s.next()).1, "SELECT 6, 4, 6, :undefined_in_simple");

    let text = "\\set a 3 * :scale\nSELECT :a, :client_id, :a;";
    let mut s = Session::new(scripts(text, Mode::Prepared), 1, 4);
    s.begin();
    let (_, sql, params, name) = query(s.next());
    assert_eq!(sql, "SELECT $1, $2, $1");
    assert_eq!(params, [Some("6".to_string()), Some("4".to_string())]);
    assert_eq!(name.as_deref(), Some("P0_1"));
}

#[test]
fn extended_mode_fails_the_transaction_on_an_undefined_variable() {
    let mut s = Session::new(scripts("SELECT :nope;", Mode::Extended), 1, 0);
    s.begin();
    assert!(matches!(s.next(), Action::Failed(e) if e.contains("undefined variable \"nope\"")));
    assert!(matches!(s.next(), Action::Done));
}

#[test]
fn gset_stores_the_first_row_and_if_reads_it() {
    let text = "SELECT 41 AS n \\gset p_\n\\set m :p_n + 1\n\\if :m = 42\nSELECT :m;\n\\else\nSELECT 0;\n\\endif\n";
    let mut s = Session::new(scripts(text, Mode::Simple), 1, 0);
    s.begin();
    query(s.next());
    let row = [Some(&b"41"[..])];
    let cols = [&b"n"[..]];
    s.answered(&StatementAnswer {
        failed: false,
        rows: 1,
        affected: 0,
        first_row: &row,
        columns: &cols,
        last_rows: 1,
        last_from: 0,
    });
    assert_eq!(query(s.next()).1, "SELECT 42");
    s.answered(&OK);
    assert!(matches!(s.next(), Action::Done));
}

#[test]
fn gset_without_exactly_one_row_fails() {
    let mut s = Session::new(
        scripts("SELECT 1 AS n \\gset\nSELECT 2;", Mode::Simple),
        1,
        0,
    );
    s.begin();
    query(s.next());
    s.answered(&StatementAnswer {
        rows: 2,
        last_rows: 2,
        ..OK
    });
    assert!(matches!(s.next(), Action::Failed(e) if e == "expected one row, got 2"));
    let mut s = Session::new(
        scripts("SELECT 1 AS n \\gset\nSELECT 2;", Mode::Simple),
        1,
        0,
    );
    s.begin();
    query(s.next());
    s.answered(&StatementAnswer { rows: 0, ..OK });
    assert!(matches!(s.next(), Action::Failed(e) if e == "expected one row, got 0"));
}

#[test]
fn a_failed_answer_ends_the_transaction() {
    let mut s = Session::new(scripts("SELECT 1; SELECT 2;", Mode::Simple), 1, 0);
    s.begin();
    query(s.next());
    s.answered(&StatementAnswer { failed: true, ..OK });
    assert!(matches!(s.next(), Action::Done));
}

#[test]
fn runtime_errors_fail_the_transaction_with_their_text() {
    let mut s = Session::new(scripts("\\set x 1 / 0\nSELECT 1;", Mode::Simple), 1, 0);
    s.begin();
    assert!(matches!(s.next(), Action::Failed(e) if e == "\\set x: division by zero"));
}

#[test]
fn sleep_and_pipeline_are_steps() {
    let mut s = Session::new(
        scripts(
            "\\set d 5\n\\sleep :d ms\n\\startpipeline\nSELECT 1;\n\\endpipeline",
            Mode::Extended,
        ),
        1,
        0,
    );
    s.begin();
    assert!(matches!(s.next(), Action::Sleep(d) if d == Duration::from_millis(5)));
    assert!(matches!(s.next(), Action::PipelineStart));
    query(s.next());
    assert!(matches!(s.next(), Action::PipelineEnd { stmt: 1 }));
    s.answered(&OK);
    assert!(matches!(s.next(), Action::Done));
}

/// Issue 33: a pipeline's answers come after `\endpipeline`, in order; the second
/// of three failing ends the transaction though the session awaited the third
/// (before, only the awaited query's failure ended it, and the rest went on).
#[test]
fn a_failure_among_a_pipeline_s_answers_ends_the_transaction() {
    let sc = scripts(
        "\\startpipeline\nSELECT 1;\nSELECT 2;\nSELECT 3;\n\\endpipeline\nSELECT 4;\n",
        Mode::Prepared,
    );
    assert_eq!(
        sc.labels(),
        [
            "SELECT 1;",
            "SELECT 2;",
            "SELECT 3;",
            "\\endpipeline",
            "SELECT 4;"
        ],
        "-r's rows: the pipeline's wait under \\endpipeline, as pgbench's"
    );
    let mut s = Session::new(sc, 1, 0);
    s.begin();
    assert!(matches!(s.next(), Action::PipelineStart));
    for n in 0..3 {
        assert_eq!(query(s.next()).0, n);
    }
    assert!(matches!(s.next(), Action::PipelineEnd { stmt: 3 }));
    s.answered(&OK);
    s.answered(&StatementAnswer { failed: true, ..OK });
    assert!(matches!(s.next(), Action::Done), "SELECT 4 is not sent");
    // Without a failure the script goes on after the pipeline.
    s.begin();
    assert!(matches!(s.next(), Action::PipelineStart));
    for _ in 0..3 {
        query(s.next());
    }
    assert!(matches!(s.next(), Action::PipelineEnd { .. }));
    for _ in 0..3 {
        s.answered(&OK);
    }
    assert_eq!(query(s.next()).0, 4);
}

#[test]
fn scripts_are_drawn_by_weight() {
    let w = |name: &str, weight| Weighted {
        name: name.into(),
        weight,
        script: parse(name, "SELECT 1;").unwrap(),
    };
    let sc = Arc::new(Scripts::new(
        vec![w("a", 1), w("b", 3)],
        Mode::Simple,
        vec![],
    ));
    let mut s = Session::new(sc, 7, 0);
    let b = (0..4000).filter(|_| s.begin() == 1).count();
    assert!((2800..3200).contains(&b), "{b}");
}

#[test]
fn mysql_s_dialect_writes_a_question_mark_per_occurrence_with_its_value_repeated() {
    let text = "\\set a 7\n\\set b 9\nSELECT :a, :b, :a;\n";
    let pg = scripts(text, Mode::Prepared);
    let my = Arc::new((*pg).clone().with_dialect(crate::sql::Dialect::Mysql));
    let mut s = Session::new(Arc::clone(&pg), 1, 0);
    s.begin();
    let (_, sql, params, _) = query(s.next());
    assert_eq!((sql.as_str(), params.len()), ("SELECT $1, $2, $1", 2));
    let mut s = Session::new(my, 1, 0);
    s.begin();
    let (_, sql, params, _) = query(s.next());
    assert_eq!(sql, "SELECT ?, ?, ?");
    assert_eq!(
        params,
        vec![Some("7".into()), Some("9".into()), Some("7".into())]
    );
}

#[test]
fn a_retry_draws_the_same_values_until_max_tries_is_spent() {
    let text = "\\set x random(1, 1000000000)\nSELECT :x;\n";
    let sc = Arc::new((*scripts(text, Mode::Simple)).clone().with_max_tries(3));
    let mut s = Session::new(sc, 7, 0);
    s.begin();
    let first = query(s.next()).1;
    assert!(s.retry(), "try 2");
    assert_eq!(query(s.next()).1, first, "the same random value");
    assert!(s.retry(), "try 3");
    assert_eq!(query(s.next()).1, first);
    assert!(!s.retry(), "no fourth try");
    s.begin();
    assert_ne!(query(s.next()).1, first, "the next transaction draws anew");
    // Without --max-tries, never.
    let mut once = Session::new(scripts(text, Mode::Simple), 7, 0);
    once.begin();
    assert!(!once.retry());
}

#[test]
fn a_script_retries_a_serialization_failure_or_deadlock_never_a_duplicate_key() {
    let text = "SELECT 1;\n";
    let sc = Arc::new((*scripts(text, Mode::Simple)).clone().with_max_tries(9));
    let mut s = Session::new(sc, 7, 0);
    s.begin();
    for f in [
        SqlFailure::Pg(*b"40001"),
        SqlFailure::Pg(*b"40P01"),
        SqlFailure::My(1213, *b"40001"),
        SqlFailure::My(1205, *b"HY000"),
    ] {
        assert!(Conversation::retry(&mut s, f), "{f:?}");
    }
    for f in [SqlFailure::Pg(*b"23505"), SqlFailure::My(1062, *b"23000")] {
        assert!(!Conversation::retry(&mut s, f), "{f:?}");
    }
}

/// Issue 33: `-D` took numbers only; pgbench takes any text. `:name` in SQL is the
/// text as given (`007` stays `007`, in every mode), and an expression reads it as
/// pgbench reads text: a number, a boolean, `null`, else an error at run time.
#[test]
fn a_define_s_text_is_substituted_as_given_and_read_as_pgbench_reads_it() {
    let script = "\\set n :num + 1\n\\if :flag\nSELECT :who, :num, :n;\n\\endif\n";
    let defines = |flag: &str| {
        [("who", "O'Brien dept"), ("num", "007"), ("flag", flag)]
            .map(|(n, v)| (n.to_string(), Define::Text(v.to_string())))
            .to_vec()
    };
    let sc = |mode, flag| {
        let w = Weighted {
            name: "t.sql".into(),
            weight: 1,
            script: parse("t.sql", script).unwrap(),
        };
        Arc::new(Scripts::new(vec![w], mode, defines(flag)))
    };
    let mut s = Session::new(sc(Mode::Simple, "yes"), 1, 0);
    s.begin();
    assert_eq!(query(s.next()).1, "SELECT O'Brien dept, 007, 8");
    let mut s = Session::new(sc(Mode::Extended, "t"), 1, 0);
    s.begin();
    let (_, sql, params, _) = query(s.next());
    assert_eq!(sql, "SELECT $1, $2, $3");
    assert_eq!(
        params,
        [
            Some("O'Brien dept".into()),
            Some("007".into()),
            Some("8".into())
        ]
    );
    let mut s = Session::new(sc(Mode::Simple, "off"), 1, 0);
    s.begin();
    assert!(matches!(s.next(), Action::Done), "\\if :flag is false");
    let mut s = Session::new(sc(Mode::Simple, "maybe"), 1, 0);
    s.begin();
    assert!(
        matches!(s.next(), Action::Failed(e) if e.contains("malformed variable \"flag\" value: \"maybe\"")),
    );
    for (text, v) in [
        ("NULL", Some(Value::Null)),
        ("tr", Some(Value::Bool(true))),
        ("Y", Some(Value::Bool(true))),
        ("on", Some(Value::Bool(true))),
        ("of", Some(Value::Bool(false))),
        ("n", Some(Value::Bool(false))),
        ("o", None),
        (" -42 ", Some(Value::Int(-42))),
        ("1.5", Some(Value::Double(1.5))),
        ("99999999999999999999", None),
        ("", None),
    ] {
        assert_eq!(text_value(text), v, "{text:?}");
    }
}
