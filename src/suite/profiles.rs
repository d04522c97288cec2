//! The built-in scenarios (`hakaru suite --profile NAME`), kept as files under
//! `suites/` and embedded: each a documented starting point to print, copy and adapt.

/// Name → the scenario's text.
pub const PROFILES: [(&str, &str); 9] = [
    ("read-heavy", include_str!("../../suites/read-heavy.toml")),
    ("write-heavy", include_str!("../../suites/write-heavy.toml")),
    (
        "fault-tolerance",
        include_str!("../../suites/fault-tolerance.toml"),
    ),
    // YCSB's core workloads over a CouchDB-style API: a load, then the mix.
    ("ycsb-a", include_str!("../../suites/ycsb-a.toml")),
    ("ycsb-b", include_str!("../../suites/ycsb-b.toml")),
    ("ycsb-c", include_str!("../../suites/ycsb-c.toml")),
    ("ycsb-d", include_str!("../../suites/ycsb-d.toml")),
    ("ycsb-e", include_str!("../../suites/ycsb-e.toml")),
    ("ycsb-f", include_str!("../../suites/ycsb-f.toml")),
];

/// The profiles that speak SQL differently: pointed at a `postgres://` target,
/// their workloads are YCSB's on its JDBC table rather than patterns files.
const POSTGRES: [(&str, &str); 2] = [
    (
        "read-heavy",
        include_str!("../../suites/read-heavy.postgres.toml"),
    ),
    (
        "fault-tolerance",
        include_str!("../../suites/fault-tolerance.postgres.toml"),
    ),
];

/// The same over a `mysql://` (`mariadb://`) target: MySQL's words before a phase
/// (`FLUSH TABLES`, not `CHECKPOINT`) and its crash (`kill -9` of the server under
/// its supervisor, not `pg_ctl restart`).
const MYSQL: [(&str, &str); 2] = [
    (
        "read-heavy",
        include_str!("../../suites/read-heavy.mysql.toml"),
    ),
    (
        "fault-tolerance",
        include_str!("../../suites/fault-tolerance.mysql.toml"),
    ),
];

