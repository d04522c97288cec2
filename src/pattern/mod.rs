//! Request patterns: what to send, read from a patterns file or one URL, or
//! generated from search terms.
//!
//! - [`text`]: the plain-text list of paths or URLs, one a line;
//! - [`drnbench`]: every JSON form drnbench's README documents (named groups, an
//!   array of groups, a single group; a group as an array of patterns or an object
//!   with options; a pattern as a path string or an object), read by the small
//!   span-keeping walker in [`json`];
//! - [`generate`]: patterns files from search terms (templates, drnbench's base
//!   params, cache-hit planning, same/unique keys);
//! - [`terms`]: search terms from Groonga `select` results.
//!
//! A group's patterns are kept compactly ([`store`]), and the text form is read a
//! line at a time, so a file of a million lines costs tens of megabytes, not its size
//! several times over. The file's SHA-256 is taken as it is read, for the result.
//!
//! A pattern may carry a `name` (JSON `"name"`, text `name=NAME /path`): its requests
//! are counted under that label in the result (docs/timeline.md).
//!
//! This module only reads and validates; `plan` turns patterns into encoded requests.
//! URLs are split and checked by [`crate::http::url`].
//!
//! The form of a file is chosen by its first character (after whitespace and a UTF-8
//! BOM): `{` or `[` means JSON, anything else a text list. Invalid JSON is an error
//! with its line and column — never silently re-read as text, which is what drnbench
//! did.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::http::url::{check_host, check_path_chars, is_http_url, parse_http_url, quote};

mod drnbench;
pub mod generate;
mod json;
mod store;
pub mod terms;
mod text;

pub use store::{split, Entry, Patterns};

#[cfg(test)]
mod tests;

/// One request pattern as written in the file. Fields left `None` fall back to the
/// group's, then to the command line's defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pattern {
    /// A path ("/d/select?query=a") or an absolute URL ("http://host:port/path").
    /// Raw non-ASCII is kept as written (`plan` percent-encodes it); spaces and
    /// control characters are rejected at parse time.
    pub path: Option<String>,
    /// An HTTP token such as "GET", kept as written.
    pub method: Option<String>,
    /// Request body. A JSON value that is not a string is sent as its JSON text.
    pub body: Option<String>,
    /// A host name or IP address; an IPv6 address is kept without brackets.
    pub host: Option<String>,
    pub port: Option<u16>,
    /// Seconds.
    pub timeout: Option<f64>,
    pub headers: Vec<(String, String)>,
    /// The pattern's own label (`"name"` in JSON, `name=NAME` before the path in the
    /// text form): its requests are counted under `name=NAME` in the result.
    pub name: Option<String>,
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
    pub patterns: Patterns,
}

/// Everything one patterns file (or one URL on the command line) describes.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternSet {
    /// Where the patterns came from, for messages and the result file.
    pub source: String,
    pub groups: Vec<Group>,
    /// `sha256:<hex>` of the file's bytes; `None` for a URL on the command line.
    pub digest: Option<String>,
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
    /// A line of the text form (or a non-UTF-8 byte) is wrong.
    #[error("patterns file {path}, line {line}: {message}")]
    Line {
        path: String,
        line: usize,
        message: String,
    },
    /// Valid JSON of the wrong shape. `line` is where the offending value starts.
    #[error(
        "patterns file {path}{}: {message}",
        .line.map(|l| format!(", line {l}")).unwrap_or_default()
    )]
    Shape {
        path: String,
        line: Option<usize>,
        message: String,
    },
    /// A key the JSON form does not know (a typo would otherwise be ignored).
    #[error("patterns file {path}, line {line}, column {column}: {message}")]
    Key {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A URL given on the command line is not an http(s) URL.
    #[error("invalid URL {url:?}: {message}")]
    Url { url: String, message: String },
}

impl PatternSet {
    /// How many patterns all groups hold together.
    pub fn n_patterns(&self) -> usize {
        self.groups.iter().map(|g| g.patterns.len()).sum()
    }

