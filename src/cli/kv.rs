//! The key-value flags of `run` and `ramp` (`redis://` and `memcached://` targets),
//! flattened into their request flags; `spec::kv` checks them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

use crate::engine::StepSpec;
use crate::observe::Fanout;
use crate::runner::RunSpec;
use crate::spec::kv::KvOptions;
use crate::spec::Ready;

#[derive(Args, Debug, Clone, Default)]
pub struct KvArgs {
    /// Key-value targets: how many keys `{key}` draws from [default: 100000].
    #[arg(
        long,
        value_name = "N",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub keys: Option<u64>,

    /// How `{key}` is drawn: uniform, zipfian, latest (YCSB's) or sequential [default: uniform].
    #[arg(
        long,
        value_name = "DIST",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub key_distribution: Option<String>,

    /// Bytes of `{value}`: N, or LO..HI drawn per request [default: 32].
    #[arg(
        long,
        value_name = "BYTES",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub value_size: Option<String>,

    /// Without --commands: SETS:GETS of `key:{key}` (memtier's flag) [default: 1:10].
    #[arg(
        long,
        value_name = "SETS:GETS",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub ratio: Option<String>,

    /// A commands file: one command a line, `weight=N` and `name=NAME` before it,
    /// `{key}` and `{value}` in it (docs/guide/key-value.md).
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub commands: Option<PathBuf>,

    /// Write every key once before the first step (not counted in any step).
    #[arg(long, help_heading = "Key-value stores (redis://, memcached://)")]
    pub preload: bool,

    /// Commands in flight per connection (redis-benchmark's -P): N clients share one
    /// connection, so `-c 800 --pipeline 16` opens 50 [default: 1].
    #[arg(
        long,
        value_name = "N",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub pipeline: Option<u64>,

    /// A SQL target's transactions: a pgbench script, FILE[@WEIGHT] (repeatable; each
    /// transaction runs one, drawn by weight).
    #[arg(
        short = 'f',
        long = "file",
        value_name = "FILE[@W]",
        help_heading = "SQL (postgres://, mysql://)"
    )]
    pub sql_files: Vec<String>,

    /// How statements go: simple (values in the text), extended (parsed and bound each
    /// time; MySQL: prepare/execute/close) or prepared (parsed once per connection)
    /// [default: simple].
    #[arg(
        short = 'M',
        long = "query-mode",
        value_name = "MODE",
        help_heading = "SQL (postgres://, mysql://)"
    )]
    pub query_mode: Option<String>,
}

impl KvArgs {
    pub fn options(&self) -> KvOptions {
        KvOptions {
            keys: self.keys,
            key_distribution: self.key_distribution.clone(),
            value_size: self.value_size.clone(),
            ratio: self.ratio.clone(),
            commands: self.commands.clone(),
            preload: self.preload,
            pipeline: self.pipeline,
            sql: crate::spec::sql::SqlOptions {
                files: self.sql_files.clone(),
                query_mode: self.query_mode.clone(),
                given: None,
            },
        }
    }
}

/// `--preload`: every key written once, in order, by the first command that writes a
/// `{value}`, before the first step and apart from it (through the same engine, on
/// as many connections as the largest step, printed on stderr, in no step's
/// figures). A preload that did not write every key ends the run: what follows
/// would read what was never written.
pub fn preload(ready: &Ready, args: &KvArgs) -> Result<()> {
    let Some(kv) = ready.workload.kv().filter(|_| args.preload) else {
        return Ok(());
    };
    let Some(loader) = kv.preloader() else {
        bail!("--preload needs a command that writes a {{value}} (SET key:{{key}} {{value}}), to write each key with");
    };
    let keys = kv.settings().keys;
    let most = ready
        .run
        .steps
        .iter()
        .map(|s| s.n_clients)
        .max()
        .unwrap_or(1);
    let spec = RunSpec {
        mode: ready.run.mode,
        command_line: ready.run.command_line.clone(),
        steps: vec![StepSpec {
            n_clients: most.clamp(1, keys.min(1024) as usize),
            duration: None,
            n_requests: Some(keys),
            rate: None,
        }],
        interval: Duration::ZERO,
        settings: ready.run.settings.clone(),
        rounds: 1,
        ..RunSpec::default()
    };
    let run = super::run_workload(&spec, &Arc::new(loader), &ready.engine, &mut Fanout::new())?;
    let Some(step) = run.steps.first() else {
        bail!("--preload: interrupted before any key was written");
    };
    let errors: u64 = step.errors.values().sum();
    eprintln!(
        "Preload: {} of {keys} keys written in {:.2} s ({errors} errors; not counted in any step)",
        step.responses, step.elapsed_s
    );
    if step.responses < keys {
        let kinds: Vec<String> = step
            .errors
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        bail!(
            "--preload wrote {} of {keys} keys ({}): the run would read what was never written",
            step.responses,
            kinds.join(", ")
        );
    }
    Ok(())
}
