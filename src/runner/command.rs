//! One shell command with a time limit: `sh -c COMMAND`, its exit status, how long it
//! took and the end of its stderr. The one place hakaru runs a command of the user's:
//! a scenario's events (`suite::events`) and `--before-round`/`--before-step` (the
//! runner) both call [`run_shell`], so a limit, a kill and a kept reason mean the same
//! everywhere.

use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::engine::Stop;

/// Bytes of a command's stderr kept (its end, where the reason is).
pub const STDERR_KEPT: usize = 400;

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// Its exit status; `None` when it was killed (by a signal, the time limit or a
    /// stopped run) or never started.
    pub exit_code: Option<i32>,
    /// Why it failed, with the end of its stderr; `None` when it exited 0 in time.
    pub error: Option<String>,
    /// The end of its stderr (at most [`STDERR_KEPT`] bytes), trimmed, success or not.
    pub stderr: String,
    /// From the start to its end (or its kill).
    pub duration: Duration,
}

impl Ran {
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

/// Run `sh -c command` with `env` added to hakaru's environment, for at most `limit`;
/// stdin and stdout go nowhere. A triggered `stop` (Ctrl-C) kills it as the limit does.
pub fn run_shell(
    command: &str,
    limit: Duration,
    env: &[(&str, String)],
    stop: Option<&Stop>,
) -> Ran {
    let started = Instant::now();
    let child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group, so that a kill reaches what it started too (a
        // `bash -c 'while …'` under `sh` outlived a kill of `sh` alone).
        .process_group(0)
        .spawn();
    let failed = |why: String| Ran {
        exit_code: None,
        error: Some(why),
        stderr: String::new(),
        duration: started.elapsed(),
    };
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot run sh: {e}")),
    };
    // Read stderr on the side, so a chatty command cannot fill the pipe and stall,
    // into one buffer of constant size: only its end says why.
    // A command that starts a server in the background may leave it holding the pipe:
    // its stderr is waited for briefly after the command ends, not to the pipe's end.
    let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::with_capacity(2 * STDERR_KEPT)));
    let (eof_tx, eof_rx) = std::sync::mpsc::channel::<()>();
    if let Some(err) = child.stderr.take() {
        let kept = std::sync::Arc::clone(&kept);
        std::thread::spawn(move || {
            keep_the_end(err, &kept);
            let _ = eof_tx.send(());
        });
    } else {
        drop(eof_tx);
    }
    let end = started + limit;
    let stopped = || stop.is_some_and(Stop::is_triggered);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if Instant::now() >= end || stopped() => {
                kill_group(&mut child);
                break Err(if stopped() {
                    "the run was stopped: killed".to_string()
                } else {
                    format!("still running after {} s: killed", limit.as_secs_f64())
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return failed(format!("cannot wait for the command: {e}")),
        }
    };
    let duration = started.elapsed();
    let _ = eof_rx.recv_timeout(Duration::from_millis(200));
    let last = kept.lock().map(|b| b.clone()).unwrap_or_default();
    // Secrets hidden before the tail is cut, so none is left half shown.
    let stderr = tail(crate::redact::hide_known(String::from_utf8_lossy(&last).trim()).trim());
    let (exit_code, error) = match status {
        Err(why) => (None, Some(why)),
        Ok(s) if s.success() => (s.code(), None),
        Ok(s) => {
            let why = match s.code() {
                Some(c) => format!("exit status {c}"),
                None => "killed by a signal".to_string(),
            };
            let why = if stderr.is_empty() {
                why
            } else {
                format!("{why}: {stderr}")
            };
            (s.code(), Some(why))
        }
    };
    Ran {
        exit_code,
        error,
        stderr,
        duration,
    }
}

/// Reads `from` to its end, keeping its last bytes in `kept` (at most twice
/// [`STDERR_KEPT`]): constant memory whatever the command writes.
fn keep_the_end(mut from: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = from.read(&mut chunk) {
        if n == 0 {
            break;
        }
        let Ok(mut buf) = kept.lock() else { break };
        let tail = &chunk[n.saturating_sub(2 * STDERR_KEPT)..n];
        let over = (buf.len() + tail.len()).saturating_sub(2 * STDERR_KEPT);
        buf.drain(..over);
        buf.extend_from_slice(tail);
    }
}

