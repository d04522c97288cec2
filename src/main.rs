//! hakaru's binary: parse, call into the library, map errors to exit codes (listed in
//! `hakaru --help`: 0 measured, 1 failed, 2 bad input, 130 interrupted).

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

fn main() {
    // A non-UTF-8 argument is refused by its place, never shown: it may be a secret.
    let command_line: Vec<String> = match std::env::args_os()
        .enumerate()
        .map(|(i, a)| a.into_string().map_err(|_| i))
        .collect()
    {
        Ok(args) => args,
        Err(i) => {
            eprintln!("hakaru: error: argument #{i} is not valid UTF-8 (not shown: it may be a secret); hakaru takes UTF-8 arguments");
            std::process::exit(2);
        }
    };
    // `print!` panics when stdout fails (a full disk, `> /dev/full`): that is an error
    // to report, not a crash with a backtrace.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if stdout_failure(info.payload()).is_none() {
            default_hook(info);
        }
    }));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // clap's own usage errors exit with 2, as bad input does below.
        let cli = hakaru::cli::hints::parse();
        hakaru::cli::dispatch(cli, command_line)
    }));
    let result = match outcome {
        Ok(result) => result,
        Err(payload) => match stdout_failure(&*payload) {
            // A closed pipe (hakaru ... | head) is not a failure.
            Some(why) if why.contains("Broken pipe") => std::process::exit(0),
            Some(why) => {
                eprintln!("hakaru: error: cannot write to standard output: {why}");
                std::process::exit(1);
            }
            None => resume_unwind(payload),
        },
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                std::process::exit(0);
            }
            eprintln!("hakaru: error: {}", hakaru::cli::error_message(&e));
            std::process::exit(hakaru::cli::error_exit_code(&e));
        }
    }
}

/// The reason when a panic is `print!`'s on a failed stdout ("failed printing to
/// stdout: …").
fn stdout_failure(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    text.strip_prefix("failed printing to stdout: ")
}
