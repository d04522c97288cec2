//! A scenario's events: shell commands run at given times from the scenario's start,
//! on a thread of their own so the load never waits for them. `{pid:NAME}` is filled
//! in when the event fires (a restarted server has a new PID). Each command runs in
//! its own `sh -c` with a time limit (`runner::command`, shared with `--before-round`);
//! what it did (exit status, the end of its stderr) is kept for the result and the
//! timeline. A failed command stops the run only when its event says
//! `on_failure = "stop"`.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use super::scenario::{Action, Event, TargetPid};
use crate::engine::Stop;
use crate::result::suite::EventResult;

/// Bytes of a failed API call's answer kept for the result.
const STDERR_KEPT: usize = crate::runner::command::STDERR_KEPT;

/// Events under way; [`Running::finish`] collects what they did.
pub struct Running {
    cancel: Stop,
    scheduler: Option<JoinHandle<()>>,
    results: Arc<Mutex<Vec<EventResult>>>,
    waiters: Arc<Mutex<Vec<JoinHandle<()>>>>,
    /// Why the run was stopped by a failed event.
    pub stopped_by: Arc<Mutex<Option<String>>>,
}

/// Start the clock: every event fires at `t0 + at`. A failed event whose scenario
/// says so triggers `run_stop`. `first_shard` false (shard 2 and later of a sharded
/// run): only the events that say `shards = "all"` fire; the others stay in the
/// results as never run, since shard 1 runs them once for the whole.
pub fn start(
    events: Vec<Event>,
    targets: BTreeMap<String, TargetPid>,
    t0: Instant,
    run_stop: Stop,
    first_shard: bool,
) -> Running {
    let results = Arc::new(Mutex::new(
        events
            .iter()
            .map(|e| EventResult {
                name: e.name.clone(),
                at_s: e.at.as_secs_f64(),
                // Recorded with the secrets it carries in a known form redacted.
                run: crate::redact::Redactor::default().shell_command(&e.run),
                error: (!first_shard && !e.all_shards)
                    .then(|| "shard 1 runs it (shards = \"all\" runs it on every shard)".into()),
                ..EventResult::default()
            })
            .collect::<Vec<_>>(),
    ));
    let cancel = Stop::default();
    let waiters: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
    let stopped_by: Arc<Mutex<Option<String>>> = Arc::default();
    let scheduler = {
        let (cancel, results, waiters, stopped_by) = (
            cancel.clone(),
            results.clone(),
            waiters.clone(),
            stopped_by.clone(),
        );
        std::thread::Builder::new()
            .name("hakaru-events".into())
            .spawn(move || {
                for (i, event) in events.into_iter().enumerate() {
                    if !first_shard && !event.all_shards {
                        continue;
                    }
                    let due = t0 + event.at;
                    let now = Instant::now();
                    if due > now && cancel.sleep(due - now) {
                        return;
                    }
                    if cancel.is_triggered() {
                        return;
                    }
                    let (results, stopped_by, run_stop, targets) = (
                        results.clone(),
                        stopped_by.clone(),
                        run_stop.clone(),
                        targets.clone(),
                    );
                    let waiter = std::thread::Builder::new()
                        .name(format!("hakaru-event-{}", i + 1))
                        .spawn(move || {
                            let started = Instant::now();
                            let outcome = fire(&event, &targets);
                            let mut all = results.lock().unwrap_or_else(|e| e.into_inner());
                            let r = &mut all[i];
                            r.started_s = Some(started.saturating_duration_since(t0).as_secs_f64());
                            r.duration_s = Some(started.elapsed().as_secs_f64());
                            r.command = outcome.command;
                            r.exit_code = outcome.exit_code;
                            r.ok = outcome.error.is_none();
                            r.error = outcome.error;
                            if !r.ok && event.stop_on_failure {
                                *stopped_by.lock().unwrap_or_else(|e| e.into_inner()) =
                                    Some(format!(
                                        "event \"{}\" at {}s failed ({}); the scenario stopped there (on_failure = \"stop\")",
                                        event.name,
                                        event.at.as_secs_f64(),
                                        r.error.as_deref().unwrap_or("")
                                    ));
                                run_stop.trigger();
                            }
                        });
                    if let Ok(h) = waiter {
                        waiters.lock().unwrap_or_else(|e| e.into_inner()).push(h);
                    }
                }
            })
            .ok()
    };
    Running {
        cancel,
        scheduler,
        results,
        waiters,
        stopped_by,
    }
}

