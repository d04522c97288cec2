//! `--before-round CMD` and `--before-step CMD`: a shell command run before each round
//! (on its first step) or before each step, after the interval and any warm-up and
//! before the step's probes and clock, so the state it sets (a cache flushed, a server
//! restarted, the page cache dropped) is the state the step measures. Each runs with a
//! time limit ([`super::command`]); its exit status, duration and stderr's end go into
//! the step's result. A failed command stops the run there (exit 1), since a step
//! measured in the wrong state would be a wrong number presented as a right one;
//! `--before-may-fail` records the failure and goes on.
//!
//! The command learns where it is from its environment: `HAKARU_ROUND` and
//! `HAKARU_ROUNDS`, `HAKARU_STEP` (from 1 within the round) and `HAKARU_STEPS`,
//! `HAKARU_CLIENTS`, and `HAKARU_RATE` (per second: req/s, a SQL run's tps; empty in
//! the closed model). One `--before-round` can so prepare each round differently
//! (`case $HAKARU_ROUND in …`).

use std::time::Duration;

use super::command::run_shell;
use super::Position;
use crate::engine::{StepSpec, Stop};
use crate::result::command::CommandResult;

/// The time limit of a command when `--before-timeout` does not say.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(60);

/// The commands to run before rounds and steps.
#[derive(Debug, Clone)]
pub struct Before {
    /// Before each round's first step.
    pub round: Option<String>,
    /// Before every step.
    pub step: Option<String>,
    /// Each command's time limit; past it the command is killed and has failed.
    pub limit: Duration,
    /// Record a failed command and go on, instead of stopping the run.
    pub may_fail: bool,
    /// A command of a step's own, by step index (a suite's phase `before = "…"`): in
    /// place of `step` for that step, with its own limit and failure rule.
    pub by_step: Vec<Option<StepCommand>>,
    /// `(command, as recorded)`: each command with the secrets it carries in a known
    /// form redacted, made by `spec` (which applies the redactor); a command not
    /// here is recorded as given.
    pub shown: Vec<(String, String)>,
}

/// A command one step (a suite's phase) gives itself.
#[derive(Debug, Clone, PartialEq)]
pub struct StepCommand {
    pub command: String,
    pub limit: Duration,
    pub may_fail: bool,
    /// What the failure message calls the command: `phase "flush"'s before`.
    pub name: String,
}

impl Default for Before {
    fn default() -> Self {
        Before {
            round: None,
            step: None,
            limit: DEFAULT_LIMIT,
            may_fail: false,
            by_step: Vec::new(),
            shown: Vec::new(),
        }
    }
}

/// What ran before one step.
#[derive(Debug, Default)]
pub struct Prepared {
    pub round: Option<CommandResult>,
    pub step: Option<CommandResult>,
    /// A failed command that stops the run: the reason, and the command.
    pub stop: Option<(String, CommandResult)>,
}

impl Before {
    pub fn is_empty(&self) -> bool {
        self.round.is_none() && self.step.is_none() && self.by_step.iter().all(Option::is_none)
    }

    /// The step's command: its own (`by_step`) before the run's `--before-step`, each
    /// with its limit, its failure rule and the name a failure gives it.
    fn step_command(&self, index: usize) -> Option<(&str, Duration, bool, String)> {
        match self.by_step.get(index) {
            Some(Some(c)) => Some((&c.command, c.limit, c.may_fail, c.name.clone())),
            _ => (self.step.as_deref())
                .map(|c| (c, self.limit, self.may_fail, "--before-step command".into())),
        }
    }

