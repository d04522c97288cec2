//! `hakaru terms`: search terms from Groonga select results (drnbench-extract-searchterms).
//! Flags map onto [`crate::pattern::terms::TermsOptions`]; the logic lives in
//! `crate::pattern::terms`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::pattern::terms::{extract_terms_from, fetch_url, TermsOptions};

/// Print one column of each record of Groonga select results, one term per line.
///
/// Reads command_version 1/2 (`[[status,...],[[[n_hits],columns,records...]]]`) and
/// 3 (`{"header":...,"body":{...}}`) results, with or without drilldowns, several
/// results one after another included. A vector column gives one term per element.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files holding select results; stdin when none is given or for `-`.
    pub files: Vec<PathBuf>,
    /// GET this http:// URL (a select request) and read its answer instead of files.
    #[arg(long, conflicts_with = "files")]
    pub url: Option<String>,
    /// Seconds to wait for --url's whole answer.
    #[arg(long, default_value_t = 30.0, requires = "url")]
    pub timeout: f64,
    /// Index of the column to print (0 = the first output column).
    #[arg(long, value_name = "N", conflicts_with = "column")]
    pub column_index: Option<usize>,
    /// Name of the column to print (e.g. title).
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// Percent-encode each term for a URL query parameter (space → %20, UTF-8 bytes → %XX).
    #[arg(long)]
    pub escape: bool,
    /// Print each term once, in order of first appearance.
    #[arg(long)]
    pub unique: bool,
    /// Print at most N terms.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let opts = TermsOptions {
        column_index: args.column_index,
        column: args.column,
        escape: args.escape,
        unique: args.unique,
        limit: args.limit,
    };
    let mut inputs: Vec<(String, String)> = Vec::new();
    if let Some(url) = &args.url {
        if !(args.timeout > 0.0 && args.timeout.is_finite()) {
            anyhow::bail!(
                "--timeout must be a positive number of seconds, got {}",
                args.timeout
            );
        }
        inputs.push((
            url.clone(),
            fetch_url(url, Duration::from_secs_f64(args.timeout))?,
        ));
    } else if args.files.is_empty() {
        inputs.push(("stdin".to_string(), read_stdin()?));
    } else {
        for path in &args.files {
            if path.as_os_str() == "-" {
                inputs.push(("stdin".to_string(), read_stdin()?));
            } else {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                inputs.push((path.display().to_string(), text));
            }
        }
    }
    let borrowed: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(source, text)| (source.as_str(), text.as_str()))
        .collect();
    let terms = extract_terms_from(&borrowed, &opts)?;
    let mut out = std::io::stdout().lock();
    for term in &terms {
        if let Err(e) = writeln!(out, "{term}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(0);
            }
            return Err(e).context("cannot write to stdout");
        }
    }
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to stdout")
        }
        _ => Ok(0),
    }
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read stdin")?;
    Ok(text)
}
