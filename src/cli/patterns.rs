//! `hakaru patterns`: a request patterns file from search terms (the tutorial's sed
//! step, drnbench-generate-select-patterns, cache-hit planning, Sekka's key sets).
//! Flags map onto [`crate::pattern::generate::PatternsOptions`]; the logic lives there.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;

use crate::pattern::generate::{
    generate_file, read_terms, EscapeMode, OutputFormat, PatternsOptions, RequestForm, RequestSet,
    DEFAULT_CACHE_SIZE, DRNBENCH_BASE_PARAMS,
};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One path per line.
    Text,
    /// drnbench's JSON: {"<group>": {"frequency", "method", "patterns": [{"path"}]}}.
    Json,
}

/// Turn search terms (one per line) into a request patterns file.
///
/// Terms may be raw or already percent-encoded (`hakaru terms --escape`): by default
/// everything not valid in a query parameter is encoded and existing %XX escapes are
/// kept, so both give the same paths. Repeated terms are dropped (they add weight, not
/// unique requests) unless --keep-duplicates.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files of terms, one per line; stdin when none is given or for `-`.
    pub files: Vec<PathBuf>,
    /// Request path with a {term} placeholder, e.g.
    /// '/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&query_flags=NONE&query={term}'.
    #[arg(long, conflicts_with = "base_params")]
    pub template: Option<String>,
    /// As drnbench-generate-select-patterns: /d/select?<PARAMS>&query=<term> (the default form,
    /// with PARAMS "limit=10&offset=0").
    #[arg(long, value_name = "PARAMS")]
    pub base_params: Option<String>,
    /// Terms are raw text: encode '%' too.
    #[arg(long, conflicts_with = "escaped")]
    pub escape: bool,
    /// Terms are already escaped: use them as they are.
    #[arg(long)]
    pub escaped: bool,
    /// Plan the unique requests for this cache hit rate (0.01..=1): N = cache size ÷ rate.
    #[arg(long, value_name = "RATE", conflicts_with_all = ["same_key", "unique_keys"])]
    pub cache_hit_rate: Option<f64>,
    /// Entries in the server's result cache (Groonga and droonga-http-server: 100).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CACHE_SIZE, requires = "cache_hit_rate")]
    pub cache_size: usize,
    /// One request only (the first term's), repeated by the engine (Sekka's samekey).
    #[arg(long, conflicts_with = "unique_keys")]
    pub same_key: bool,
    /// The first N distinct terms (Sekka's uniqkey).
    #[arg(long, value_name = "N")]
    pub unique_keys: Option<usize>,
    /// Keep repeated terms as repeated patterns.
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// JSON group name (default "with-query", as drnbench).
    #[arg(long, value_name = "NAME")]
    pub group: Option<String>,
    /// JSON group frequency (default 1.0; split equally between --hosts).
    #[arg(long, value_name = "F")]
    pub frequency: Option<f64>,
    /// JSON group method (default "get", as drnbench).
    #[arg(long, value_name = "METHOD")]
    pub method: Option<String>,
    /// One JSON group per host, each with "host" set and an equal share of the frequency.
    #[arg(long, value_name = "HOST,...", value_delimiter = ',')]
    pub hosts: Vec<String>,
    /// Write the patterns here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    // The patterns are written over -o's file only once every term is read: refuse, before
    // reading, an -o that is one of the terms files.
    if let Some(out) = &args.output {
        let inputs: Vec<(&str, &std::path::Path)> = (args.files.iter())
            .map(|p| ("the terms file", p.as_path()))
            .collect();
        crate::report::output::refuse_inputs([("-o", out.as_path())], &inputs)?;
    }
    let form = match (args.template, args.base_params) {
        (Some(t), _) => RequestForm::Template(t),
        (None, Some(p)) => RequestForm::BaseParams(p),
        (None, None) => RequestForm::BaseParams(DRNBENCH_BASE_PARAMS.to_string()),
    };
    let escape = if args.escape {
        EscapeMode::Raw
    } else if args.escaped {
        EscapeMode::Verbatim
    } else {
        EscapeMode::Auto
    };
    let set = if let Some(hit_rate) = args.cache_hit_rate {
        RequestSet::CacheHitRate {
            hit_rate,
            cache_size: args.cache_size,
        }
    } else if args.same_key {
        RequestSet::SameKey
    } else if let Some(n) = args.unique_keys {
        RequestSet::UniqueKeys(n)
    } else {
        RequestSet::All
    };
    let opts = PatternsOptions {
        form,
        escape,
        set,
        keep_duplicates: args.keep_duplicates,
        format: match args.format {
            Format::Text => OutputFormat::Text,
            Format::Json => OutputFormat::Json,
        },
        group: args.group,
        frequency: args.frequency,
        method: args.method,
        hosts: args.hosts,
    };
    let mut text = String::new();
    if args.files.is_empty() {
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read stdin")?;
    } else {
        for path in &args.files {
            if path.as_os_str() == "-" {
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("cannot read stdin")?;
            } else {
                text.push_str(
                    &std::fs::read_to_string(path)
                        .with_context(|| format!("cannot read {}", path.display()))?,
                );
            }
            text.push('\n');
        }
    }
    let (file_text, notes) = generate_file(&read_terms(&text), &opts)?;
    for note in &notes {
        eprintln!("hakaru patterns: {note}");
    }
    match &args.output {
        Some(path) => {
            crate::report::output::write(path, file_text.as_bytes())
                .with_context(|| format!("-o {}", path.display()))?;
            Ok(0)
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out
                .write_all(file_text.as_bytes())
                .and_then(|_| out.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("cannot write to stdout")
                }
                _ => Ok(0),
            }
        }
    }
}
