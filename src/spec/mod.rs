//! The run specification: what a request-response run is asked to do, as plain options
//! (no clap: `cli` fills them from flags, `demo` from the tutorial's fixed settings, a
//! library user by hand), validated in ONE place and turned into everything the runner
//! needs — the steps, settings and outputs ([`RunSpec`](crate::runner::RunSpec)), the
//! workload and the engine's configuration ([`Ready`]).
//!
//! Every range check lives here, with an error that names the flag the value came
//! from. [`RunOptions::check`] runs the checks that need nothing from outside (numbers,
//! durations, rates, headers) and [`RunOptions::build`] runs them first, before it reads
//! a patterns file, resolves a host or loads a certificate; nothing here sends load.
//! The parsers of durations, counts and lists of rates are here too ([`parse`]), so
//! `cli` only names them.
//!
//! `options`: the plain options and the request's and session's own checks; `build`:
//! them checked whole and built into a [`Ready`]; `error`: [`SpecError`].

pub mod ab;
pub mod before;
mod build;
pub mod bulk;
mod bulk_check;
mod bulk_template;
mod error;
pub mod find_max;
pub mod kv;
mod load;
mod options;
mod parse;
pub mod pgbench;
pub mod rate;
pub mod sql;
mod start;
pub mod sysbench;
pub mod threshold;

use std::time::Duration;

use crate::engine::{StepSpec, MAX_DURATION};
use crate::redact::Redactor;
use crate::result::Shard;

pub use build::Ready;
pub use error::SpecError;
pub use load::Load;
pub use options::{Body, RequestOptions, RunOptions, SessionOptions};
pub use parse::{parse_count, parse_duration, parse_ok_status, parse_shard};
pub use rate::{parse_profile, RateSyntaxError, RateText};
pub use start::{parse_start_at, start_moment, StartAt, START_AT_TOLERANCE};

/// The most worker threads a run may ask for (`--threads`): far above any machine's
/// cores, low enough that a typo does not try to spawn a hundred thousand threads.
pub const MAX_THREADS: usize = 4096;
/// The most clients (connections) one step may have (`-c`, `--end-n-clients`).
pub const MAX_CLIENTS: usize = 1_000_000;
/// The most slowest or fastest requests a step may list: each is kept per worker.
pub const MAX_LISTED: usize = 10_000;
/// The most steps a run may have, all rounds together: each is a row of the result,
/// kept in memory and rewritten after every step.
pub const MAX_STEPS: usize = 10_000;
/// A step's length when `run` is given neither `-d` nor `-n`.
pub const DEFAULT_RUN_DURATION: Duration = Duration::from_secs(10);

/// Why `--coalesce` is refused on an https:// target.
pub const COALESCE_NEEDS_PLAIN: &str = "--coalesce: an https:// target's answers are not stamped with their arrival (TLS reads go through rustls); it works on plain http:// targets";

/// One shard's part of a step: its share of the clients, and of a closed-model `-n`
/// budget. The open model's timetable is shared by index in the engine (the lane), so
/// its `-n` limit stays the step's own.
pub fn share_step(step: &mut StepSpec, shard: Shard) -> Result<(), SpecError> {
    let part = |what: &'static str, total: u64| -> Result<u64, SpecError> {
        match shard.share(total) {
            0 => Err(SpecError::ShardTooSmall {
                shard,
                what,
                total,
                count: shard.count,
            }),
            n => Ok(n),
        }
    };
    step.n_clients = part("clients", step.n_clients as u64)? as usize;
    if step.rate.is_none() {
        if let Some(n) = step.n_requests {
            step.n_requests = Some(part("requests", n)?);
        }
    }
    Ok(())
}

fn check_clients(flag: &'static str, n: usize) -> Result<(), SpecError> {
    if n == 0 {
        return Err(SpecError::AtLeast { flag, min: 1 });
    }
    if n > MAX_CLIENTS {
        return Err(SpecError::AtMost {
            flag,
            max: MAX_CLIENTS as u64,
            found: n as u64,
        });
    }
    Ok(())
}

fn positive_duration(flag: &'static str, d: Duration) -> Result<(), SpecError> {
    if d.is_zero() {
        return Err(SpecError::NotPositive { flag });
    }
    at_most_duration(flag, d)
}

fn at_most_duration(flag: &'static str, d: Duration) -> Result<(), SpecError> {
    if d > MAX_DURATION {
        return Err(SpecError::TooLong {
            flag,
            max: MAX_DURATION,
            why: "30 days",
        });
    }
    Ok(())
}

