//! `--before-round`, `--before-step`, `--before-timeout`, `--before-may-fail` on `run`,
//! `ramp` and `bulk` (a suite phase's `before` says the same in its file): the flags of
//! the commands that set a state before the load ([`crate::runner::before`] says when
//! they run and what they learn).

use std::time::Duration;

use clap::Args;

use crate::spec::before::BeforeOptions;
use crate::spec::parse_duration;

#[derive(Args, Debug, Clone, Default)]
pub struct BeforeArgs {
    /// A shell command (sh -c) run before each round's first step, after the interval
    /// and before the step's probes and clock: restart a server, flush a cache. It sees
    /// HAKARU_ROUND, HAKARU_ROUNDS, HAKARU_STEP, HAKARU_STEPS, HAKARU_CLIENTS and
    /// HAKARU_RATE. Its exit status, time and stderr's end go into the result; a
    /// failure stops the run (exit 1) unless --before-may-fail.
    #[arg(help_heading = "Before each round or step", long, value_name = "CMD")]
    pub before_round: Option<String>,

    /// A shell command run before every step (after --before-round's), as
    /// --before-round.
    #[arg(help_heading = "Before each round or step", long, value_name = "CMD")]
    pub before_step: Option<String>,

    /// Each command's time limit; past it the command is killed and has failed [default: 60s].
    #[arg(help_heading = "Before each round or step", long, value_parser = parse_duration, value_name = "DURATION")]
    pub before_timeout: Option<Duration>,

    /// Record a failed command and measure the step anyway, instead of stopping the run.
    #[arg(help_heading = "Before each round or step", long)]
    pub before_may_fail: bool,
}

impl BeforeArgs {
    /// The plain options these flags say.
    pub fn options(&self) -> BeforeOptions {
        let defaults = BeforeOptions::default();
        BeforeOptions {
            round: self.before_round.clone(),
            step: self.before_step.clone(),
            timeout: self.before_timeout.unwrap_or(defaults.timeout),
            may_fail: self.before_may_fail,
        }
    }

    /// Any of the flags given.
    pub fn given(&self) -> bool {
        self.before_round.is_some()
            || self.before_step.is_some()
            || self.before_timeout.is_some()
            || self.before_may_fail
    }
}
