//! The one end of every command that measures or reads a result (`run`, `ramp`, `ab`,
//! `bulk`, `merge`, `report`, `suite`): judge the thresholds (JUnit with them), print
//! the summary and the verdicts, write the result files and any page beside them, put
//! the result on stdout or a device for `-o -` or `-o /dev/…`, and return the exit
//! code. A result file that cannot be written is kept in a named temporary file after
//! the summary is printed: a measurement is never thrown away.
//!
//! [`check_outputs`] is its other half, called before any load: every path the end
//! will write is checked then, so a path that cannot be written costs no run.

use std::path::{Path, PathBuf};

use super::args::Human;
use super::threshold::ThresholdArgs;
use crate::report::output::Written;
use crate::result::store::Outputs;
use crate::result::RunResult;
use crate::runner::exit;

/// Where the result goes through (`-`, a device, a FIFO) and how it is written there.
pub type Through<'a> = (PathBuf, Box<dyn Fn(&RunResult) -> Vec<u8> + 'a>);

/// A page drawn from the judged run, and where it goes.
pub type Page = (PathBuf, fn(&RunResult) -> String);

/// Pages drawn from the judged run and written through [`crate::report::output`]
/// (`report`'s HTML, charts and Markdown): what was written, and the text for the
/// terminal they bring.
pub type Pages<'a> = Box<dyn FnOnce(&RunResult) -> anyhow::Result<Written> + 'a>;

/// What a command's end does besides judging and printing.
pub struct Finish<'a> {
    pub thresholds: &'a ThresholdArgs,
    /// Where text for a person goes.
    pub human: Human,
    /// The run's result files, rewritten with the verdicts.
    pub files: Option<&'a Outputs>,
    /// The result for `-o -` (stdout) or a device or FIFO, drawn from the judged
    /// run and written once, through.
    pub through: Option<Through<'a>>,
    /// Files beside the result: `ab -e` and `-g`.
    pub extra: Vec<(PathBuf, Vec<u8>)>,
    /// A page drawn from the judged run (`suite`'s timeline), and where it goes.
    pub page: Option<Page>,
    /// Pages drawn from the judged run (`report`'s), written after judging and before
    /// the summary: their text for the terminal follows the summary, the files they
    /// wrote are named on stderr. A result read for its pages is failed only by
    /// verdicts judged now, not by those it keeps from an earlier judgement.
    pub pages: Option<Pages<'a>>,
    /// Print the verdicts' table (not when stdout carries `report --markdown`'s table).
    pub table: bool,
    /// The measurement's own exit code ([`crate::runner::exit_code`], `--verify`).
    pub code: i32,
}

impl<'a> Finish<'a> {
    /// An end with nothing but the thresholds and the summary.
    pub fn new(thresholds: &'a ThresholdArgs, human: Human, code: i32) -> Self {
        Finish {
            thresholds,
            human,
            files: None,
            through: None,
            extra: Vec::new(),
            page: None,
            pages: None,
            table: true,
            code,
        }
    }
}

/// Judge, print `summary(run)` and the verdicts, write, and return the exit code.
pub fn finish(
    run: &mut RunResult,
    f: Finish<'_>,
    summary: impl FnOnce(&RunResult) -> String,
) -> anyhow::Result<i32> {
    let table = f.thresholds.judge(run, None)?;
    let reread = f.pages.is_some() && table.is_none();
    let drawn = f.pages.map(|draw| draw(run)).transpose()?;
    f.human.print(&summary(run));
    if let Some(w) = &drawn {
        f.human.print(&w.stdout);
        for file in w.files.iter().filter(|p| p.as_os_str() != "-") {
            eprintln!("wrote {}", file.display());
        }
    }
    if let Some(table) = table.filter(|_| f.table) {
        f.human.print(&format!("\n{table}"));
    }
    let mut code = f.code;
    let written = f.files.map(|out| write_or_keep(run, out));
    if written == Some(false) && code == exit::MEASURED {
        code = exit::FAILED;
    }
    for (path, bytes) in &f.extra {
        crate::report::output::write(path, bytes)?;
    }
    if let Some((path, draw)) = &f.page {
        crate::report::output::write(path, draw(run).as_bytes())?;
    }
    if let Some((path, draw)) = &f.through {
        crate::outfile::write(path, &draw(run))?;
    }
    if let (Some(out), Some(true)) = (f.files, written) {
        let pages: String = f
            .page
            .iter()
            .map(|(p, _)| format!("; timeline: {}", p.display()))
            .collect();
        f.human.print(&format!(
            "Results: {} and {}{pages}\n",
            out.csv.display(),
            out.json.display()
        ));
    }
    if reread {
        return Ok(code);
    }
    Ok(super::threshold::exit_code(run, code))
}

/// Write the result files; when that fails, keep the JSON (it holds everything) in a
/// temporary file and say where. False when the files could not be written.
pub fn write_or_keep(run: &RunResult, out: &Outputs) -> bool {
    let Err(e) = out.write(run) else {
        return true;
    };
    let name = out.json.file_name().map_or_else(
        || "result.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    match crate::outfile::keep(&name, crate::result::json::to_json(run).as_bytes()) {
        Ok(kept) => eprintln!(
            "hakaru: {e}; the result is kept in {} (hakaru report reads it)",
            kept.display()
        ),
        Err(k) => eprintln!("hakaru: {e}; keeping it in the temporary directory failed too: {k}"),
    }
    false
}

/// The paths a run's result files go to, for [`check_outputs`]: the CSV and the JSON
/// beside it, or the one path written through (`-`, a device, a FIFO).
pub fn result_paths(path: Option<&Path>) -> Vec<(&'static str, PathBuf)> {
    match path {
        None => Vec::new(),
        Some(p) if crate::outfile::is_through(p) => vec![("-o", p.to_path_buf())],
        Some(p) => {
            let o = Outputs::beside(p, crate::result::csv::CsvFormat::Full);
            vec![("-o", o.csv), ("-o", o.json)]
        }
    }
}

/// Before any load or read: every path the command will write can be written (see
/// [`crate::report::output::check`]), and none is one of the files it reads
/// (`inputs`: what each is, and its path; [`crate::report::output::refuse_inputs`]);
/// refused with exit code 2 otherwise.
pub fn check_outputs(
    result: Option<&Path>,
    thresholds: &ThresholdArgs,
    more: &[(&'static str, &Path)],
    inputs: &[(&str, &Path)],
) -> Result<(), crate::report::output::OutputError> {
    let mut all = result_paths(result);
    if let Some(j) = &thresholds.junit {
        all.push(("--junit", j.clone()));
    }
    all.extend(more.iter().map(|(f, p)| (*f, p.to_path_buf())));
    let paths = || all.iter().map(|(f, p)| (*f, p.as_path()));
    crate::report::output::refuse_inputs(paths(), inputs)?;
    crate::report::output::check(paths())
}
