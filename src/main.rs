//! hakaru's binary: parse, call into the library, map errors to exit codes.

use clap::Parser;

fn main() {
    let command_line: Vec<String> = std::env::args().collect();
    let cli = hakaru::cli::Cli::parse();
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
            std::process::exit(1);
        }
    }
}
