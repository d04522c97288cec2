use super::*;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn err(s: &str) -> String {
    parse(&args(s)).unwrap_err().0
}

#[test]
fn a_sysbench_command_line_is_taken_as_written() {
    let p = parse(&args(
        "oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5433 \
         --pgsql-user=bench --pgsql-password=secret --pgsql-db=b --tables=4 --table-size=1000 \
         --threads=8 --time=30 --rand-type=uniform --skip-trx --db-ps-mode=disable run",
    ))
    .unwrap();
    assert_eq!(p.command, SbCommand::Run);
    assert_eq!((p.driver, p.oltp.dialect), ("pgsql", Dialect::Postgres));
    assert_eq!(p.conn.host, "127.0.0.1");
    assert_eq!((p.conn.port, p.conn.user.as_str()), (5433, "bench"));
    assert_eq!(p.conn.password.as_deref(), Some("secret"));
    assert!(!format!("{p:?}").contains("secret"));
    assert_eq!(
        (p.oltp.tables, p.oltp.table_size, p.oltp.threads),
        (4, 1000, 8)
    );
    assert!(p.oltp.skip_trx && !p.oltp.prepared);
    assert_eq!(p.oltp.rand.dist, Dist::Uniform);
    assert_eq!(p.time, Some(Duration::from_secs(30)));
    assert_eq!(p.events, None);
}

#[test]
fn sysbenchs_defaults_hold_when_nothing_is_given() {
    let p = parse(&args("oltp_point_select prepare")).unwrap();
    assert_eq!(p.driver, "mysql");
    assert_eq!((p.conn.host.as_str(), p.conn.port), ("localhost", 3306));
    assert_eq!(
        (p.conn.user.as_str(), p.conn.db.as_str()),
        ("sbtest", "sbtest")
    );
    assert_eq!(p.time, Some(Duration::from_secs(10)));
    assert_eq!((p.percentile, p.oltp.table_size), (95, 10_000));
    assert_eq!(p.oltp.rand.dist, Dist::Special);
    assert!(p.oltp.prepared && p.oltp.auto_inc && p.oltp.create_secondary);
    // Options and positionals in any order; --flag=off; hakaru's own -o.
    let p = parse(&args(
        "--auto-inc=off run --events=100 --time=0 oltp_insert -o r.csv --threshold p99<50ms",
    ))
    .unwrap();
    assert!(!p.oltp.auto_inc);
    assert_eq!((p.events, p.time), (Some(100), None));
    assert_eq!(p.output, Some(PathBuf::from("r.csv")));
    assert_eq!(p.thresholds.len(), 1);
}

#[test]
fn bad_options_are_refused_by_name() {
    assert!(err("oltp_read_write --bogus=1 run").contains("--bogus: not an option"));
    assert!(err("oltp_read_write --threads=x run").contains("--threads=x"));
    assert!(err("oltp_read_write --rand-type=normal run").contains("--rand-type=normal"));
    assert!(err("oltp_read_write --db-driver=pgsql --mysql-host=h run").contains("--mysql-host"));
    assert!(err("oltp_read_write --time=0 run").contains("never end"));
    assert!(err("oltp_read_write").contains("no command"));
    assert!(err("tpcc run").contains("not one of sysbench's tests"));
    assert!(err("select_random_points --tables=2 cleanup").contains("--tables=1 alone"));
    assert!(err("oltp_read_write --skip-trx=maybe run").contains("on or off"));
    assert!(err("oltp_read_write --tables run").contains("needs a value"));
    assert!(err("oltp_read_write --mysql-ignore-errors=12x run").contains("12x"));
    assert!(
        err("oltp_read_write --db-driver=pgsql --mysql-ignore-errors=all run")
            .contains("pgsql driver takes no list")
    );
}

#[test]
fn mysql_ignore_errors_is_sysbench_s_list() {
    let p = parse(&args("oltp_read_write run")).unwrap();
    assert_eq!(p.oltp.ignore, Ignore::Codes(vec![1213, 1020, 1205]));
    let p = parse(&args("oltp_read_write --mysql-ignore-errors=all run")).unwrap();
    assert_eq!(p.oltp.ignore, Ignore::All);
    let p = parse(&args("oltp_read_write --mysql-ignore-errors=none run")).unwrap();
    assert_eq!(p.oltp.ignore, Ignore::Codes(vec![]));
    let p = parse(&args("oltp_insert --mysql-ignore-errors=1062,1213 run")).unwrap();
    assert_eq!(p.oltp.ignore, Ignore::Codes(vec![1062, 1213]));
}

