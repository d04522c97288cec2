//! Request patterns: the plain-text list of paths or URLs, and every JSON form that
//! drnbench's README documents (named groups, an array of groups, a single group;
//! a group as an array of patterns or an object with options; a pattern as a path
//! string or an object).
//!
//! This module only reads and validates; `plan` turns patterns into encoded requests.

use std::path::Path;

/// One request pattern as written in the file. Fields left `None` fall back to the
/// group's, then to the command line's defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pattern {
    /// A path ("/d/select?query=a") or an absolute URL ("http://host:port/path").
    pub path: Option<String>,
    pub method: Option<String>,
    /// Request body. A JSON value that is not a string is sent as its JSON text.
    pub body: Option<String>,
    pub host: Option<String>,
    pub port: Option<u16>,
    /// Seconds.
    pub timeout: Option<f64>,
    pub headers: Vec<(String, String)>,
}

/// A group of patterns drawn with one frequency.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// The key in the named-groups form.
    pub name: Option<String>,
    /// Share of all requests; `None` means an equal share of what is left.
    pub frequency: Option<f64>,
    /// Defaults for this group's patterns.
    pub defaults: Pattern,
    pub patterns: Vec<Pattern>,
}

/// Everything one patterns file (or one URL on the command line) describes.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternSet {
    /// Where the patterns came from, for messages and the result file.
    pub source: String,
    pub groups: Vec<Group>,
}

#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    #[error("cannot read patterns file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("patterns file {path} is empty")]
    Empty { path: String },
    #[error("patterns file {path}: invalid JSON at line {line}, column {column}: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("patterns file {path}, line {line}: {message}")]
    Line {
        path: String,
        line: usize,
        message: String,
    },
    #[error("patterns file {path}: {message}")]
    Shape { path: String, message: String },
}

/// The parts of an absolute URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub https: bool,
    pub host: String,
    pub port: Option<u16>,
    /// Path and query, starting with '/'.
    pub path: String,
}

pub fn load_file(path: &Path) -> Result<PatternSet, PatternError> {
    let _ = path;
    todo!("pattern parsing")
}
