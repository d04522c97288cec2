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
    /// In a merged run's `shards`: the load machine (`--shard K/N`'s K) it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<u32>,
    /// A merged run (`hakaru merge`): every shard's own record of the command, each
    /// with its `shard`. The fields above then speak for all of them: `ok` only when
    /// every shard's was, the first failure's exit status and reason (naming its
    /// shard), the longest duration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<CommandResult>,
}

impl CommandResult {
    /// The shards' records of one command as one (see [`CommandResult::shards`]):
    /// `None` when no shard ran it.
    pub fn merge(each: &[(Option<u32>, Option<&CommandResult>)]) -> Option<CommandResult> {
        let mut ran: Vec<CommandResult> = each
            .iter()
            .filter_map(|(shard, c)| {
                c.map(|c| CommandResult {
                    shard: *shard,
                    shards: Vec::new(),
                    ..c.clone()
                })
            })
            .collect();
        ran.sort_by_key(|c| c.shard);
        let first = ran.first()?;
        let failed = ran.iter().find(|c| !c.ok);
        let said = failed.unwrap_or(first);
        Some(CommandResult {
            command: first.command.clone(),
            exit_code: said.exit_code,
            ok: failed.is_none(),
            error: failed.map(|f| {
                let why = f.error.as_deref().unwrap_or("failed");
                match f.shard {
                    Some(k) => format!("shard {k}: {why}"),
                    None => why.to_string(),
                }
            }),
            duration_s: ran.iter().map(|c| c.duration_s).fold(0.0, f64::max),
            stderr: said.stderr.clone(),
            shard: None,
            shards: ran,
        })
    }

    /// "exit 0 in 0.03 s", "exit status 3: gone (1.20 s)": how it ended, in a few words.
    pub fn outcome(&self) -> String {
        match &self.error {
            None => format!("exit 0 in {:.2} s", self.duration_s),
            Some(why) => format!("FAILED after {:.2} s: {why}", self.duration_s),
        }
    }
}