    /// [`normalized_frequencies`] of this set's groups.
    pub fn normalized_frequencies(&self) -> Vec<f64> {
        normalized_frequencies(&self.groups)
    }
}

/// Each group's share of requests, summing to 1, in group order.
///
/// drnbench's rule: a group without a frequency gets `1 / number_of_groups`, so with
/// no frequencies at all every group gets an equal share. drnbench then sends
/// `total × frequency` requests per group, so frequencies that do not sum to 1 change
/// the total; hakaru draws groups at random instead, so it normalizes the same raw
/// values to sum to 1 — the shares between groups are the ones drnbench would give.
/// A frequency of 0 means the group is never drawn. If every share is 0 (which
/// [`parse`] rejects) or a value is not finite, every group gets an equal share
/// rather than a division by zero.
pub fn normalized_frequencies(groups: &[Group]) -> Vec<f64> {
    if groups.is_empty() {
        return Vec::new();
    }
    let equal = 1.0 / groups.len() as f64;
    let raw: Vec<f64> = groups
        .iter()
        .map(|g| match g.frequency {
            Some(f) if f.is_finite() && f >= 0.0 => f,
            Some(_) => 0.0,
            None => equal,
        })
        .collect();
    let total: f64 = raw.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return vec![equal; groups.len()];
    }
    raw.iter().map(|r| r / total).collect()
}

/// The longest line a patterns file may have (a pattern is a line of the text form).
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// The most JSON a patterns file may hold (it is read whole).
pub const MAX_JSON_BYTES: u64 = 1 << 30;

/// The longest label a pattern or group may take (`"name"`, `name=`).
pub const MAX_NAME_LEN: usize = 100;

/// A pattern's or group's `name`: 1 to [`MAX_NAME_LEN`] characters, no whitespace or
/// control character (it is shown in tables and selected by `{name=…}`).
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a name must not be empty".into());
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(format!("a name is at most {MAX_NAME_LEN} characters"));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "the name {} has a space or control character",
            quote(name)
        ));
    }
    if name.contains(['{', '}', '=', ',']) {
        return Err(format!(
            "the name {} has one of {{ }} = , (a threshold's {{key=value}} could not select it)",
            quote(name)
        ));
    }
    Ok(())
}

