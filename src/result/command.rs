//! A command hakaru ran for the user before a round or a step (`--before-round`,
//! `--before-step`): what it was, how it ended, how long it took and the end of its
//! stderr, kept beside the step it prepared (docs/guide/run.md, "Before each round").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One run of a `--before-round` or `--before-step` command.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct CommandResult {
    /// The command as given, run as `sh -c COMMAND`.
    pub command: String,
    /// Its exit status; absent when it was killed (by a signal, its time limit or a
    /// stopped run) or could not start.
    pub exit_code: Option<i32>,
    /// True when it exited 0 within its time limit.
    pub ok: bool,
    /// Why it failed (exit status, killed after the limit), with its stderr's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// From its start to its end, seconds.
    pub duration_s: f64,
    /// The end of its stderr (at most 400 bytes), whether it failed or not.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

impl CommandResult {
    /// "exit 0 in 0.03 s", "exit status 3: gone (1.20 s)": how it ended, in a few words.
    pub fn outcome(&self) -> String {
        match &self.error {
            None => format!("exit 0 in {:.2} s", self.duration_s),
            Some(why) => format!("FAILED after {:.2} s: {why}", self.duration_s),
        }
    }
}