impl Running {
    /// Cancel the events not yet due, wait for the commands that run (each within its
    /// time limit) and return every event's outcome, in time order.
    pub fn finish(mut self) -> Vec<EventResult> {
        self.cancel.trigger();
        if let Some(h) = self.scheduler.take() {
            let _ = h.join();
        }
        let waiters = std::mem::take(&mut *self.waiters.lock().unwrap_or_else(|e| e.into_inner()));
        for h in waiters {
            let _ = h.join();
        }
        let results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        results.clone()
    }
}

struct Fired {
    command: Option<String>,
    exit_code: Option<i32>,
    error: Option<String>,
}

fn fire(event: &Event, targets: &BTreeMap<String, TargetPid>) -> Fired {
    if let Action::Api { method, url, body } = &event.action {
        let got =
            crate::http::Fetched::json(url, method, body.as_deref().unwrap_or(""), event.timeout);
        let error = match got {
            Ok(f) if (200..300).contains(&f.status) => None,
            Ok(f) => Some(format!(
                "answered {}: {}",
                f.status,
                String::from_utf8_lossy(&f.body[..f.body.len().min(STDERR_KEPT)]).trim()
            )),
            Err(why) => Some(why),
        };
        return Fired {
            command: Some(format!("{method} {url}")),
            exit_code: None,
            error,
        };
    }
    let command = match fill_pids(&event.run, targets) {
        Ok(c) => c,
        Err(why) => {
            return Fired {
                command: None,
                exit_code: None,
                error: Some(why),
            }
        }
    };
    let ran = crate::runner::command::run_shell(&command, event.timeout, &[], None);
    Fired {
        command: Some(crate::redact::Redactor::default().shell_command(&command)),
        exit_code: ran.exit_code,
        error: ran.error,
    }
}

/// `{pid:NAME}` → the target's PID as it is now.
pub fn fill_pids(command: &str, targets: &BTreeMap<String, TargetPid>) -> Result<String, String> {
    let mut out = String::with_capacity(command.len());
    let mut rest = command;
    while let Some(i) = rest.find("{pid:") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        let end = after
            .find('}')
            .ok_or_else(|| "a {pid: without its closing }".to_string())?;
        let name = after[..end].trim();
        let target = targets
            .get(name)
            .ok_or_else(|| format!("{{pid:{name}}}: no such target"))?;
        out.push_str(&pid_of(name, target)?.to_string());
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn pid_of(name: &str, target: &TargetPid) -> Result<u32, String> {
    let parse = |text: &str, from: &str| -> Result<u32, String> {
        text.split_whitespace()
            .next()
            .and_then(|t| t.parse().ok())
            .filter(|p| *p > 0)
            .ok_or_else(|| format!("{{pid:{name}}}: {from} gave no PID (\"{}\")", text.trim()))
    };
    match target {
        TargetPid::Pid(p) => Ok(*p),
        TargetPid::File(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("{{pid:{name}}}: cannot read {}: {e}", path.display()))?;
            parse(&text, &path.display().to_string())
        }
        TargetPid::Command(c) => {
            let out = Command::new("sh")
                .arg("-c")
                .arg(c)
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .map_err(|e| format!("{{pid:{name}}}: cannot run sh: {e}"))?;
            parse(&String::from_utf8_lossy(&out.stdout), "pid_command")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_are_filled_in_when_the_event_fires() {
        let dir = std::env::temp_dir().join(format!("hakaru-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.pid");
        std::fs::write(&file, "4242\n").unwrap();
        let targets = BTreeMap::from([
            ("a".to_string(), TargetPid::Pid(7)),
            ("b".to_string(), TargetPid::File(file.clone())),
            ("c".to_string(), TargetPid::Command("echo 99".into())),
        ]);
        assert_eq!(
            fill_pids("kill -STOP {pid:a} {pid:b} {pid:c}", &targets).unwrap(),
            "kill -STOP 7 4242 99"
        );
        std::fs::write(&file, "nope").unwrap();
        let e = fill_pids("kill {pid:b}", &targets).unwrap_err();
        assert!(e.contains("gave no PID (\"nope\")"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