/// The text of profile `name`.
pub fn profile(name: &str) -> Option<&'static str> {
    PROFILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The names, for messages: "read-heavy, write-heavy, fault-tolerance".
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Profile `name`'s text with its workloads pointed at `target` (`--target`): the
/// YCSB profiles and write-heavy name one database URL, replaced wherever a workload
/// gives it, so one profile runs unchanged against a CouchDB-style API, Redis,
/// memcached or the embedded store. The others name hosts and files: refused there.
///
/// A `postgres://` or `mysql://` target takes read-heavy and fault-tolerance in
/// their SQL form for that database (YCSB's workloads on its JDBC table, its own
/// `before_sql` and crash); write-heavy's bulk writers speak HTTP document APIs,
/// refused with where to go instead.
pub fn retarget(name: &str, text: &str, target: &str) -> Result<String, String> {
    if target.is_empty() || target.contains(['"', '\\', '\n']) {
        return Err(format!("--target {target:?}: not a URL"));
    }
    let sql = match target.split("://").next() {
        _ if !crate::workload::ycsb::sql::is_sql(target) => None,
        Some("postgres" | "postgresql") => Some(&POSTGRES),
        _ => Some(&MYSQL),
    };
    let text = match sql.and_then(|s| s.iter().find(|(n, _)| *n == name)) {
        Some((_, sql)) => *sql,
        None if name == "write-heavy" && sql.is_some() => {
            let scheme = target.split("://").next().unwrap_or("postgres");
            return Err(format!(
                "--target: write-heavy's bulk writers speak HTTP document APIs; over \
                 SQL run --profile ycsb-a (update-heavy) or a scenario phase with \
                 url = \"{scheme}://…\" and script = \"file.sql\""
            ));
        }
        None => text,
    };
    const KEY: &str = "url = \"";
    let urls: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(KEY).skip(1))
        .filter_map(|rest| rest.split('"').next())
        .collect();
    match urls.len() {
        1 => {
            let url = urls.first().expect("one");
            Ok(text.replace(&format!("{KEY}{url}\""), &format!("{KEY}{target}\"")))
        }
        _ => Err(format!(
            "--target: profile {name} names hosts and files, not one URL; print it with \
             --print and adapt it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--target` points both phases of a YCSB profile at a store, and only them.
    #[test]
    fn a_profile_is_pointed_at_another_target() {
        let text = retarget(
            "ycsb-a",
            profile("ycsb-a").unwrap(),
            "redis://127.0.0.1:6379",
        )
        .unwrap();
        let s = Scenario::parse(&text, Path::new("ycsb-a")).unwrap();
        for p in &s.phases {
            match &p.workloads[0].source {
                crate::suite::scenario::Source::Ycsb(y) => {
                    assert_eq!(y.url, "redis://127.0.0.1:6379")
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(!text.contains("5984/ycsb-a\""), "{text}");
        let bench = retarget(
            "write-heavy",
            profile("write-heavy").unwrap(),
            "http://10.0.0.1/b",
        );
        assert_eq!(
            bench
                .unwrap()
                .matches("url = \"http://10.0.0.1/b\"")
                .count(),
            3
        );
        let why = retarget("read-heavy", profile("read-heavy").unwrap(), "http://h/").unwrap_err();
        assert!(why.contains("names hosts and files"), "{why}");
        assert!(retarget("ycsb-a", "", "redis://h\" x").is_err());
    }
    use crate::suite::Scenario;
    use std::path::Path;

    /// Profile `name` retargeted at `url`, its text and scenario, every phase's
    /// YCSB workload checked to point at `url`.
    fn ycsb_at(name: &str, url: &str) -> (String, Scenario) {
        let text = retarget(name, profile(name).unwrap(), url).unwrap();
        let s = Scenario::parse(&text, Path::new(name)).unwrap_or_else(|e| panic!("{e}"));
        for p in &s.phases {
            match &p.workloads[0].source {
                crate::suite::scenario::Source::Ycsb(y) => assert_eq!(y.url, url),
                other => panic!("{name}: {other:?}"),
            }
        }
        (text, s)
    }

    /// read-heavy and fault-tolerance over PostgreSQL: YCSB's workloads on every
    /// phase, pointed at the target; write-heavy refused with where to go.
    #[test]
    fn sql_profiles_point_ycsb_at_postgres() {
        let url = "postgres://u@127.0.0.1:5432/db";
        for name in ["read-heavy", "fault-tolerance"] {
            ycsb_at(name, url);
        }
        let why = retarget("write-heavy", profile("write-heavy").unwrap(), url).unwrap_err();
        assert!(why.contains("ycsb-a"), "{why}");
        assert!(POSTGRES.iter().all(|(n, _)| profile(n).is_some()));
    }

    /// Every client of a SQL phase is a connection: read-heavy's spike had 128,
    /// past PostgreSQL's default max_connections (100, 3 kept for superusers), so
    /// 31 logins were refused (53300) and their clients' transactions failed, 12%
    /// of a phase, as the server's fault.
    #[test]
    fn sql_profiles_stay_within_postgresql_s_default_connections() {
        for (name, text) in POSTGRES.iter().chain(&MYSQL) {
            let s = Scenario::parse(text, Path::new(name)).unwrap();
            for p in &s.phases {
                assert!(p.clients <= 97, "{name}, {}: {} clients", p.name, p.clients);
            }
        }
    }

    /// A `mysql://` target got the PostgreSQL forms: fault-tolerance's event ran
    /// `pg_ctl restart` on a MariaDB, read-heavy's warm-up `CHECKPOINT` (a syntax
    /// error there, printed every run), and write-heavy's refusal said PostgreSQL.
    #[test]
    fn sql_profiles_over_mysql_speak_mysql() {
        for url in ["mysql://u@127.0.0.1:3306/db", "mariadb://u@127.0.0.1/db"] {
            for name in ["read-heavy", "fault-tolerance"] {
                let (text, s) = ycsb_at(name, url);
                for p in &s.phases {
                    assert_ne!(p.before_sql.as_deref(), Some("CHECKPOINT"), "{name}");
                }
                let code = text.lines().filter(|l| !l.starts_with('#'));
                assert!(code.clone().all(|l| !l.contains("pg_ctl")), "{text}");
                if name == "fault-tolerance" {
                    assert!(s.events.iter().any(|e| e.run.contains("kill -9")), "{text}");
                }
            }
            let why = retarget("write-heavy", profile("write-heavy").unwrap(), url).unwrap_err();
            assert!(
                !why.contains("PostgreSQL") && why.contains("ycsb-a"),
                "{why}"
            );
        }
        assert!(MYSQL.iter().all(|(n, _)| profile(n).is_some()));
    }

    #[test]
    fn every_profile_is_a_valid_scenario() {
        for (name, text) in PROFILES {
            let s = Scenario::parse(text, Path::new(&format!("profile:{name}")))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!s.phases.is_empty(), "{name}");
        }
        assert!(profile("fault-tolerance")
            .unwrap()
            .contains("kill -STOP {pid:node1}"));
        assert_eq!(profile("ycsb-z"), None);
        // Each YCSB profile loads, then runs its own workload over the same records.
        for k in ["a", "b", "c", "d", "e", "f"] {
            let name = format!("ycsb-{k}");
            let s = Scenario::parse(profile(&name).unwrap(), Path::new(&name)).unwrap();
            let ycsb: Vec<_> = s
                .phases
                .iter()
                .map(|p| match &p.workloads[0].source {
                    crate::suite::scenario::Source::Ycsb(y) => y.clone(),
                    other => panic!("{name}: {other:?}"),
                })
                .collect();
            assert_eq!(ycsb[0].core, crate::workload::ycsb::Core::Load, "{name}");
            assert_eq!(ycsb[1].core.as_str(), k);
            assert_eq!(
                (ycsb[0].records, ycsb[0].url.clone()),
                (ycsb[1].records, ycsb[1].url.clone())
            );
            assert_eq!(ycsb[1].distribution, ycsb[1].core.default_distribution());
        }
    }
}