    /// Run what is due before the step at `at` (the round's command first, on its
    /// first step); stop at the first failure unless `may_fail`.
    pub fn run(&self, at: Position, step: &StepSpec, stop: &Stop) -> Prepared {
        let mut out = Prepared::default();
        let env = [
            ("HAKARU_ROUND", at.round.to_string()),
            ("HAKARU_ROUNDS", at.rounds.to_string()),
            ("HAKARU_STEP", (at.index + 1).to_string()),
            ("HAKARU_STEPS", at.of.to_string()),
            ("HAKARU_CLIENTS", step.n_clients.max(1).to_string()),
            (
                "HAKARU_RATE",
                step.mean_rate().map(|r| r.to_string()).unwrap_or_default(),
            ),
        ];
        let round = (self.round.as_deref().filter(|_| at.index == 0)).map(|c| {
            (
                c,
                self.limit,
                self.may_fail,
                "--before-round command".to_string(),
            )
        });
        let due = [
            ("--before-round", round),
            ("--before-step", self.step_command(at.index)),
        ];
        for (flag, command) in due {
            let Some((command, limit, may_fail, name)) = command else {
                continue;
            };
            let ran = run_shell(command, limit, &env, Some(stop));
            let result = CommandResult {
                // As recorded: a password in a known form (a URL's, redis-cli's -a,
                // a secret header) redacted; the shell got it whole.
                command: (self.shown.iter().find(|(c, _)| c == command))
                    .map_or(command, |(_, shown)| shown)
                    .to_string(),
                exit_code: ran.exit_code,
                ok: ran.ok(),
                error: ran.error.clone(),
                duration_s: ran.duration.as_secs_f64(),
                stderr: ran.stderr.clone(),
                ..CommandResult::default()
            };
            let failed = !result.ok && !stop.is_triggered() && !may_fail;
            if failed {
                let before = if flag == "--before-round" {
                    format!("round {}", at.round)
                } else {
                    format!("step {} of round {}", at.index + 1, at.round)
                };
                let own =
                    flag == "--before-step" && matches!(self.by_step.get(at.index), Some(Some(_)));
                let go_on = if own {
                    "before_may_fail = true"
                } else {
                    "--before-may-fail"
                };
                let why = format!(
                    "the {name} failed before {before} ({}); the run stopped there, \
                     since that step would measure a state nobody prepared \
                     ({go_on} records a failure and goes on)",
                    result.error.as_deref().unwrap_or("failed")
                );
                out.stop = Some((why, result));
                return out;
            }
            if flag == "--before-round" {
                out.round = Some(result);
            } else {
                out.step = Some(result);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(round: usize, index: usize) -> Position {
        Position {
            round,
            rounds: 3,
            index,
            of: 2,
        }
    }

    fn step() -> StepSpec {
        StepSpec {
            n_clients: 4,
            duration: None,
            n_requests: Some(10),
            rate: None,
        }
    }

    #[test]
    fn the_round_s_command_runs_on_its_first_step_only_and_knows_where_it_is() {
        let b = Before {
            round: Some("echo round=$HAKARU_ROUND/$HAKARU_ROUNDS >&2".into()),
            step: Some("echo step=$HAKARU_STEP/$HAKARU_STEPS c=$HAKARU_CLIENTS >&2".into()),
            ..Before::default()
        };
        let stop = Stop::default();
        let p = b.run(at(2, 0), &step(), &stop);
        assert_eq!(p.round.unwrap().stderr, "round=2/3");
        assert_eq!(p.step.unwrap().stderr, "step=1/2 c=4");
        let p = b.run(at(2, 1), &step(), &stop);
        assert!(p.round.is_none());
        assert_eq!(p.step.unwrap().stderr, "step=2/2 c=4");
    }

    #[test]
    fn a_failed_command_stops_the_run_unless_it_may_fail() {
        let mut b = Before {
            round: Some("echo no cache here >&2; exit 3".into()),
            step: Some("true".into()),
            ..Before::default()
        };
        let stop = Stop::default();
        let p = b.run(at(2, 0), &step(), &stop);
        let (why, r) = p.stop.expect("stopped");
        assert!(
            why.starts_with(
                "the --before-round command failed before round 2 (exit status 3: no cache here)"
            ),
            "{why}"
        );
        assert_eq!((r.exit_code, r.ok), (Some(3), false));
        assert!(p.step.is_none(), "nothing runs after the failure");
        b.may_fail = true;
        let p = b.run(at(2, 0), &step(), &stop);
        assert!(p.stop.is_none());
        assert!(!p.round.unwrap().ok);
        assert!(p.step.unwrap().ok);
    }
}
