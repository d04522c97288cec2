//! `--before-round`, `--before-step`, `--before-timeout` and `--before-may-fail` as
//! plain options, checked before any load (an empty command, a limit of 0), and
//! turned into the runner's [`crate::runner::before::Before`].

use std::time::Duration;

use super::SpecError;
use crate::runner::before::{Before, DEFAULT_LIMIT};

/// The longest `--before-timeout`: a command that prepares a step (a restart, a
/// flush) takes seconds or minutes, not hours.
pub const MAX_LIMIT: Duration = Duration::from_secs(3600);

/// Commands run before each round and each step.
#[derive(Debug, Clone, PartialEq)]
pub struct BeforeOptions {
    pub round: Option<String>,
    pub step: Option<String>,
    /// Each command's time limit.
    pub timeout: Duration,
    /// Record a failure and go on.
    pub may_fail: bool,
}

impl Default for BeforeOptions {
    fn default() -> Self {
        BeforeOptions {
            round: None,
            step: None,
            timeout: DEFAULT_LIMIT,
            may_fail: false,
        }
    }
}

impl BeforeOptions {
    pub(super) fn check(&self) -> Result<(), SpecError> {
        for (flag, c) in [
            ("--before-round", &self.round),
            ("--before-step", &self.step),
        ] {
            if c.as_deref().is_some_and(|c| c.trim().is_empty()) {
                return Err(SpecError::Before(format!(
                    "{flag}: the command is empty; give the shell command to run (sh -c)"
                )));
            }
        }
        if self.timeout.is_zero() {
            return Err(SpecError::Before(
                "--before-timeout: must be more than 0 (a command needs time to run); \
                 the default is 60s"
                    .into(),
            ));
        }
        if self.timeout > MAX_LIMIT {
            return Err(SpecError::Before(format!(
                "--before-timeout: at most {} s, found {} s",
                MAX_LIMIT.as_secs(),
                self.timeout.as_secs_f64()
            )));
        }
        let set = self.round.is_some() || self.step.is_some();
        if !set && (self.may_fail || self.timeout != DEFAULT_LIMIT) {
            return Err(SpecError::Before(
                "--before-timeout and --before-may-fail apply to --before-round or \
                 --before-step, and neither is given"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The runner's form.
    pub fn runner(&self) -> Before {
        Before {
            round: self.round.clone(),
            step: self.step.clone(),
            limit: self.timeout,
            may_fail: self.may_fail,
            by_step: Vec::new(),
            shown: shown([&self.round, &self.step].into_iter().flatten()),
        }
    }
}

/// Each command and the form it is recorded in (see [`Before::shown`]).
pub fn shown<'a>(commands: impl Iterator<Item = &'a String>) -> Vec<(String, String)> {
    let redactor = crate::redact::Redactor::default();
    commands
        .map(|c| (c.clone(), redactor.shell_command(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(o: BeforeOptions, flag: &str) {
        let e = o.check().expect_err("refused").to_string();
        assert!(e.starts_with(flag), "{e}");
    }

    #[test]
    fn a_password_in_a_command_is_run_but_not_recorded() {
        let o = BeforeOptions {
            // Port 1: no server answers, whatever runs on this machine.
            step: Some("redis-cli -p 1 -a s3cret ping >&2; echo done >&2".into()),
            ..BeforeOptions::default()
        };
        let b = o.runner();
        let at = crate::runner::Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 1,
        };
        let step = crate::engine::StepSpec {
            n_clients: 1,
            duration: None,
            n_requests: Some(1),
            rate: None,
        };
        let p = b.run(at, &step, &crate::engine::Stop::default());
        let r = p.step.expect("ran");
        assert_eq!(
            r.command,
            "redis-cli -p 1 -a <redacted> ping >&2; echo done >&2"
        );
        assert!(
            r.stderr.ends_with("done"),
            "the shell got it whole: {}",
            r.stderr
        );
    }

    #[test]
    fn bad_commands_and_limits_are_refused_with_their_flag() {
        let ok = BeforeOptions {
            round: Some("true".into()),
            ..BeforeOptions::default()
        };
        assert!(ok.check().is_ok());
        refused(
            BeforeOptions {
                step: Some("  ".into()),
                ..BeforeOptions::default()
            },
            "--before-step: the command is empty",
        );
        refused(
            BeforeOptions {
                timeout: Duration::ZERO,
                ..ok.clone()
            },
            "--before-timeout: must be more than 0",
        );
        refused(
            BeforeOptions {
                timeout: Duration::from_secs(7200),
                ..ok.clone()
            },
            "--before-timeout: at most 3600 s",
        );
        refused(
            BeforeOptions {
                may_fail: true,
                ..BeforeOptions::default()
            },
            "--before-timeout and --before-may-fail apply",
        );
    }
}