/// Kills the command's whole process group (it leads one of its own), then reaps it.
fn kill_group(child: &mut Child) {
    let group = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    let killed = group.is_some_and(|pgid| {
        rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL).is_ok()
    });
    if !killed {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// The last [`STDERR_KEPT`] bytes of `s`, cut at a character boundary.
fn tail(s: &str) -> String {
    let start = s.len().saturating_sub(STDERR_KEPT);
    let start = (start..=s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    s[start..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(c: &str, limit: Duration) -> Ran {
        run_shell(c, limit, &[], None)
    }

    #[test]
    fn commands_report_how_they_ended() {
        let r = sh("true", Duration::from_secs(5));
        assert_eq!((r.exit_code, r.error), (Some(0), None));
        let r = sh("echo gone >&2; exit 3", Duration::from_secs(5));
        assert_eq!(r.exit_code, Some(3));
        assert_eq!(r.error.as_deref(), Some("exit status 3: gone"));
        assert_eq!(r.stderr, "gone");
        let r = sh("sleep 5", Duration::from_millis(50));
        assert_eq!(r.exit_code, None);
        assert!(r.error.unwrap().contains("killed"));
        assert!(r.duration < Duration::from_secs(4), "{:?}", r.duration);
    }

    #[test]
    fn the_environment_reaches_the_command_and_stderr_is_kept_on_success() {
        let r = run_shell(
            "echo round $HAKARU_ROUND >&2",
            Duration::from_secs(5),
            &[("HAKARU_ROUND", "2".into())],
            None,
        );
        assert!(r.ok());
        assert_eq!(r.stderr, "round 2");
    }

    #[test]
    fn a_stopped_run_kills_the_command() {
        let stop = Stop::default();
        stop.trigger();
        let r = run_shell("sleep 5", Duration::from_secs(30), &[], Some(&stop));
        assert_eq!(r.error.as_deref(), Some("the run was stopped: killed"));
    }

    /// Bug it pins: `--before-timeout` killed `sh` alone; the loop it started went
    /// on through the measured step and after hakaru exited.
    #[test]
    fn a_time_limit_kills_what_the_command_started_too() {
        let dir = std::env::temp_dir().join(format!("hakaru-pg-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let cmd = format!(
            "bash -c 'echo $$ > {}; while :; do sleep 0.05; done'; true",
            dir.display()
        );
        let r = sh(&cmd, Duration::from_millis(300));
        assert!(r.error.unwrap().contains("killed"));
        let pid = std::fs::read_to_string(&dir).unwrap();
        let _ = std::fs::remove_file(&dir);
        let stat = format!("/proc/{}/stat", pid.trim());
        let gone = (0..100).any(|_| {
            let dead = std::fs::read_to_string(&stat).map_or(true, |s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            });
            if !dead {
                std::thread::sleep(Duration::from_millis(20));
            }
            dead
        });
        assert!(gone, "the loop {} outlived its time limit", pid.trim());
    }

    /// Bug it pins: every 1 KB read sent a copy of the whole kept buffer down an
    /// unbounded channel read only at the end (`yes >&2` reached 2.3 GB in 3 s).
    #[test]
    fn a_flood_of_stderr_is_kept_in_constant_memory() {
        let kept = Mutex::new(Vec::new());
        let flood = std::io::repeat(b'y').take(50_000_000);
        keep_the_end(flood, &kept);
        let buf = kept.into_inner().unwrap();
        assert_eq!(buf.len(), 2 * STDERR_KEPT);
        assert!(buf.capacity() <= 8 * STDERR_KEPT, "{}", buf.capacity());
    }

    #[test]
    fn only_the_end_of_a_long_stderr_is_kept() {
        let r = sh(
            "i=0; while [ $i -lt 300 ]; do echo line$i >&2; i=$((i+1)); done; exit 1",
            Duration::from_secs(5),
        );
        assert!(r.stderr.len() <= STDERR_KEPT);
        assert!(r.stderr.ends_with("line299"), "{}", r.stderr);
    }
}
