//! How each phase connects and what runs before it: the scenario's `http2`,
//! `streams` and `pipeline`, overridden key by key by a phase's own, and a phase's
//! `before` command. Checked as `run` checks `--http2`, `--streams`, `--pipeline`
//! and `--before-step`, each refusal naming the file, the line and the key.

use toml::Spanned;

use super::file::{FilePhase, FileScenario};
use super::scenario::{Locator, Phase, ScenarioError, Source};
use crate::engine::{ConnectionSettings, MAX_STREAMS};
use crate::runner::before::{StepCommand, DEFAULT_LIMIT};
use crate::spec::kv::MAX_PIPELINE;

/// Whether a workload talks to a key-value store (`redis://`, `memcached://`).
fn is_store(source: &Source) -> bool {
    let url = match source {
        Source::Url(u) => u.as_str(),
        Source::Ycsb(y) => y.url.as_str(),
        _ => "",
    };
    crate::http::url::kv_scheme(url).is_some()
}

/// The first `postgres://` URL among a phase's workloads.
pub(crate) fn sql_url(workloads: &[super::scenario::WorkloadSpec]) -> Option<&str> {
    workloads.iter().find_map(|w| match &w.source {
        Source::Script { url, .. } => Some(url.as_str()),
        Source::Ycsb(y) if crate::workload::ycsb::sql::is_sql(&y.url) => Some(y.url.as_str()),
        _ => None,
    })
}

