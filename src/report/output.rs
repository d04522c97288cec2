//! Every file a report writes, and nothing else writes one: which files (an
//! [`OutputPlan`]), the renderers' bytes collected in a [`Rendered`], and each put in
//! place through [`crate::outfile`] (a regular file replaced atomically, a device, FIFO
//! or `-` written through). [`check`] refuses, before any load or read, an output path
//! that cannot be written. The renderers themselves touch no file.

use std::path::{Path, PathBuf};

use crate::report::chart;
use crate::report::ReportOptions;

/// `path` with its extension replaced by `suffix` (e.g. "html", "-latency.svg").
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let name = if suffix.starts_with('-') || suffix.starts_with('.') {
        format!("{stem}{suffix}")
    } else {
        format!("{stem}.{suffix}")
    };
    path.with_file_name(name)
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Read(#[from] crate::result::read::ReadError),
    #[error("{path}: cannot write: {error}")]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    Png(String),
    #[error("--label gives {labels} label(s) for {files} file(s); give one per file")]
    LabelCount { labels: usize, files: usize },
}

/// Writes one report file through [`crate::outfile::write`], naming it on error.
pub fn write(path: &Path, contents: &[u8]) -> Result<(), ReportError> {
    crate::outfile::write(path, contents).map_err(|error| ReportError::Write {
        path: path.to_owned(),
        error,
    })
}

/// An output path that cannot be written, found before anything is measured or read.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {}: {error}", path.display())]
pub struct OutputError {
    pub flag: &'static str,
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// Before any load: every output path (`flag`, path) can be written. A missing
/// directory is created, with a line on stderr saying so.
pub fn check<'a>(
    paths: impl IntoIterator<Item = (&'static str, &'a Path)>,
) -> Result<(), OutputError> {
    for (flag, path) in paths {
        match crate::outfile::check(path) {
            Ok(Some(dir)) => eprintln!("Created directory {} for {flag}", dir.display()),
            Ok(None) => {}
            Err(error) => {
                return Err(OutputError {
                    flag,
                    path: path.to_owned(),
                    error,
                })
            }
        }
    }
    Ok(())
}

/// Before any load or read: no output path (`flag`, path) is one of the command's
/// inputs (`what`, path) by file identity ([`crate::outfile::replaces`]): `cp` and
/// `sort -o` refuse to clobber an input, and so does every hakaru command (issue 32:
/// `run --request-patterns-file in.csv -o in.csv` replaced the patterns with the
/// result, `merge s1.json s2.json -o s1.csv` a shard, `report r.json -o r.json` the
/// measurement).
pub fn refuse_inputs<'a>(
    outputs: impl IntoIterator<Item = (&'static str, &'a Path)>,
    inputs: &[(&str, &Path)],
) -> Result<(), OutputError> {
    for (flag, out) in outputs {
        for (what, input) in inputs {
            if crate::outfile::replaces(out, input) {
                let same = if out == *input {
                    String::new()
                } else {
                    " (the same file by another name)".to_string()
                };
                return Err(OutputError {
                    flag,
                    path: out.to_owned(),
                    error: std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        format!(
                            "would replace {what} {}{same}, one of this command's inputs; \
                             choose another output path",
                            input.display()
                        ),
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Where Markdown goes.
#[derive(Debug, Clone, PartialEq)]
pub enum MarkdownTo {
    Stdout,
    File(PathBuf),
}

/// What `hakaru report` and `hakaru compare` should write.
#[derive(Debug, Clone, Default)]
pub struct OutputPlan {
    /// The HTML page.
    pub html: Option<PathBuf>,
    /// Write the two charts as SVG next to the HTML (`<stem>-throughput.svg`, …).
    pub svg: bool,
    /// Same as PNG.
    pub png: bool,
    pub markdown: Option<MarkdownTo>,
    pub options: ReportOptions,
}

/// What was written, for the CLI to tell the user; `stdout` is text to print.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub files: Vec<PathBuf>,
    pub stdout: String,
}

/// What the renderers made: the files with their bytes, and the text for the
/// terminal. [`Rendered::write`] puts the files in place.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    files: Vec<(PathBuf, Vec<u8>)>,
    pub stdout: String,
}

impl Rendered {
    /// A file to write.
    pub fn put(&mut self, path: PathBuf, bytes: impl Into<Vec<u8>>) {
        self.files.push((path, bytes.into()));
    }

    /// The paths so far.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(p, _)| p.as_path())
    }

    /// Replace the bytes of every file put at `path` whose name ends in `.html`.
    pub fn replace_html(&mut self, html: &str) {
        for (p, b) in &mut self.files {
            if p.extension().is_some_and(|e| e == "html") {
                *b = html.as_bytes().to_vec();
            }
        }
    }

    /// Charts beside `base` as SVG and/or PNG, as the plan asks, each titled as given.
    pub fn charts<'a>(
        &mut self,
        charts: impl IntoIterator<Item = (String, &'a chart::LineChart)>,
        base: &Path,
        plan: &OutputPlan,
    ) -> Result<(), ReportError> {
        for (suffix, c) in charts {
            if plan.svg {
                self.put(sibling(base, &format!("{suffix}.svg")), chart::svg_file(c));
            }
            if plan.png {
                self.put(
                    sibling(base, &format!("{suffix}.png")),
                    crate::report::png::png_bytes(c).map_err(ReportError::Png)?,
                );
            }
        }
        Ok(())
    }

    /// The Markdown where the plan sends it; `text` for the terminal otherwise.
    /// Values in it are escaped as HTML escapes them ([`crate::report::table::escape_html`]).
    pub fn markdown(&mut self, md: String, text: String, plan: &OutputPlan) {
        let md = crate::report::table::escape_html(&md);
        match &plan.markdown {
            Some(MarkdownTo::Stdout) => self.stdout = md,
            Some(MarkdownTo::File(p)) => {
                self.put(p.clone(), md);
                self.stdout = text;
            }
            None => self.stdout = text,
        }
    }

    /// Every file put in place, through [`write`]; what was written.
    pub fn write(self) -> Result<Written, ReportError> {
        let mut out = Written {
            files: Vec::with_capacity(self.files.len()),
            stdout: self.stdout,
        };
        for (path, bytes) in self.files {
            write(&path, &bytes)?;
            out.files.push(path);
        }
        Ok(out)
    }
}
