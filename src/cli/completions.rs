//! Shell completions and manual pages, from the clap definitions themselves (clap's own
//! generators, so they never drift from the flags): `hakaru completions bash|zsh|fish`
//! prints a script, `hakaru man` prints hakaru(1) or, with `--dir`, writes a page per
//! command (`hakaru.1`, `hakaru-run.1`, ...).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

#[derive(Args, Debug)]
#[command(after_help = "Install, for example:
  bash:  hakaru completions bash > ~/.local/share/bash-completion/completions/hakaru
  zsh:   hakaru completions zsh > ~/.zfunc/_hakaru   (with fpath+=~/.zfunc before compinit)
  fish:  hakaru completions fish > ~/.config/fish/completions/hakaru.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Args, Debug)]
#[command(after_help = "Install, for example:
  hakaru man --dir ~/.local/share/man/man1   (then: man hakaru-run)
  hakaru man | man -l -")]
pub struct ManArgs {
    /// Write one page per command into DIR (hakaru.1, hakaru-run.1, ...) instead of
    /// printing hakaru(1) to stdout.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `hakaru completions SHELL`: the script on stdout.
pub fn completions(args: CompletionsArgs) -> anyhow::Result<i32> {
    // Into memory first: clap_complete panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "hakaru", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(0)
}

/// `hakaru man [--dir DIR]`.
pub fn man(args: ManArgs) -> anyhow::Result<i32> {
    let cmd = super::help::command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("--dir {}: cannot create it", dir.display()))?;
            super::help::man_pages(&dir)
                .with_context(|| format!("--dir {}: cannot write the pages", dir.display()))?;
            eprintln!("Manual pages written to {}", dir.display());
        }
        None => {
            let mut out = std::io::stdout().lock();
            super::help::render_man(&cmd, &mut out)?;
            out.flush()?;
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(shell: Shell) -> String {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "hakaru", &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn completions_know_every_command_and_their_flags() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let s = script(shell);
            // fish writes long flags without their dashes (`-l duration`).
            for word in [
                "run",
                "ramp",
                "ab",
                "report",
                "compare",
                "duration",
                "request-patterns-file",
                "completions",
                "man",
            ] {
                assert!(s.contains(word), "{shell}: no {word:?}");
            }
        }
    }

    #[test]
    fn the_man_page_names_the_commands() {
        let mut out = Vec::new();
        clap_mangen::Man::new(Cli::command())
            .render(&mut out)
            .unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{}", &page[..80]);
        assert!(page.contains(".TH hakaru 1"), "{page}");
        for sub in ["hakaru\\-run", "hakaru\\-ramp", "hakaru\\-completions"] {
            assert!(page.contains(sub), "no {sub} in the page");
        }
    }
}