impl Locator<'_> {
    /// A count key (`streams`, `pipeline`) in `1..=max`.
    fn count(&self, v: &Spanned<i64>, key: &str, max: usize) -> Result<usize, ScenarioError> {
        match usize::try_from(*v.get_ref()) {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => {
                let why = format!("{} is not in 1..={max}", v.get_ref());
                Err(self.error(v.span(), key, &why))
            }
        }
    }

    /// Every phase's connection (its own keys win over the scenario's), and the
    /// scenario's own, which a run of bulk writers or YCSB alone starts from.
    pub(super) fn connections(
        &self,
        file: &FileScenario,
        phases: &mut [Phase],
    ) -> Result<ConnectionSettings, ScenarioError> {
        let http2 = file.http2.as_ref().is_some_and(|h| *h.get_ref());
        let streams = match &file.streams {
            None => 1,
            Some(s) if !http2 => {
                return Err(self.error(s.span(), "streams", "needs `http2 = true`"))
            }
            Some(s) => self.count(s, "streams", MAX_STREAMS)?,
        };
        if let Some(p) = &file.pipeline {
            self.count(p, "pipeline", MAX_PIPELINE)?;
        }
        for (phase, p) in phases.iter_mut().zip(&file.phases) {
            self.phase_connection(file, p.get_ref(), phase)?;
        }
        Ok(ConnectionSettings {
            http2,
            streams,
            coalesce: None,
        })
    }

    /// One phase's `http2`, `streams` and `pipeline`: a phase's key wins over the
    /// scenario's; the scenario's `streams` goes with its `http2` only.
    fn phase_connection(
        &self,
        file: &FileScenario,
        p: &FilePhase,
        phase: &mut Phase,
    ) -> Result<(), ScenarioError> {
        // The key that decided, for the error's line: the phase's if it has one.
        let http2_key = p.http2.as_ref().or(file.http2.as_ref());
        let http2 = http2_key.is_some_and(|h| *h.get_ref());
        let streams = match (&p.streams, &file.streams) {
            (Some(s), _) if !http2 => {
                let why = "needs `http2 = true` (the phase's or the scenario's)";
                return Err(self.error(s.span(), "streams", why));
            }
            (Some(s), _) => self.count(s, "streams", MAX_STREAMS)?,
            // Given only beside the scenario's own `http2 = true` (checked above).
            (None, Some(s)) if http2 => self.count(s, "streams", MAX_STREAMS)?,
            _ => 1,
        };
        // The scenario's `pipeline` is for its store phases: a phase of HTTP
        // workloads alone goes without it.
        let stores = phase.workloads.iter().any(|w| is_store(&w.source));
        let pipeline_key = (p.pipeline.as_ref()).or(file.pipeline.as_ref().filter(|_| stores));
        let pipeline = match pipeline_key {
            Some(k) => Some(self.count(k, "pipeline", MAX_PIPELINE)?),
            None => None,
        };
        let name = &phase.name;
        if let (Some(h), true) = (http2_key, http2) {
            if file.keep_alive == Some(false) {
                let why = "HTTP/2 keeps its connections: leave out `keep_alive = false`";
                return Err(self.error(h.span(), "http2", why));
            }
            if let Some(w) = phase.workloads.iter().find(|w| is_store(&w.source)) {
                let why = format!(
                    "phase \"{name}\": {} speaks its own protocol, not HTTP/2",
                    w.source.describe()
                );
                return Err(self.error(h.span(), "http2", &why));
            }
            if let Some(k) = pipeline_key {
                let why = format!(
                    "phase \"{name}\" speaks HTTP/2; `pipeline` is for redis:// and \
                     memcached:// workloads (as --pipeline with --http2 is refused)"
                );
                return Err(self.error(k.span(), "pipeline", &why));
            }
        }
        if let Some(k) = pipeline_key {
            if let Some(w) = phase.workloads.iter().find(|w| !is_store(&w.source)) {
                let why = format!(
                    "phase \"{name}\": {} speaks HTTP; `pipeline` is for redis:// and \
                     memcached:// workloads (set it in the phases that have them)",
                    w.source.describe()
                );
                return Err(self.error(k.span(), "pipeline", &why));
            }
        }
        phase.pipeline = pipeline.map(|n| n as u64);
        phase.connection = match (http2, pipeline) {
            (true, _) => ConnectionSettings {
                http2: true,
                streams,
                coalesce: None,
            },
            (false, Some(depth)) => ConnectionSettings {
                http2: false,
                streams: depth,
                coalesce: None,
            },
            (false, None) => ConnectionSettings::default(),
        };
        Ok(())
    }

    /// A phase's `before_sql`: SQL text for the phase's first `postgres://` workload.
    pub(super) fn before_sql(
        &self,
        p: &FilePhase,
        workloads: &[super::scenario::WorkloadSpec],
    ) -> Result<Option<String>, ScenarioError> {
        let Some(sql) = &p.before_sql else {
            return Ok(None);
        };
        if sql.get_ref().trim().is_empty() {
            return Err(self.error(sql.span(), "before_sql", "give the SQL to run"));
        }
        if sql_url(workloads).is_none() {
            return Err(self.error(
                sql.span(),
                "before_sql",
                "runs on the phase's SQL target (postgres://, mysql://), and the phase has none",
            ));
        }
        Ok(Some(sql.get_ref().clone()))
    }

    /// A phase's `before`, `before_timeout` and `before_may_fail`, checked as
    /// `--before-step`, `--before-timeout` and `--before-may-fail` are.
    pub(super) fn phase_before(
        &self,
        p: &FilePhase,
        name: &str,
    ) -> Result<Option<StepCommand>, ScenarioError> {
        let limit = match &p.before_timeout {
            Some(t) => {
                let d = self.positive(t, "before_timeout")?;
                if d > crate::spec::before::MAX_LIMIT {
                    let max = crate::spec::before::MAX_LIMIT.as_secs();
                    return Err(self.error(t.span(), "before_timeout", &format!("at most {max}s")));
                }
                Some((d, t.span()))
            }
            None => None,
        };
        let may_fail = p.before_may_fail.as_ref();
        let Some(command) = &p.before else {
            let orphan = (limit.as_ref().map(|(_, s)| (s.clone(), "before_timeout")))
                .or(may_fail.map(|m| (m.span(), "before_may_fail")));
            if let Some((span, key)) = orphan {
                return Err(self.error(span, key, "applies to `before`, which this phase lacks"));
            }
            return Ok(None);
        };
        if command.get_ref().trim().is_empty() {
            let why = "the command is empty; give the shell command to run (sh -c)";
            return Err(self.error(command.span(), "before", why));
        }
        Ok(Some(StepCommand {
            command: command.get_ref().clone(),
            limit: limit.map_or(DEFAULT_LIMIT, |(d, _)| d),
            may_fail: may_fail.is_some_and(|m| *m.get_ref()),
            name: format!("`before` command of phase \"{name}\""),
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::engine::ConnectionSettings;
    use crate::suite::Scenario;

    fn parse(text: &str) -> Result<Scenario, String> {
        Scenario::parse(text, Path::new("s.toml")).map_err(|e| e.to_string())
    }

    fn phase(name: &str, keys: &str, url: &str) -> String {
        format!(
            "[[phase]]\nname = \"{name}\"\nduration = \"1s\"\nclients = 4\n{keys}\n\
             [[phase.workload]]\nurl = \"{url}\"\n"
        )
    }

    const HTTP: &str = "http://127.0.0.1:1/";
    const REDIS: &str = "redis://127.0.0.1:1";

    #[test]
    fn a_phase_s_keys_win_over_the_scenario_s() {
        let s = parse(&format!(
            "http2 = true\nstreams = 4\npipeline = 8\n{}{}{}{}",
            phase("a", "", HTTP),
            phase("b", "http2 = false", HTTP),
            phase("c", "streams = 2", HTTP),
            phase("d", "http2 = false", REDIS),
        ))
        .expect("valid");
        let got: Vec<ConnectionSettings> = s.phases.iter().map(|p| p.connection).collect();
        let c = |http2, streams| ConnectionSettings {
            http2,
            streams,
            coalesce: None,
        };
        assert_eq!(got, vec![c(true, 4), c(false, 1), c(true, 2), c(false, 8)]);
        // The scenario's pipeline is its store phases', not its HTTP phases'.
        let p: Vec<Option<u64>> = s.phases.iter().map(|p| p.pipeline).collect();
        assert_eq!(p, vec![None, None, None, Some(8)]);
        assert_eq!(s.connection, c(true, 4));
    }

    #[test]
    fn a_phase_s_before_command_is_read_with_its_limit() {
        let s = parse(&format!(
            "{}{}",
            phase("a", "", HTTP),
            phase(
                "b",
                "before = \"true\"\nbefore_timeout = \"5s\"\nbefore_may_fail = true",
                HTTP
            )
        ))
        .expect("valid");
        assert!(s.phases[0].before.is_none());
        let b = s.phases[1].before.as_ref().expect("read");
        assert_eq!(
            (b.command.as_str(), b.limit, b.may_fail),
            ("true", Duration::from_secs(5), true)
        );
        assert_eq!(b.name, "`before` command of phase \"b\"");
        let e = parse(&phase(
            "a",
            "before = \"true\"\nbefore_timeout = \"2h\"",
            HTTP,
        ))
        .unwrap_err();
        assert_eq!(e, "s.toml:6: key `before_timeout`: at most 3600s");
    }

    #[test]
    fn a_store_and_http_in_one_phase_refuse_the_scenario_s_pipeline() {
        let text = format!(
            "pipeline = 8\n{}[[phase.workload]]\nurl = \"{HTTP}\"\n",
            phase("mixed", "", REDIS)
        );
        let e = parse(&text).unwrap_err();
        assert!(
            e.starts_with(
                "s.toml:1: key `pipeline`: phase \"mixed\": http://127.0.0.1:1/ speaks HTTP"
            ),
            "{e}"
        );
    }

    const PG: &str = "postgres://u:secret@127.0.0.1:1/db";

    /// A phase's `postgres://` workload: a script beside the scenario, YCSB on its
    /// JDBC table, `before_sql` on the phase's database; each misuse named by key.
    #[test]
    fn a_postgres_phase_has_a_script_or_ycsb_and_its_before_sql() {
        use crate::suite::scenario::Source;
        let s = Scenario::parse(
            &format!(
                "{}script = \"tx.sql\"\nmode = \"prepared\"\n\
                 [[phase]]\nname = \"y\"\nduration = \"1s\"\nclients = 1\n\
                 before_sql = \"CHECKPOINT\"\n[[phase.workload]]\n\
                 ycsb = {{ url = \"{PG}\", workload = \"a\", table = \"t1\" }}\n",
                phase("s", "", PG)
            ),
            Path::new("dir/s.toml"),
        )
        .expect("valid");
        match &s.phases[0].workloads[0].source {
            Source::Script { script, mode, .. } => {
                assert_eq!(script, Path::new("dir/tx.sql"));
                assert_eq!(mode.as_deref(), Some("prepared"));
            }
            other => panic!("{other:?}"),
        }
        assert!(!s.phases[0].workloads[0]
            .source
            .describe()
            .contains("secret"));
        assert_eq!(s.phases[1].before_sql.as_deref(), Some("CHECKPOINT"));
        match &s.phases[1].workloads[0].source {
            Source::Ycsb(y) => assert_eq!(y.table, "t1"),
            other => panic!("{other:?}"),
        }
        assert!(s
            .input_files()
            .contains(&("the script", Path::new("dir/tx.sql"))));
        let e = parse(&phase("s", "", PG)).unwrap_err();
        assert!(
            e.contains("key `script`: a SQL url (postgres://, mysql://) needs"),
            "{e}"
        );
        let e = parse(&format!("{}script = \"a.sql\"\n", phase("s", "", HTTP))).unwrap_err();
        assert!(
            e.contains("key `script`: a script goes with a SQL url"),
            "{e}"
        );
        let e = parse(&phase("s", "before_sql = \"CHECKPOINT\"", HTTP)).unwrap_err();
        assert!(
            e.contains("key `before_sql`: runs on the phase's SQL target"),
            "{e}"
        );
        let e = parse(&format!("{}mode = \"prepared\"\n", phase("s", "", HTTP))).unwrap_err();
        assert!(e.contains("key `mode`"), "{e}");
        // An unknown mode named by the file's line and key, not as `-M/--query-mode`.
        let e = parse(&format!(
            "{}script = \"tx.sql\"\nmode = \"fast\"\n",
            phase("s", "", PG)
        ))
        .unwrap_err();
        assert!(
            e.contains(":9: key `mode`: \"fast\": use simple, extended or prepared"),
            "{e}"
        );
        let bad_table = "[[phase]]\nname = \"y\"\nduration = \"1s\"\nclients = 1\n\
             [[phase.workload]]\nycsb = { url = \"postgres://u@h/db\", workload = \"c\", table = \"a;b\" }\n";
        assert!(parse(bad_table).unwrap_err().contains("key `ycsb.table`"));
        let redis_table = bad_table
            .replace("postgres://u@h/db", "redis://h:1")
            .replace("a;b", "t");
        assert!(parse(&redis_table)
            .unwrap_err()
            .contains("a table is for a SQL url (postgres://, mysql://)"));
    }
}
