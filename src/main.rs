//! hakaru's binary: parse, call into the library, map errors to exit codes (listed in
//! `hakaru --help`: 0 measured, 1 failed, 2 bad input, 130 interrupted).

fn main() {
    let command_line: Vec<String> = std::env::args().collect();
    // clap's own usage errors exit with 2, as bad input does below.
    let cli = hakaru::cli::hints::parse();
    match hakaru::cli::dispatch(cli, command_line) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            // A closed pipe (hakaru ... | head) is not a failure.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                std::process::exit(0);
            }
            eprintln!("hakaru: error: {e:#}");
            std::process::exit(hakaru::cli::error_exit_code(&e));
        }
    }
}