/// `-H "Name: value"` into its name and value.
pub fn parse_header(h: &str) -> Result<(String, String), SpecError> {
    let (k, v) = h
        .split_once(':')
        .ok_or_else(|| SpecError::HeaderNoColon(h.to_string()))?;
    let k = k.trim();
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(SpecError::HeaderName {
            header: h.to_string(),
            name: k.to_string(),
        });
    }
    if v.contains(['\r', '\n']) {
        // The message shows the header; a secret value stays out of it.
        return Err(SpecError::HeaderLineBreak(
            Redactor::default().header_line(h),
        ));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// A seed that differs between runs: the clock and the process id.
fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::ProbeKind;
    use crate::result::{LoadModel, Mode};

    fn run_options(load: Load) -> RunOptions {
        RunOptions {
            request: RequestOptions {
                url: Some("http://127.0.0.1:1/".into()),
                ..RequestOptions::default()
            },
            session: SessionOptions::default(),
            load,
            interval: Duration::ZERO,
            output_path: None,
            command_line: vec!["hakaru".into()],
        }
    }

    fn step(clients: usize) -> Load {
        Load::Step {
            clients,
            duration: None,
            requests: None,
            rate: None,
        }
    }

    fn ramp(start: usize, end: usize, step: usize, duration: Duration) -> Load {
        Load::Clients {
            start,
            end,
            step,
            duration,
            until_saturated: false,
        }
    }

    /// The message of the refusal, which must name `flag`.
    fn refused(o: &RunOptions, flag: &str) -> String {
        let e = o.check().expect_err("should be refused").to_string();
        assert!(e.contains(flag), "{e:?} should name {flag}");
        e
    }

    #[test]
    fn the_load_refuses_what_it_cannot_run() {
        refused(&run_options(step(0)), "-c must be at least 1");
        refused(&run_options(step(MAX_CLIENTS + 1)), "-c must be at most");
        let mut o = run_options(step(1));
        o.load = Load::Step {
            clients: 1,
            duration: Some(Duration::ZERO),
            requests: None,
            rate: None,
        };
        refused(&o, "-d must be positive");
        o.load = Load::Step {
            clients: 1,
            duration: None,
            requests: Some(0),
            rate: None,
        };
        refused(&o, "-n must be at least 1");
        for rate in ["1e-20", "-5", "fast", "1e9"] {
            o.load = Load::Step {
                clients: 1,
                duration: None,
                requests: None,
                rate: Some(rate.into()),
            };
            refused(&o, &format!("--rate {rate}"));
        }
        let d = Duration::from_secs(1);
        refused(&run_options(ramp(0, 1, 0, d)), "--step must be at least 1");
        refused(&run_options(ramp(5, 2, 1, d)), "--end-n-clients (2)");
        refused(&run_options(ramp(0, 0, 1, d)), "--end-n-clients");
        refused(&run_options(ramp(0, 1, 1, Duration::ZERO)), "--duration");
        refused(
            &run_options(ramp(0, 1, 1, MAX_DURATION * 2)),
            "--duration must be at most",
        );
        refused(&run_options(ramp(0, MAX_CLIENTS, 1, d)), "--step");
        refused(
            &run_options(ramp(0, MAX_CLIENTS + 1, 1, d)),
            "--end-n-clients must be at most",
        );
        let rates = |rates: &str, clients| {
            run_options(Load::Rates {
                rates: rates.into(),
                clients,
                duration: d,
            })
        };
        refused(&rates("100", 0), "--end-n-clients");
        refused(&rates("1e-20", 1), "--rate");
        let mut o = run_options(ramp(0, 1, 1, d));
        o.interval = MAX_DURATION * 2;
        refused(&o, "--interval");
    }

    #[test]
    fn request_and_session_flags_are_checked() {
        let with = |f: &dyn Fn(&mut RunOptions)| {
            let mut o = run_options(step(1));
            f(&mut o);
            o
        };
        refused(&with(&|o| o.request.threads = 100_000), "--threads");
        refused(&with(&|o| o.request.n_slow = 10_001), "--n-slow-requests");
        refused(&with(&|o| o.request.n_fast = 10_001), "--n-fast-requests");
        refused(
            &with(&|o| o.request.timeout = Duration::ZERO),
            "--timeout must be positive",
        );
        refused(
            &with(&|o| o.request.timeout = Duration::from_secs(3601)),
            "--timeout must be at most 3600 s",
        );
        refused(&with(&|o| o.request.wait = MAX_DURATION * 2), "--wait");
        refused(&with(&|o| o.request.headers = vec!["nope".into()]), "-H");
        refused(
            &with(&|o| o.request.headers = vec!["A b: c".into()]),
            "-H \"A b: c\"",
        );
        refused(
            &with(&|o| o.request.headers = vec!["A: b\r\nC: d".into()]),
            "line break",
        );
        let e = refused(
            &with(&|o| o.request.headers = vec!["Cookie: s3cret\nX: y".into()]),
            "-H \"Cookie: <redacted>\"",
        );
        assert!(!e.contains("s3cret"), "{e}");
        refused(&with(&|o| o.request.url = None), "URL");
        refused(
            &with(&|o| o.request.patterns_file = Some("p.txt".into())),
            "not both",
        );
        refused(
            &with(&|o| o.session.rounds = 0),
            "--rounds must be at least 1",
        );
        refused(&with(&|o| o.session.rounds = 1_000_000), "--rounds");
        refused(
            &with(&|o| o.session.expect_cache_hit_rate = Some(1.5)),
            "--expect-cache-hit-rate",
        );
        refused(
            &with(&|o| o.session.expect_cache_hit_rate = Some(f64::NAN)),
            "--expect-cache-hit-rate",
        );
        refused(
            &with(&|o| o.session.warmup = Some(MAX_DURATION * 2)),
            "--warmup",
        );
        let mut o = run_options(ramp(0, 100, 1, Duration::from_secs(1)));
        o.session.rounds = 1000;
        refused(&o, "--rounds 1000");
    }

    #[test]
    fn a_run_is_one_step_of_ten_seconds_by_default() {
        let ready = run_options(step(3))
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready.run.mode, Mode::Run);
        assert_eq!(ready.run.steps.len(), 1);
        assert_eq!(ready.run.steps[0].n_clients, 3);
        assert_eq!(ready.run.steps[0].duration, Some(DEFAULT_RUN_DURATION));
        assert_eq!(ready.run.settings.duration_s, Some(10.0));
        assert_eq!(ready.run.settings.model, LoadModel::Closed);
        assert_eq!(ready.run.settings.threads, ready.engine.threads.min(3));
        assert!(ready.run.outputs.is_none());
        assert!(!ready.open_model());
    }

    #[test]
    fn a_timed_profile_sets_the_steps_length() {
        let mut o = run_options(Load::Step {
            clients: 2,
            duration: None,
            requests: None,
            rate: Some("2s@100,3s@100..200".into()),
        });
        o.request.seed = Some(7);
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready.run.steps[0].duration, Some(Duration::from_secs(5)));
        assert_eq!(ready.run.settings.model, LoadModel::Open);
        assert_eq!(ready.run.settings.seed, 7);
        assert_eq!(ready.workload.plan().expect("an http run").seed, 7);
        assert!(ready.open_model());
    }

    #[test]
    fn a_ramp_has_drnbench_steps_and_its_session() {
        let mut o = run_options(ramp(0, 4, 2, Duration::from_secs(3)));
        o.interval = Duration::from_secs(1);
        o.output_path = Some("out/r.csv".into());
        o.session = SessionOptions {
            probes: vec![ProbeKind::Groonga],
            expect_cache_hit_rate: Some(0.5),
            rounds: 2,
            warmup: Some(Duration::from_secs(2)),
            ..SessionOptions::default()
        };
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        let clients: Vec<usize> = ready.run.steps.iter().map(|s| s.n_clients).collect();
        assert_eq!(clients, vec![1, 2, 4]);
        assert_eq!(ready.run.mode, Mode::Ramp);
        assert_eq!(ready.run.rounds, 2);
        assert_eq!(ready.run.settings.rounds, 2);
        assert_eq!(ready.run.settings.interval_s, 1.0);
        assert_eq!(ready.run.settings.duration_s, Some(3.0));
        assert_eq!(ready.run.settings.warmup_s, Some(2.0));
        assert_eq!(ready.run.settings.planned_cache_hit_rate, Some(0.5));
        let prober = ready.run.prober.as_ref().expect("a prober");
        assert_eq!(prober.hosts, vec!["http://127.0.0.1:1".to_string()]);
        let out = ready.run.outputs.as_ref().expect("outputs");
        assert_eq!(out.json, std::path::Path::new("out/r.json"));
    }

    #[test]
    fn a_rate_ramp_has_one_step_per_rate() {
        let o = run_options(Load::Rates {
            rates: "100:300:100".into(),
            clients: 8,
            duration: Duration::from_secs(2),
        });
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        let rates: Vec<Option<f64>> = ready.run.steps.iter().map(|s| s.mean_rate()).collect();
        assert_eq!(rates, vec![Some(100.0), Some(200.0), Some(300.0)]);
        assert!(ready.run.steps.iter().all(|s| s.n_clients == 8));
        assert_eq!(ready.run.settings.model, LoadModel::Open);
    }

    #[test]
    fn a_missing_body_file_is_named() {
        let mut o = run_options(step(1));
        o.request.body = Some(Body::File("/nonexistent/body.json".into()));
        let e = o.build().err().expect("refused").to_string();
        assert!(e.contains("--body-file /nonexistent/body.json"), "{e}");
    }
}