#[test]
fn a_lua_script_of_ones_own_points_to_hakarus_sql_scripts() {
    let e = err("./my_test.lua --threads=4 run");
    assert!(e.contains("not a Lua script"), "{e}");
    assert!(e.contains("hakaru run postgres://"), "{e}");
}

/// `hakaru sysbench run` was built through a placeholder script (`SELECT 1;`) and its
/// workload swapped afterwards: the run's options now carry the test itself.
#[test]
fn a_sysbench_run_is_built_with_its_test_never_a_placeholder_script() {
    use crate::spec::{Load, RequestOptions, RunOptions, SessionOptions};
    use crate::workload::kv::RunWorkload;
    let p = parse(&args(
        "oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3307 \
         --mysql-password=hunter2 --threads=3 --events=10 run",
    ))
    .unwrap();
    let options = RunOptions {
        request: RequestOptions {
            sysbench: Some(SysbenchLoad::of(&p).unwrap()),
            ..RequestOptions::default()
        },
        session: SessionOptions::default(),
        load: Load::Step {
            clients: 3,
            duration: None,
            requests: Some(10),
            rate: None,
        },
        interval: std::time::Duration::ZERO,
        output_path: None,
        command_line: Vec::new(),
    };
    let ready = options.build().unwrap();
    let RunWorkload::Sysbench(w) = ready.workload.as_ref() else {
        panic!("not the sysbench workload");
    };
    assert_eq!(w.options().test.name(), "oltp_read_only");
    let settings = &ready.run.settings;
    assert_eq!(settings.patterns_source, "sysbench oltp_read_only");
    assert_eq!(settings.n_patterns, 1);
    let infos = crate::engine::Workload::request_infos(ready.workload.as_ref());
    assert_eq!(infos[0].url, "oltp_read_only");
    assert!(!format!("{:?}", options.request).contains("hunter2"));
}

/// Bug: a transaction of more than 5 s (a lock wait MySQL ends at 50 s with 1205,
/// a big batch) was counted hakaru's timeout, where sysbench has no limit.
#[test]
fn a_transaction_s_limit_is_the_drop_in_s_unless_timeout_says() {
    let p = parse(&args("oltp_point_select run")).unwrap();
    assert_eq!(p.timeout, crate::spec::sql::DROP_IN_TIMEOUT);
    assert!(p.timeout > Duration::from_secs(50));
    let p = parse(&args("oltp_point_select --timeout=2s run")).unwrap();
    assert_eq!(p.timeout, Duration::from_secs(2));
    let p = parse(&args("oltp_point_select --timeout 1500ms run")).unwrap();
    assert_eq!(p.timeout, Duration::from_millis(1500));
    assert!(err("oltp_point_select --timeout=soon run").starts_with("--timeout=soon: "));
}

/// Bug: sysbench 1.0.20's deprecated spellings (`--num-threads`, `--max-time`,
/// `--max-requests`, `--tx-rate`, `--test=NAME`), which it runs with a warning
/// (once each, in its own order), were refused as unknown options.
#[test]
fn sysbench_s_deprecated_spellings_are_taken_with_its_warnings() {
    let p = parse(&args(
        "--test=oltp_read_only --tx-rate=20 --num-threads=4 --max-time=3 --max-requests=50 --num-threads=4 run",
    ))
    .unwrap();
    assert_eq!(p.oltp.test, Test::ReadOnly);
    assert_eq!(p.oltp.threads, 4);
    assert_eq!(
        (p.time, p.events, p.rate),
        (Some(Duration::from_secs(3)), Some(50), Some(20.0))
    );
    assert_eq!(
        p.warnings,
        [
            "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.",
            "WARNING: --num-threads is deprecated, use --threads instead",
            "WARNING: --max-requests is deprecated, use --events instead",
            "WARNING: --max-time is deprecated, use --time instead",
            "WARNING: --tx-rate is deprecated, use --rate instead",
        ]
    );
    assert!(parse(&args("oltp_read_only run"))
        .unwrap()
        .warnings
        .is_empty());
}

