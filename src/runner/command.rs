//! One shell command with a time limit: `sh -c COMMAND`, its exit status, how long it
//! took and the end of its stderr. The one place hakaru runs a command of the user's:
//! a scenario's events (`suite::events`) and `--before-round`/`--before-step` (the
//! runner) both call [`run_shell`], so a limit, a kill and a kept reason mean the same
//! everywhere.

use std::io::Read;
use std::process::{Command, Stdio};
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
    // Read stderr on the side, so a chatty command cannot fill the pipe and stall.
    // A command that starts a server in the background may leave it holding the pipe:
    // its stderr is waited for briefly after the command ends, not to the pipe's end.
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(mut err) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 1024];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                // The end is what says why; keep memory bounded.
                if buf.len() > 64 * STDERR_KEPT {
                    buf.drain(..buf.len() - STDERR_KEPT);
                }
                let _ = tx.send(buf.clone());
            }
        });
    } else {
        drop(tx);
    }
    let end = started + limit;
    let stopped = || stop.is_some_and(Stop::is_triggered);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if Instant::now() >= end || stopped() => {
                let _ = child.kill();
                let _ = child.wait();
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
    let mut last = Vec::new();
    let until = Instant::now() + Duration::from_millis(200);
    while let Ok(b) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        last = b;
    }
    let stderr = tail(String::from_utf8_lossy(&last).trim());
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
