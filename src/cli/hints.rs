//! Parsing the command line, with a hint where a flag from ab, wrk or hey is not
//! hakaru's: clap already suggests a long flag close to a mistyped one
//! (`--duraton` → `--duration`), but not what another tool's short flag is called
//! here (`-t` → `-d/--duration` or `--threads`).

use clap::error::{ContextKind, ContextValue, ErrorKind};

use super::Cli;

/// What an unknown flag of another tool is called in hakaru's load commands.
fn hint(command: Option<&str>, flag: &str) -> Option<&'static str> {
    let load = matches!(command, Some("run" | "ramp" | "demo"));
    match flag {
        "-t" if load => Some(
            "-d/--duration sets how long a step runs (ab's -t, hey's -z); \
             --threads sets worker threads (wrk's -t); `hakaru ab` takes ab's -t as is",
        ),
        "-z" if load => Some("-d/--duration sets how long a step runs (hey's -z)"),
        "-s" if load => Some("--timeout sets each request's timeout (ab's -s)"),
        "-p" if load => Some("--body-file sends a file as the body (ab's -p)"),
        "-r" if load => {
            Some("hakaru never stops on socket errors: it counts them by kind (ab's -r)")
        }
        "-l" if load => {
            Some("hakaru never counts a change of response length as a failure (ab's -l)")
        }
        "--latency" if load => Some("latency percentiles are always printed (wrk's --latency)"),
        _ => None,
    }
}

/// The command line parsed as [`Cli::parse`] does (exiting on error with clap's code,
/// 2), with a hint added to an unknown flag that [`hint`] knows.
pub fn parse() -> Cli {
    parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// [`parse`] of given words; the error is returned, not printed.
pub fn parse_from<I, T>(words: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let words: Vec<std::ffi::OsString> = words.into_iter().map(Into::into).collect();
    super::help::command()
        .try_get_matches_from(&words)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
        .map_err(|mut e| {
            if e.kind() == ErrorKind::UnknownArgument {
                let command = words.get(1).and_then(|w| w.to_str());
                let flag = match e.get(ContextKind::InvalidArg) {
                    Some(ContextValue::String(s)) => Some(s.clone()),
                    _ => None,
                };
                // "-t10" is reported as "-t".
                if let Some(text) = flag.as_deref().and_then(|f| hint(command, f)) {
                    e.insert(
                        ContextKind::Suggested,
                        ContextValue::StyledStrs(vec![text.into()]),
                    );
                }
            }
            e
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(words: &[&str]) -> String {
        let e = parse_from(words).expect_err("refused");
        e.render().to_string()
    }

    #[test]
    fn ab_and_wrk_flags_point_to_hakarus() {
        assert_eq!(
            message(&["hakaru", "run", "-t", "10", "http://127.0.0.1/"]),
            "error: unexpected argument '-t' found

  tip: -d/--duration sets how long a step runs (ab's -t, hey's -z); --threads sets worker threads (wrk's -t); `hakaru ab` takes ab's -t as is

Usage: hakaru run [OPTIONS] [URL]

For more information, try '--help'.
"
        );
        assert!(message(&["hakaru", "ramp", "-z", "10s"]).contains("tip: -d/--duration"));
        assert!(message(&["hakaru", "run", "--latency", "http://x/"])
            .contains("tip: latency percentiles are always printed"));
    }

    #[test]
    fn clap_s_own_suggestions_stay() {
        let m = message(&["hakaru", "run", "--duraton", "1"]);
        assert!(
            m.contains("tip: a similar argument exists: '--duration'"),
            "{m}"
        );
        // ab takes -t itself; elsewhere -t has no hint.
        assert!(parse_from(["hakaru", "ab", "-t", "1", "http://127.0.0.1/"]).is_ok());
        let m = message(&["hakaru", "report", "-t", "x.json"]);
        assert!(!m.contains("--duration"), "{m}");
    }

    #[test]
    fn keep_alive_flag_is_accepted_on_run() {
        assert!(parse_from(["hakaru", "run", "-k", "http://127.0.0.1/"]).is_ok());
    }
}