/// Bug: sysbench's general options with nothing to change here (`--forced-shutdown`,
/// `--thread-stack-size`, `--debug`, a bare `--db-debug`, the MySQL driver's
/// switches when off) were refused; the ones hakaru does not do now say why.
#[test]
fn sysbench_s_inert_options_are_taken_and_the_ones_not_done_say_why() {
    let p = parse(&args(
        "oltp_read_write --forced-shutdown=off --thread-stack-size=64K --debug --validate=off \
         --db-debug --verbosity=3 --mysql-ssl=off --mysql-compression=off --mysql-dry-run=off \
         --mysql-debug=off run",
    ));
    assert!(p.is_ok(), "{p:?}");
    assert!(err("oltp_read_write --mysql-dry-run=on run").contains("--mysql-dry-run=on: not done"));
    assert!(err("oltp_read_write --mysql-ssl run").contains("ssl-mode=required"));
    assert!(err("oltp_read_write --mysql-socket=/tmp/s run").contains("TCP only"));
    assert!(err("oltp_read_write --report-checkpoints=5 run").contains("not done"));
    assert!(err("oltp_read_write --config-file=x run").contains("command line"));
}

/// Bug: `--mysql-storage-engine` (oltp_common's option) was refused.
#[test]
fn mysql_storage_engine_names_the_tables_engine() {
    let p = parse(&args(
        "oltp_read_write --mysql-storage-engine=myisam prepare",
    ))
    .unwrap();
    assert_eq!(p.oltp.engine, "myisam");
    let create = &crate::sql::sysbench::ddl::prepare(&p.oltp)[0].create;
    assert!(create.ends_with("/*! ENGINE = myisam */"), "{create}");
    assert_eq!(
        parse(&args("oltp_read_write run")).unwrap().oltp.engine,
        "innodb"
    );
    assert!(err("oltp_read_write --mysql-storage-engine=x;y run").contains("storage engine"));
}

/// Bug: `hakaru sysbench --version` said "no command" where sysbench prints its version.
#[test]
fn version_is_a_command_as_in_sysbench() {
    assert_eq!(
        parse(&args("--version")).unwrap().command,
        SbCommand::Version
    );
}

/// Bug: `select_random_points --tables=2 prepare` and `run` were refused, where
/// sysbench prepares two tables and runs on sbtest1 (only its cleanup refuses).
#[test]
fn select_random_tests_take_more_tables_but_for_cleanup_as_sysbench_does() {
    for cmd in ["prepare", "run"] {
        let p = parse(&args(&format!("select_random_ranges --tables=3 {cmd}"))).unwrap();
        assert_eq!(p.oltp.tables, 3);
        assert_eq!(crate::sql::sysbench::ddl::prepare(&p.oltp).len(), 3);
        assert_eq!(crate::sql::sysbench::ddl::run_table_count(&p.oltp), 1);
    }
    assert!(err("select_random_points --tables=3 cleanup").contains("cleanup takes --tables=1"));
}

/// Bug: sysbench's own scripts by the path it installs them at
/// (`sysbench /usr/share/sysbench/oltp_read_write.lua … run`, as older guides write
/// it) were refused as a Lua script of one's own.
#[test]
fn sysbench_s_installed_scripts_by_path_are_its_built_in_tests() {
    for path in [
        "/usr/share/sysbench/oltp_read_write.lua",
        "/usr/local/share/sysbench/oltp_read_write.lua",
    ] {
        let p = parse(&args(&format!("{path} run"))).unwrap();
        assert_eq!(p.oltp.test, Test::ReadWrite, "{path}");
    }
    for own in [
        "./oltp_read_write.lua",
        "/home/me/oltp_read_write.lua",
        "/usr/share/sysbench/tpcc.lua",
    ] {
        assert!(
            err(&format!("{own} run")).contains("not a Lua script"),
            "{own}"
        );
    }
}

/// Bug: `prewarm`, which sysbench runs on MySQL, was refused.
#[test]
fn prewarm_is_mysql_s_as_in_sysbench() {
    let p = parse(&args("oltp_read_write --tables=2 prewarm")).unwrap();
    assert_eq!(p.command, SbCommand::Prewarm);
    assert!(err("oltp_read_write --db-driver=pgsql prewarm").contains("MySQL's OLTP tables only"));
    assert!(err("bulk_insert prewarm").contains("MySQL's OLTP tables only"));
}