/// Reads and parses a patterns file; messages name the file as given. The text form
/// is read a line at a time; JSON is read whole (its walker keeps spans).
pub fn load_file(path: &Path) -> Result<PatternSet, PatternError> {
    let display = path.display().to_string();
    let read_error = |source| PatternError::Read {
        path: display.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
    let not_utf8 = |line: usize, at: usize| PatternError::Line {
        path: display.clone(),
        line,
        message: format!("not valid UTF-8 (byte offset {at}); save the file as UTF-8"),
    };
    let mut buf = Vec::new();
    // Blank lines before the first that tells the form, kept for JSON's line numbers.
    let mut lead = String::new();
    let (mut number, mut offset) = (0, 0);
    let mut text: Option<text::TextParser> = None;
    loop {
        buf.clear();
        // Bounded: `/dev/zero` or a file of one endless line is refused, not read whole.
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(read_error)?;
        if read == 0 {
            break;
        }
        number += 1;
        if buf.len() > MAX_LINE_BYTES {
            // Minified JSON is one long line: read it on, to JSON's own bound.
            let start = buf.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(&buf);
            let first = start.iter().find(|b| !b.is_ascii_whitespace());
            if text.is_some() || !matches!(first, Some(b'{' | b'[')) {
                return Err(PatternError::Line {
                    path: display.clone(),
                    line: number,
                    message: format!("longer than {MAX_LINE_BYTES} bytes; a pattern is one line"),
                });
            }
            (&mut reader)
                .take(MAX_JSON_BYTES)
                .read_until(b'\n', &mut buf)
                .map_err(read_error)?;
        }
        digest.update(&buf);
        let bytes = if number == 1 {
            buf.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(&buf)
        } else {
            &buf
        };
        let line = std::str::from_utf8(bytes)
            .map_err(|e| not_utf8(number, offset + (buf.len() - bytes.len()) + e.valid_up_to()))?;
        offset += buf.len();
        if let Some(parser) = &mut text {
            parser.line(number, line)?;
            continue;
        }
        match line.trim_start().chars().next() {
            None => lead.push_str(line),
            Some('{' | '[') => {
                let mut rest = Vec::new();
                (&mut reader)
                    .take(MAX_JSON_BYTES + 1)
                    .read_to_end(&mut rest)
                    .map_err(read_error)?;
                if rest.len() as u64 > MAX_JSON_BYTES {
                    return Err(PatternError::Shape {
                        path: display,
                        line: None,
                        message: format!("more than {MAX_JSON_BYTES} bytes of JSON"),
                    });
                }
                digest.update(&rest);
                let rest = String::from_utf8(rest).map_err(|e| {
                    let at = e.utf8_error().valid_up_to();
                    let lines = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
                    not_utf8(number + 1 + lines, offset + at)
                })?;
                lead.push_str(line);
                lead.push_str(&rest);
                let groups = drnbench::parse_json(&lead, &display)?;
                return Ok(PatternSet {
                    source: display,
                    groups,
                    digest: Some(hex_digest(digest.finish())),
                });
            }
            Some(_) => {
                let mut parser = text::TextParser::new(&display);
                parser.line(number, line)?;
                text = Some(parser);
            }
        }
    }
    let Some(parser) = text else {
        return Err(PatternError::Empty { path: display });
    };
    let groups = vec![parser.finish()?];
    Ok(PatternSet {
        source: display,
        groups,
        digest: Some(hex_digest(digest.finish())),
    })
}

/// `sha256:<hex>`, as the result records a patterns file.
fn hex_digest(d: ring::digest::Digest) -> String {
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Parses the text of a patterns file. `source` names it in messages and in
/// [`PatternSet::source`].
pub fn parse(text: &str, source: &str) -> Result<PatternSet, PatternError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let groups = match body.trim_start().chars().next() {
        None => {
            return Err(PatternError::Empty {
                path: source.into(),
            })
        }
        Some('{' | '[') => drnbench::parse_json(body, source)?,
        Some(_) => vec![text::parse_text(body, source)?],
    };
    Ok(PatternSet {
        source: source.into(),
        groups,
        digest: Some(hex_digest(ring::digest::digest(
            &ring::digest::SHA256,
            text.as_bytes(),
        ))),
    })
}

/// A single URL given on the command line, as a one-pattern set whose source is the
/// URL itself.
pub fn from_url(url: &str) -> Result<PatternSet, PatternError> {
    parse_http_url(url).map_err(|message| PatternError::Url {
        url: crate::http::url::without_userinfo(url),
        message,
    })?;
    let mut patterns = Patterns::default();
    patterns.push_path(url);
    Ok(PatternSet {
        source: url.into(),
        groups: vec![Group {
            patterns,
            ..Group::default()
        }],
        digest: None,
    })
}

// ---------------------------------------------------------------------------
// Checks shared by both forms; each returns a message without location.

/// A path starting with '/' or an absolute http(s) URL.
fn check_target(s: &str) -> Result<(), String> {
    if s.starts_with('/') {
        check_path_chars(s)
    } else if is_http_url(s) {
        parse_http_url(s).map(|_| ())
    } else {
        Err(format!(
            "expected a path starting with '/' or an http(s):// URL, found {}",
            quote(s)
        ))
    }
}

/// A host field: a name, an IPv4 address, or an IPv6 address with or without
/// brackets (kept without).
fn check_host_field(host: &str) -> Result<String, String> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if bare.contains(':') && check_host(&format!("[{bare}]")).is_ok() {
        return Ok(bare.into());
    }
    if let Some((_, port)) = host.split_once(':') {
        if !port.contains(':') {
            return Err(format!(
                "the host {} has a port; put the port in \"port\"",
                quote(host)
            ));
        }
    }
    check_host(host)?;
    Ok(host.into())
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}
