//! Request patterns: the plain-text list of paths or URLs, and every JSON form that
//! drnbench's README documents (named groups, an array of groups, a single group;
//! a group as an array of patterns or an object with options; a pattern as a path
//! string or an object).
//!
//! This module only reads and validates; `plan` turns patterns into encoded requests.
//!
//! The form is chosen by the first character (after whitespace and a UTF-8 BOM):
//! `{` or `[` means JSON, anything else a text list. Invalid JSON is an error with its
//! line and column — never silently re-read as text, which is what drnbench did.
//!
//! JSON forms are told apart exactly as drnbench's `request-pattern.rb` does:
//! - a top-level array whose first element is a group (an array, or an object with
//!   `"patterns"`/`"pattern"`) is an array of groups; otherwise it is one group of
//!   patterns;
//! - a top-level object with `"patterns"`/`"pattern"` is one group; otherwise each of
//!   its members is a named group, kept in file order.
//!
//! Unknown keys are ignored, as drnbench ignores them (drnbench's own `"command"` key
//! of its Droonga mode, for one). A JSON `null` counts as absent, as Ruby's `||=` does.

use std::net::Ipv6Addr;
use std::path::Path;

pub mod generate;
pub mod terms;

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
    /// A URL given on the command line is not an http(s) URL.
    #[error("invalid URL {url:?}: {message}")]
    Url { url: String, message: String },
}

/// The parts of an absolute URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub https: bool,
    /// Host name or IP address; an IPv6 literal is given without its brackets.
    pub host: String,
    pub port: Option<u16>,
    /// Path and query, starting with '/'. A fragment is dropped (it is never sent).
    pub path: String,
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

/// Reads and parses a patterns file; messages name the file as given.
pub fn load_file(path: &Path) -> Result<PatternSet, PatternError> {
    let display = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| PatternError::Read {
        path: display.clone(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        PatternError::Line {
            path: display.clone(),
            line,
            message: format!("not valid UTF-8 (byte offset {at}); save the file as UTF-8"),
        }
    })?;
    parse(&text, &display)
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
        Some('{' | '[') => parse_json(body, source)?,
        Some(_) => vec![parse_text(body, source)?],
    };
    Ok(PatternSet {
        source: source.into(),
        groups,
    })
}

/// A single URL given on the command line, as a one-pattern set whose source is the
/// URL itself.
pub fn from_url(url: &str) -> Result<PatternSet, PatternError> {
    parse_url(url).map_err(|message| PatternError::Url {
        url: url.into(),
        message,
    })?;
    Ok(PatternSet {
        source: url.into(),
        groups: vec![Group {
            patterns: vec![Pattern {
                path: Some(url.into()),
                ..Pattern::default()
            }],
            ..Group::default()
        }],
    })
}

/// Splits `http://host[:port][/path?query]` or `https://...` (scheme in any case,
/// IPv6 literals in brackets). The path defaults to "/". `None` for anything else,
/// including a port that is not 1-65535.
pub fn split_url(s: &str) -> Option<UrlParts> {
    parse_url(s).ok()
}

// ---------------------------------------------------------------------------
// Text form

fn parse_text(body: &str, source: &str) -> Result<Group, PatternError> {
    let mut patterns = Vec::new();
    for (i, raw) in body.split('\n').enumerate() {
        // Only ASCII whitespace is trimmed: an ideographic space at the end of a
        // Japanese query term is part of the term.
        let line = raw.trim_matches(|c: char| c.is_ascii_whitespace());
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        check_target(line).map_err(|message| PatternError::Line {
            path: source.into(),
            line: i + 1,
            message,
        })?;
        patterns.push(Pattern {
            path: Some(line.into()),
            ..Pattern::default()
        });
    }
    if patterns.is_empty() {
        return Err(PatternError::Empty {
            path: source.into(),
        });
    }
    Ok(Group {
        patterns,
        ..Group::default()
    })
}

// ---------------------------------------------------------------------------
// Checks shared by both forms; each returns a message without location.

/// Quotes a value for a message, truncated so one bad 10 kB line stays readable.
fn quote(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((at, _)) => format!("{:?}", format!("{}…", &s[..at])),
        None => format!("{s:?}"),
    }
}

/// A path starting with '/' or an absolute http(s) URL.
fn check_target(s: &str) -> Result<(), String> {
    if s.starts_with('/') {
        check_path_chars(s)
    } else if http_scheme(s).is_some() {
        parse_url(s).map(|_| ())
    } else {
        Err(format!(
            "expected a path starting with '/' or an http(s):// URL, found {}",
            quote(s)
        ))
    }
}

/// Spaces and control characters would break the request line. Raw non-ASCII is
/// fine: `plan` percent-encodes it.
fn check_path_chars(path: &str) -> Result<(), String> {
    for (at, c) in path.char_indices() {
        if c == ' ' {
            return Err(format!(
                "the path has a space at byte {at}, which would make a malformed request \
                 (percent-encode it as %20): {}",
                quote(path)
            ));
        }
        if c.is_control() {
            return Err(format!(
                "the path has a control character {c:?} at byte {at}, which would make a \
                 malformed request: {}",
                quote(path)
            ));
        }
    }
    Ok(())
}

/// `Some(https?, rest after "://")` when `s` starts with http:// or https:// in any case.
fn http_scheme(s: &str) -> Option<(bool, &str)> {
    for (prefix, https) in [("http://", false), ("https://", true)] {
        if s.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        {
            return Some((https, &s[prefix.len()..]));
        }
    }
    None
}

fn parse_url(s: &str) -> Result<UrlParts, String> {
    let (https, rest) = http_scheme(s)
        .ok_or_else(|| format!("expected an http:// or https:// URL, found {}", quote(s)))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if authority.is_empty() {
        return Err(format!("the URL has no host: {}", quote(s)));
    }
    if authority.contains('@') {
        return Err(format!(
            "user names in URLs are not supported (send an Authorization header instead): {}",
            quote(s)
        ));
    }
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| format!("the IPv6 host has no closing ']': {}", quote(s)))?;
        let host = &inner[..close];
        if host.parse::<Ipv6Addr>().is_err() {
            return Err(format!(
                "{} is not an IPv6 address: {}",
                quote(host),
                quote(s)
            ));
        }
        let after = &inner[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => {
                return Err(format!(
                    "unexpected {} after the IPv6 host: {}",
                    quote(after),
                    quote(s)
                ))
            }
        };
        (host, port)
    } else {
        if authority.matches(':').count() > 1 {
            return Err(format!(
                "an IPv6 host must be written in brackets, like http://[::1]:8080/: {}",
                quote(s)
            ));
        }
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        check_host_name(host).map_err(|m| format!("{m}: {}", quote(s)))?;
        (host, port)
    };
    let port = match port {
        // "host:" with an empty port means the default port (RFC 3986).
        None | Some("") => None,
        Some(p) => Some(parse_port_text(p).ok_or_else(|| {
            format!(
                "invalid port {} (must be an integer 1-65535): {}",
                quote(p),
                quote(s)
            )
        })?),
    };
    let tail = tail.split_once('#').map_or(tail, |(before, _)| before);
    let path = if tail.starts_with('/') {
        tail.to_string()
    } else {
        format!("/{tail}")
    };
    check_path_chars(&path)?;
    Ok(UrlParts {
        https,
        host: host.into(),
        port,
        path,
    })
}

fn parse_port_text(p: &str) -> Option<u16> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    p.parse::<u16>().ok().filter(|&n| n != 0)
}

/// A DNS name or IPv4 address: ASCII letters, digits, '-', '.', '_'.
fn check_host_name(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("the host is empty".into());
    }
    match host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        Some(c) => Err(format!(
            "the host {} has an invalid character {c:?}",
            quote(host)
        )),
        None => Ok(()),
    }
}

/// A host field: a name, an IPv4 address, or an IPv6 address with or without
/// brackets (kept without).
fn check_host_field(host: &str) -> Result<String, String> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if bare.parse::<Ipv6Addr>().is_ok() {
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
    check_host_name(host)?;
    Ok(host.into())
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

// ---------------------------------------------------------------------------
// JSON form
//
// serde_json checks the syntax (and gives line and column). Then a small walker
// re-reads the now-valid text into `Node`s that keep each value's byte span, so shape
// errors can name a line, objects keep file order, and a JSON body keeps its key
// order, without the `preserve_order` feature changing serde_json for the crate.

/// Deeper nesting than any patterns file needs; bounds the walker's recursion.
const MAX_DEPTH: usize = 64;

struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    Null,
    Bool,
    Number(f64),
    Str(String),
    Array(Vec<Node>),
    /// Members in file order; a repeated key is looked up by its last occurrence,
    /// as serde_json does.
    Object(Vec<(String, Node)>),
}

impl Node {
    fn members(&self) -> Option<&[(String, Node)]> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// A member of an object, `None` if absent or null.
fn member<'a>(members: &'a [(String, Node)], key: &str) -> Option<&'a Node> {
    members
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .filter(|v| !matches!(v.kind, Kind::Null))
}

fn has_group_key(members: &[(String, Node)]) -> bool {
    member(members, "patterns").is_some() || member(members, "pattern").is_some()
}

/// A shape error at a byte offset of the JSON text.
struct ShapeErr {
    at: usize,
    message: String,
}

fn shape(node: &Node, message: String) -> ShapeErr {
    ShapeErr {
        at: node.start,
        message,
    }
}

struct Walker<'a> {
    text: &'a str,
    i: usize,
}

impl Walker<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn fail(&self, what: &str) -> ShapeErr {
        // Only reachable if serde_json accepted something this walker does not.
        ShapeErr {
            at: self.i.min(self.text.len()),
            message: format!("unexpected JSON here ({what})"),
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes().get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        if self.bytes().get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, ShapeErr> {
        self.skip_ws();
        let start = self.i;
        if depth > MAX_DEPTH {
            return Err(ShapeErr {
                at: start,
                message: format!("values are nested more than {MAX_DEPTH} levels deep"),
            });
        }
        let kind = match self.bytes().get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.skip_ws();
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.fail("expected ':'"));
                        }
                        members.push((key, self.value(depth + 1)?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail("expected ',' or '}'"));
                        }
                    }
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail("expected ',' or ']'"));
                        }
                    }
                }
                Kind::Array(items)
            }
            Some(b'"') => Kind::Str(self.string()?),
            Some(b't') => self.literal("true", Kind::Bool)?,
            Some(b'f') => self.literal("false", Kind::Bool)?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => {
                while matches!(
                    self.bytes().get(self.i),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.i += 1;
                }
                let n = self.text[start..self.i]
                    .parse::<f64>()
                    .map_err(|_| self.fail("bad number"))?;
                Kind::Number(n)
            }
            _ => return Err(self.fail("expected a value")),
        };
        Ok(Node {
            start,
            end: self.i,
            kind,
        })
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Kind, ShapeErr> {
        if self.text[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(kind)
        } else {
            Err(self.fail("bad literal"))
        }
    }

    fn string(&mut self) -> Result<String, ShapeErr> {
        let start = self.i;
        if self.bytes().get(self.i) != Some(&b'"') {
            return Err(self.fail("expected a string"));
        }
        self.i += 1;
        loop {
            match self.bytes().get(self.i) {
                None => return Err(self.fail("unterminated string")),
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(_) => self.i += 1,
            }
        }
        self.text
            .get(start..self.i)
            .and_then(|raw| serde_json::from_str::<String>(raw).ok())
            .ok_or_else(|| self.fail("bad string"))
    }
}

/// JSON text without the whitespace between tokens, in the original key order.
fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

fn parse_json(body: &str, source: &str) -> Result<Vec<Group>, PatternError> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        let full = e.to_string();
        // serde_json appends " at line L column C"; we print those as fields.
        let message = match full.rfind(" at line ") {
            Some(at) => full[..at].to_string(),
            None => full,
        };
        return Err(PatternError::Json {
            path: source.into(),
            line: e.line(),
            column: e.column(),
            message,
        });
    }
    let reader = Reader { text: body };
    let located = |e: ShapeErr| PatternError::Shape {
        path: source.into(),
        line: Some(
            body.as_bytes()[..e.at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1,
        ),
        message: e.message,
    };
    let mut walker = Walker { text: body, i: 0 };
    let root = walker.value(0).map_err(located)?;
    let groups = reader.groups(&root).map_err(located)?;
    if groups.iter().all(|g| g.frequency == Some(0.0)) {
        return Err(PatternError::Shape {
            path: source.into(),
            line: None,
            message: "every group has \"frequency\" 0, so no request would ever be sent".into(),
        });
    }
    Ok(groups)
}

/// Keys a group or pattern object has; a top-level member with one of these names
/// and a plain value was most likely meant as a single group's option.
const FIELD_KEYS: [&str; 8] = [
    "path",
    "method",
    "body",
    "host",
    "port",
    "timeout",
    "headers",
    "frequency",
];

/// Adds a hint when a named group's error comes from a top-level object that looks
/// like a single group (or pattern) missing its "patterns".
fn hint_unwrapped_group(mut e: ShapeErr, name: &str, value: &Node) -> ShapeErr {
    if FIELD_KEYS.contains(&name) && !matches!(value.kind, Kind::Array(_) | Kind::Object(_)) {
        e.message.push_str(
            " (a single group needs \"patterns\" or \"pattern\"; without them, \
             each member of the top-level object is read as a named group)",
        );
    }
    e
}

/// How a group is named in messages.
enum GroupLabel<'a> {
    /// The whole file is one group.
    Only,
    Index(usize),
    Named(&'a str),
}

impl GroupLabel<'_> {
    fn group(&self) -> String {
        match self {
            GroupLabel::Only => "the group".into(),
            GroupLabel::Index(i) => format!("group #{i}"),
            GroupLabel::Named(n) => format!("group {}", quote(n)),
        }
    }

    /// `index` is 1-based; `None` for the `"pattern"` (singular) form.
    fn pattern(&self, index: Option<usize>) -> String {
        let own = match index {
            Some(i) => format!("pattern #{i}"),
            None => "pattern".into(),
        };
        match self {
            GroupLabel::Only => own,
            _ => format!("{}, {own}", self.group()),
        }
    }

    fn name(&self) -> Option<String> {
        match self {
            GroupLabel::Named(n) => Some((*n).into()),
            _ => None,
        }
    }
}

/// Turns validated JSON nodes into groups; keeps the text to quote offending values.
struct Reader<'a> {
    text: &'a str,
}

impl Reader<'_> {
    /// An offending value as it was written, compacted and truncated.
    fn found(&self, node: &Node) -> String {
        let text = compact(&self.text[node.start..node.end]);
        match text.char_indices().nth(60) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        }
    }

    fn groups(&self, root: &Node) -> Result<Vec<Group>, ShapeErr> {
        match &root.kind {
            Kind::Array(items) => {
                let Some(first) = items.first() else {
                    return Err(shape(
                        root,
                        "the top-level array is empty: there are no patterns".into(),
                    ));
                };
                // drnbench: an array whose first element is a group is an array of
                // groups. (drnbench also wants that inner array's first element to be
                // a pattern; an array can never be a pattern, so taking any array as a
                // group changes nothing but the error an empty group gets.)
                let first_is_group = match &first.kind {
                    Kind::Array(_) => true,
                    Kind::Object(m) => has_group_key(m),
                    _ => false,
                };
                if first_is_group {
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, g)| self.group(g, GroupLabel::Index(i + 1)))
                        .collect()
                } else if matches!(first.kind, Kind::Str(_) | Kind::Object(_)) {
                    Ok(vec![self.group(root, GroupLabel::Only)?])
                } else {
                    Err(shape(
                        first,
                        format!(
                            "the top-level array's first element must be a group or a pattern, found {}",
                            self.found(first)
                        ),
                    ))
                }
            }
            Kind::Object(members) => {
                if has_group_key(members) {
                    return Ok(vec![self.group(root, GroupLabel::Only)?]);
                }
                if members.is_empty() {
                    return Err(shape(
                        root,
                        "the top-level object is empty: there are no groups".into(),
                    ));
                }
                members
                    .iter()
                    .map(|(name, g)| {
                        self.group(g, GroupLabel::Named(name))
                            .map_err(|e| hint_unwrapped_group(e, name, g))
                    })
                    .collect()
            }
            _ => Err(shape(root, "expected an object or an array".into())),
        }
    }

    fn group(&self, node: &Node, label: GroupLabel) -> Result<Group, ShapeErr> {
        let g = label.group();
        let patterns_of = |items: &[Node]| -> Result<Vec<Pattern>, ShapeErr> {
            items
                .iter()
                .enumerate()
                .map(|(i, p)| self.pattern(p, &label.pattern(Some(i + 1))))
                .collect()
        };
        let group = match &node.kind {
            Kind::Array(items) => Group {
                name: label.name(),
                patterns: patterns_of(items)?,
                ..Group::default()
            },
            Kind::Object(members) => {
                let frequency = match member(members, "frequency") {
                    None => None,
                    Some(v) => Some(
                        number_value(v)
                            .filter(|f| f.is_finite() && *f >= 0.0)
                            .ok_or_else(|| {
                                let found = self.found(v);
                                let m = format!(
                                    "{g}: \"frequency\" must be a non-negative number, found {found}"
                                );
                                shape(v, m)
                            })?,
                    ),
                };
                let defaults = self.fields(members, &g)?;
                let single = member(members, "pattern");
                let patterns = match (single, member(members, "patterns")) {
                    (Some(_), Some(p)) => {
                        let m = format!("{g} has both \"pattern\" and \"patterns\"; use one");
                        return Err(shape(p, m));
                    }
                    (Some(p), None) if matches!(p.kind, Kind::Array(_)) => {
                        let m = format!(
                            "{g}: \"pattern\" holds a single pattern; use \"patterns\" for an array"
                        );
                        return Err(shape(p, m));
                    }
                    (Some(p), None) => vec![self.pattern(p, &label.pattern(None))?],
                    (None, Some(ps)) => match &ps.kind {
                        Kind::Array(items) => patterns_of(items)?,
                        _ => {
                            let found = self.found(ps);
                            let m = format!("{g}: \"patterns\" must be an array, found {found}");
                            return Err(shape(ps, m));
                        }
                    },
                    (None, None) => {
                        let m = format!(
                            "{g}: an object group needs \"patterns\" (an array) or \"pattern\""
                        );
                        return Err(shape(node, m));
                    }
                };
                Group {
                    name: label.name(),
                    frequency,
                    defaults,
                    patterns,
                }
            }
            _ => {
                let found = self.found(node);
                let m = format!(
                    "{g} must be an array of patterns or an object with \"patterns\" or \
                     \"pattern\", found {found}"
                );
                return Err(shape(node, m));
            }
        };
        if group.patterns.is_empty() {
            return Err(shape(node, format!("{g} has no patterns")));
        }
        Ok(group)
    }

    fn pattern(&self, node: &Node, label: &str) -> Result<Pattern, ShapeErr> {
        match &node.kind {
            Kind::Str(s) => {
                check_target(s).map_err(|m| shape(node, format!("{label}: {m}")))?;
                Ok(Pattern {
                    path: Some(s.clone()),
                    ..Pattern::default()
                })
            }
            Kind::Object(members) if has_group_key(members) => Err(shape(
                node,
                format!("{label} has \"patterns\" or \"pattern\", like a group; groups cannot be nested"),
            )),
            Kind::Object(members) => self.fields(members, label),
            _ => Err(shape(
                node,
                format!(
                    "{label} must be a path string or an object, found {}",
                    self.found(node)
                ),
            )),
        }
    }

    /// The request fields shared by pattern objects and group objects.
    fn fields(&self, members: &[(String, Node)], label: &str) -> Result<Pattern, ShapeErr> {
        let bad =
            |v: &Node, what: &str| shape(v, format!("{label}: {what}, found {}", self.found(v)));
        let string = |key: &str| -> Result<Option<(&Node, &str)>, ShapeErr> {
            match member(members, key) {
                None => Ok(None),
                Some(v) => match &v.kind {
                    Kind::Str(s) => Ok(Some((v, s.as_str()))),
                    _ => Err(bad(v, &format!("\"{key}\" must be a string"))),
                },
            }
        };
        let mut p = Pattern::default();
        if let Some((v, s)) = string("path")? {
            check_target(s).map_err(|m| shape(v, format!("{label}: \"path\": {m}")))?;
            p.path = Some(s.into());
        }
        if let Some((v, s)) = string("method")? {
            if s.is_empty() || !s.chars().all(is_token_char) {
                return Err(bad(
                    v,
                    "\"method\" must be an HTTP method name like \"GET\"",
                ));
            }
            p.method = Some(s.into());
        }
        if let Some(v) = member(members, "body") {
            p.body = Some(match &v.kind {
                Kind::Str(s) => s.clone(),
                _ => compact(&self.text[v.start..v.end]),
            });
        }
        if let Some((v, s)) = string("host")? {
            let host =
                check_host_field(s).map_err(|m| shape(v, format!("{label}: \"host\": {m}")))?;
            p.host = Some(host);
        }
        if let Some(v) = member(members, "port") {
            let port = match &v.kind {
                Kind::Number(_) => parse_port_text(&self.text[v.start..v.end]),
                // drnbench handed the value to Ruby as is, where "10041" worked too.
                Kind::Str(s) => parse_port_text(s),
                _ => None,
            };
            p.port = Some(port.ok_or_else(|| bad(v, "\"port\" must be an integer 1-65535"))?);
        }
        if let Some(v) = member(members, "timeout") {
            p.timeout = Some(
                number_value(v)
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .ok_or_else(|| bad(v, "\"timeout\" must be a positive number of seconds"))?,
            );
        }
        if let Some(v) = member(members, "headers") {
            let Some(headers) = v.members() else {
                return Err(bad(v, "\"headers\" must be an object of names to values"));
            };
            for (name, value) in headers {
                if name.is_empty() || !name.chars().all(is_token_char) {
                    return Err(shape(
                        value,
                        format!(
                            "{label}: header name {} is not a valid HTTP header name",
                            quote(name)
                        ),
                    ));
                }
                let text = match &value.kind {
                    Kind::Str(s) => s.clone(),
                    Kind::Number(_) | Kind::Bool => self.text[value.start..value.end].to_string(),
                    _ => {
                        return Err(shape(
                            value,
                            format!(
                                "{label}: header {} must be a string, found {}",
                                quote(name),
                                self.found(value)
                            ),
                        ))
                    }
                };
                if text.chars().any(|c| c.is_control() && c != '\t') {
                    return Err(shape(
                        value,
                        format!(
                            "{label}: header {} has a control character (a line break would split the request)",
                            quote(name)
                        ),
                    ));
                }
                p.headers.push((name.clone(), text));
            }
        }
        Ok(p)
    }
}

/// A JSON number, or a string holding one (drnbench read frequencies with `to_f`).
fn number_value(v: &Node) -> Option<f64> {
    match &v.kind {
        Kind::Number(n) => Some(*n),
        Kind::Str(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> PatternSet {
        match parse(text, "t.json") {
            Ok(set) => set,
            Err(e) => panic!("expected to parse, got: {e}"),
        }
    }

    fn err(text: &str) -> PatternError {
        match parse(text, "t.json") {
            Ok(set) => panic!("expected an error, got {set:?}"),
            Err(e) => e,
        }
    }

    fn paths(g: &Group) -> Vec<&str> {
        g.patterns
            .iter()
            .map(|p| p.path.as_deref().unwrap_or("-"))
            .collect()
    }

    fn path(s: &str) -> Pattern {
        Pattern {
            path: Some(s.into()),
            ..Pattern::default()
        }
    }

    /// A file under the temp dir, removed on drop.
    struct TempFile(std::path::PathBuf);
    impl TempFile {
        fn new(name: &str, bytes: &[u8]) -> TempFile {
            let p =
                std::env::temp_dir().join(format!("hakaru-pattern-{}-{name}", std::process::id()));
            std::fs::write(&p, bytes).unwrap();
            TempFile(p)
        }
    }
    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    const SELECT: &str = "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&output_columns=snippet_html(title),snippet_html(text),categories,_key&query_flags=NONE&sortby=title&drilldown=categories&drilldown_limit=10&drilldown_output_columns=_id,_key,_nsubrecs&drilldown_sortby=_nsubrecs&query=AAA";

    // ----- text form

    #[test]
    fn text_skips_blank_and_comment_lines_and_trims_crlf() {
        let set = ok("# header\r\n\r\n  /a?x=1  \r\n\t# indented comment\n/b\r\n\n");
        assert_eq!(set.source, "t.json");
        assert_eq!(set.groups.len(), 1);
        let g = &set.groups[0];
        assert_eq!(g.name, None);
        assert_eq!(g.frequency, None);
        assert_eq!(g.defaults, Pattern::default());
        assert_eq!(g.patterns, vec![path("/a?x=1"), path("/b")]);
        assert_eq!(set.n_patterns(), 2);
    }

    #[test]
    fn text_accepts_urls_and_ipv6_urls() {
        let set =
            ok("http://127.0.0.1:10041/d/status\nHTTPS://example.com\nhttp://[::1]:8080/x?y=1\n");
        assert_eq!(
            paths(&set.groups[0]),
            [
                "http://127.0.0.1:10041/d/status",
                "HTTPS://example.com",
                "http://[::1]:8080/x?y=1"
            ]
        );
    }

    #[test]
    fn text_tutorial_select_line() {
        let text = format!("{SELECT}\n{}\n", SELECT.replace("AAA", "BBB"));
        let set = ok(&text);
        assert_eq!(set.n_patterns(), 2);
        assert_eq!(set.groups[0].patterns[0].path.as_deref(), Some(SELECT));
    }

    #[test]
    fn text_japanese_raw_and_percent_encoded() {
        let set = ok("/d/select?table=Pages&query=%E6%9D%B1%E4%BA%AC\n/d/select?table=Pages&query=東京\n/d/select?query=東京\u{3000}\n");
        assert_eq!(
            paths(&set.groups[0]),
            [
                "/d/select?table=Pages&query=%E6%9D%B1%E4%BA%AC",
                "/d/select?table=Pages&query=東京",
                // The ideographic space is part of the term, not trimmed.
                "/d/select?query=東京\u{3000}",
            ]
        );
    }

    #[test]
    fn text_bom_is_skipped() {
        let set = ok("\u{feff}/a\n");
        assert_eq!(paths(&set.groups[0]), ["/a"]);
        let set = ok("\u{feff}[\"/a\"]");
        assert_eq!(paths(&set.groups[0]), ["/a"]);
    }

    #[test]
    fn text_bad_line_names_its_number() {
        let e = err("/a\n# comment\nfoo\n/b\n");
        assert!(matches!(e, PatternError::Line { line: 3, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "patterns file t.json, line 3: expected a path starting with '/' or an http(s):// URL, found \"foo\""
        );
        let e = err("foo bar");
        assert!(e.to_string().ends_with("found \"foo bar\""), "{e}");
    }

    #[test]
    fn text_long_bad_line_is_truncated() {
        let line = "x".repeat(500);
        let msg = err(&line).to_string();
        assert!(msg.len() < 200, "{msg}");
        assert!(msg.contains('…'), "{msg}");
    }

    #[test]
    fn text_path_with_space_or_control_is_an_error() {
        let e = err("/a\n/d/select?query=foo bar\n");
        assert!(matches!(e, PatternError::Line { line: 2, .. }), "{e:?}");
        assert!(e.to_string().contains("space"), "{e}");
        let e = err("/a\u{1}b\n");
        assert!(e.to_string().contains("control character"), "{e}");
        // A tab in the middle of a line (edges are trimmed).
        let e = err("/a\tb\n");
        assert!(e.to_string().contains("control character '\\t'"), "{e}");
    }

    #[test]
    fn text_bad_url_line_says_what_is_wrong() {
        let e = err("/a\nhttp://host:99999/x\n");
        assert!(matches!(e, PatternError::Line { line: 2, .. }), "{e:?}");
        assert!(e.to_string().contains("invalid port \"99999\""), "{e}");
        let e = err("http:///x");
        assert!(e.to_string().contains("no host"), "{e}");
        let e = err("http://::1/x");
        assert!(e.to_string().contains("brackets"), "{e}");
        let e = err("ftp://host/x");
        assert!(e.to_string().contains("expected a path"), "{e}");
    }

    #[test]
    fn empty_files_are_errors() {
        for text in ["", "   \n\r\n", "\u{feff}", "# only\n  # comments\n\n"] {
            let e = err(text);
            assert!(matches!(e, PatternError::Empty { .. }), "{text:?}: {e:?}");
            assert_eq!(e.to_string(), "patterns file t.json is empty");
        }
    }

    // ----- files

    #[test]
    fn load_file_reads_and_names_the_file() {
        let f = TempFile::new("ok.txt", b"/a\n/b\n");
        let set = load_file(&f.0).unwrap();
        assert_eq!(set.source, f.0.display().to_string());
        assert_eq!(set.n_patterns(), 2);

        let f = TempFile::new("bad.txt", b"/a\n\nfoo\n");
        let msg = load_file(&f.0).unwrap_err().to_string();
        assert!(
            msg.contains(&f.0.display().to_string()) && msg.contains("line 3"),
            "{msg}"
        );
    }

    #[test]
    fn load_file_missing_names_the_path() {
        let p = std::env::temp_dir().join("hakaru-pattern-no-such-file.json");
        let e = load_file(&p).unwrap_err();
        assert!(matches!(e, PatternError::Read { .. }), "{e:?}");
        assert!(
            e.to_string().contains("hakaru-pattern-no-such-file.json"),
            "{e}"
        );
    }

    #[test]
    fn load_file_rejects_non_utf8_with_line() {
        let f = TempFile::new("latin1.txt", b"/a\n/b?q=\xe9t\xe9\n");
        let e = load_file(&f.0).unwrap_err();
        assert!(matches!(e, PatternError::Line { line: 2, .. }), "{e:?}");
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    // ----- JSON forms

    #[test]
    fn readme_example() {
        let set = ok(r#"{
          "user search": {
            "frequency": 0.61,
            "method":    "GET",
            "patterns":  [
              { "path": "/users?q=foo" },
              { "path": "/users?q=bar" }
            ]
          },
          "item search": {
            "frequency": 0.32,
            "method":    "GET",
            "patterns":  [
              { "path": "/items?q=foo" },
              { "path": "/items?q=bar" }
            ]
          }
        }"#);
        assert_eq!(set.groups.len(), 2);
        let (u, i) = (&set.groups[0], &set.groups[1]);
        assert_eq!(u.name.as_deref(), Some("user search"));
        assert_eq!(u.frequency, Some(0.61));
        assert_eq!(u.defaults.method.as_deref(), Some("GET"));
        assert_eq!(paths(u), ["/users?q=foo", "/users?q=bar"]);
        assert_eq!(i.name.as_deref(), Some("item search"));
        assert_eq!(i.frequency, Some(0.32));
        assert_eq!(paths(i), ["/items?q=foo", "/items?q=bar"]);
        let f = set.normalized_frequencies();
        assert!((f[0] - 0.61 / 0.93).abs() < 1e-12 && (f[1] - 0.32 / 0.93).abs() < 1e-12);
    }

    #[test]
    fn named_groups_keep_file_order() {
        let set = ok(r#"{"zeta": ["/z"], "alpha": ["/a"], "mid": {"patterns": ["/m"]}}"#);
        let names: Vec<_> = set
            .groups
            .iter()
            .map(|g| g.name.as_deref().unwrap())
            .collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
    }

    #[test]
    fn array_of_groups() {
        let set = ok(r#"[
            ["/a1", {"path": "/a2"}],
            {"frequency": 0.25, "patterns": ["/b1"]},
            {"pattern": "/c1"}
        ]"#);
        assert_eq!(set.groups.len(), 3);
        assert!(set.groups.iter().all(|g| g.name.is_none()));
        assert_eq!(paths(&set.groups[0]), ["/a1", "/a2"]);
        assert_eq!(set.groups[1].frequency, Some(0.25));
        assert_eq!(paths(&set.groups[2]), ["/c1"]);
    }

    #[test]
    fn array_of_groups_first_with_singular_pattern() {
        let set = ok(r#"[{"pattern": "/a"}, ["/b"]]"#);
        assert_eq!(set.groups.len(), 2);
    }

    #[test]
    fn single_group_object_form() {
        let set = ok(
            r#"{"frequency": 1, "method": "POST", "patterns": ["/a", "/b"], "command": "ignored"}"#,
        );
        assert_eq!(set.groups.len(), 1);
        let g = &set.groups[0];
        assert_eq!(g.name, None);
        assert_eq!(g.frequency, Some(1.0));
        assert_eq!(g.defaults.method.as_deref(), Some("POST"));
        assert_eq!(paths(g), ["/a", "/b"]);
    }

    #[test]
    fn single_group_array_form() {
        let set = ok(r#"["/a", {"path": "/b", "method": "DELETE"}, "http://127.0.0.1:8080/c"]"#);
        assert_eq!(set.groups.len(), 1);
        let g = &set.groups[0];
        assert_eq!(paths(g), ["/a", "/b", "http://127.0.0.1:8080/c"]);
        assert_eq!(g.patterns[1].method.as_deref(), Some("DELETE"));
        // A first element that is a pattern object makes it a single group too.
        let set = ok(r#"[{"path": "/a"}, "/b"]"#);
        assert_eq!(set.groups.len(), 1);
        assert_eq!(set.n_patterns(), 2);
    }

    #[test]
    fn group_with_singular_pattern() {
        let set = ok(r#"{"method": "PUT", "pattern": {"path": "/doc/1", "body": "x"}}"#);
        let g = &set.groups[0];
        assert_eq!(g.defaults.method.as_deref(), Some("PUT"));
        assert_eq!(g.patterns.len(), 1);
        assert_eq!(g.patterns[0].body.as_deref(), Some("x"));
        let set = ok(r#"{"g": {"pattern": "/one"}}"#);
        assert_eq!(paths(&set.groups[0]), ["/one"]);
    }

    #[test]
    fn body_string_and_json_value() {
        let set = ok(r#"[
            {"path": "/s", "method": "POST", "body": "raw text\n"},
            {"path": "/o", "method": "POST", "body": {
                "zeta": 1,  "alpha": [1, 2.50, "a b \" }"],
                "nested": {"k": null}
            }},
            {"path": "/n", "body": 42},
            {"path": "/null", "body": null}
        ]"#);
        let p = &set.groups[0].patterns;
        assert_eq!(p[0].body.as_deref(), Some("raw text\n"));
        // Compact JSON text, keys in file order, numbers as written.
        assert_eq!(
            p[1].body.as_deref(),
            Some(r#"{"zeta":1,"alpha":[1,2.50,"a b \" }"],"nested":{"k":null}}"#)
        );
        assert_eq!(p[2].body.as_deref(), Some("42"));
        assert_eq!(p[3].body, None);
    }

    #[test]
    fn headers_at_group_and_pattern_level() {
        let set = ok(r#"{"headers": {"Accept": "application/json", "X-N": 3},
                         "patterns": [{"path": "/a", "headers": {"Content-Type": "text/plain; charset=utf-8"}}]}"#);
        let g = &set.groups[0];
        assert_eq!(
            g.defaults.headers,
            [
                ("Accept".into(), "application/json".into()),
                ("X-N".into(), "3".into())
            ]
        );
        assert_eq!(
            g.patterns[0].headers,
            [(
                "Content-Type".to_string(),
                "text/plain; charset=utf-8".to_string()
            )]
        );
    }

    #[test]
    fn host_port_timeout_at_group_and_pattern_level() {
        let set = ok(r#"{
            "node0": {"host": "node0", "port": 10041, "timeout": 2.5, "path": "/d/status",
                      "patterns": [{}, {"host": "[::1]", "port": "8080", "timeout": 1}]},
            "node1": {"host": "::1", "patterns": ["/x"]}
        }"#);
        let g = &set.groups[0];
        assert_eq!(g.defaults.host.as_deref(), Some("node0"));
        assert_eq!(g.defaults.port, Some(10041));
        assert_eq!(g.defaults.timeout, Some(2.5));
        assert_eq!(g.defaults.path.as_deref(), Some("/d/status"));
        // A pattern object without "path" is allowed: it takes the group's.
        assert_eq!(g.patterns[0], Pattern::default());
        assert_eq!(g.patterns[1].host.as_deref(), Some("::1"));
        assert_eq!(g.patterns[1].port, Some(8080));
        assert_eq!(g.patterns[1].timeout, Some(1.0));
        assert_eq!(set.groups[1].defaults.host.as_deref(), Some("::1"));
    }

    #[test]
    fn frequency_sum_above_one_is_fine() {
        let set = ok(
            r#"{"a": {"frequency": 0.9, "patterns": ["/a"]}, "b": {"frequency": 0.9, "patterns": ["/b"]}}"#,
        );
        assert_eq!(set.normalized_frequencies(), [0.5, 0.5]);
    }

    #[test]
    fn frequency_as_numeric_string_like_drnbench() {
        let set = ok(r#"{"a": {"frequency": "0.5", "patterns": ["/a"]}}"#);
        assert_eq!(set.groups[0].frequency, Some(0.5));
    }

    // ----- JSON errors

    #[test]
    fn invalid_json_has_line_and_column() {
        let e = err("{\n  \"g\": [\n    \"/a\"\n    \"/b\"\n  ]\n}\n");
        match &e {
            PatternError::Json {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!((*line, *column), (4, 5), "{e}");
                assert!(!message.contains("at line"), "{message}");
            }
            other => panic!("expected Json, got {other:?}"),
        }
        assert!(e.to_string().contains("line 4, column 5"), "{e}");
    }

    #[test]
    fn invalid_json_never_falls_back_to_text() {
        for text in [
            "[/a, /b]",
            "{ not json",
            "[\"/a\"] trailing",
            "[\"/a\",]",
            "[\"a\u{1}\"]",
            "[\"\\q\"]",
        ] {
            assert!(matches!(err(text), PatternError::Json { .. }), "{text:?}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = err(&text);
        assert!(
            matches!(e, PatternError::Json { .. } | PatternError::Shape { .. }),
            "{e:?}"
        );
        let text = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(matches!(err(&text), PatternError::Shape { .. }));
    }

    #[test]
    fn zero_frequencies_are_an_error() {
        let e = err(
            r#"{"a": {"frequency": 0, "patterns": ["/a"]}, "b": {"frequency": 0.0, "patterns": ["/b"]}}"#,
        );
        assert!(matches!(e, PatternError::Shape { .. }), "{e:?}");
        assert!(e.to_string().contains("\"frequency\" 0"), "{e}");
        // One zero among groups without a frequency is fine: that group is never drawn.
        let set = ok(r#"{"a": {"frequency": 0, "patterns": ["/a"]}, "b": ["/b"]}"#);
        assert_eq!(set.normalized_frequencies(), [0.0, 1.0]);
    }

    #[test]
    fn bad_frequency_names_group_and_value() {
        let e = err("{\n\"user search\": {\"frequency\": \"abc\", \"patterns\": [\"/a\"]}}");
        assert_eq!(
            e.to_string(),
            "patterns file t.json, line 2: group \"user search\": \"frequency\" must be a non-negative number, found \"abc\""
        );
        let e = err(r#"[{"frequency": -0.1, "patterns": ["/a"]}]"#);
        assert!(
            e.to_string()
                .contains("group #1: \"frequency\" must be a non-negative number, found -0.1"),
            "{e}"
        );
    }

    #[test]
    fn bad_port_names_group_pattern_and_line() {
        let e = err("[\n[\"/a\"],\n{\"patterns\": [\"/1\", \"/2\", \"/3\", \"/4\",\n  {\"path\": \"/5\", \"port\": 70000}]}\n]");
        assert_eq!(
            e.to_string(),
            "patterns file t.json, line 4: group #2, pattern #5: \"port\" must be an integer 1-65535, found 70000"
        );
        for port in ["0", "-1", "80.5", "\"http\"", "true"] {
            let e = err(&format!(r#"{{"port": {port}, "patterns": ["/a"]}}"#));
            assert!(
                e.to_string()
                    .contains("the group: \"port\" must be an integer 1-65535"),
                "{e}"
            );
        }
        let e = err(r#"["/a", {"path": "/b", "port": 0}]"#);
        assert!(e.to_string().contains(": pattern #2: \"port\""), "{e}");
    }

    #[test]
    fn bad_timeout_method_host_headers() {
        let e = err(r#"{"timeout": 0, "patterns": ["/a"]}"#);
        assert!(
            e.to_string()
                .contains("\"timeout\" must be a positive number of seconds, found 0"),
            "{e}"
        );
        let e = err(r#"{"g": {"patterns": [{"timeout": -1}]}}"#);
        assert!(
            e.to_string()
                .contains("group \"g\", pattern #1: \"timeout\""),
            "{e}"
        );
        let e = err(r#"["/a", {"method": "GE T"}]"#);
        assert!(e.to_string().contains("\"method\""), "{e}");
        let e = err(r#"{"host": "node0:10041", "patterns": ["/a"]}"#);
        assert!(e.to_string().contains("put the port in \"port\""), "{e}");
        let e = err(r#"{"headers": {"X-A": "a\r\nInjected: 1"}, "patterns": ["/a"]}"#);
        assert!(e.to_string().contains("control character"), "{e}");
        let e = err(r#"{"headers": {"Bad Name": "a"}, "patterns": ["/a"]}"#);
        assert!(e.to_string().contains("header name"), "{e}");
        let e = err(r#"{"headers": ["X-A: a"], "patterns": ["/a"]}"#);
        assert!(
            e.to_string().contains("\"headers\" must be an object"),
            "{e}"
        );
    }

    #[test]
    fn bad_paths_in_json() {
        let e = err(r#"{"g": ["/a", "users?q=1"]}"#);
        assert!(
            e.to_string()
                .contains("group \"g\", pattern #2: expected a path starting with '/'"),
            "{e}"
        );
        let e = err(r#"[{"path": "/a b"}]"#);
        assert!(
            e.to_string()
                .contains("pattern #1: \"path\": the path has a space"),
            "{e}"
        );
        let e = err(r#"[{"path": 5}]"#);
        assert!(
            e.to_string().contains("\"path\" must be a string, found 5"),
            "{e}"
        );
    }

    #[test]
    fn empty_group_is_an_error_naming_it() {
        let e = err(r#"{"a": ["/a"], "b": {"patterns": []}}"#);
        assert!(e.to_string().contains("group \"b\" has no patterns"), "{e}");
        let e = err(r#"[["/a"], []]"#);
        assert!(e.to_string().contains("group #2 has no patterns"), "{e}");
        let e = err(r#"[[]]"#);
        assert!(e.to_string().contains("group #1 has no patterns"), "{e}");
        let e = err(r#"{"patterns": []}"#);
        assert!(e.to_string().contains("the group has no patterns"), "{e}");
    }

    #[test]
    fn other_shape_errors() {
        let cases = [
            ("[]", "top-level array is empty"),
            ("{}", "top-level object is empty"),
            (
                "[1, 2]",
                "first element must be a group or a pattern, found 1",
            ),
            (
                r#"{"g": 5}"#,
                "group \"g\" must be an array of patterns or an object",
            ),
            (
                r#"{"g": {"method": "GET"}}"#,
                "needs \"patterns\" (an array) or \"pattern\"",
            ),
            (
                r#"{"patterns": "/a"}"#,
                "\"patterns\" must be an array, found \"/a\"",
            ),
            (r#"{"pattern": ["/a"]}"#, "use \"patterns\" for an array"),
            (
                r#"{"pattern": "/a", "patterns": ["/b"]}"#,
                "both \"pattern\" and \"patterns\"",
            ),
            (
                r#"["/a", {"patterns": ["/b"]}]"#,
                "pattern #2 has \"patterns\" or \"pattern\", like a group",
            ),
            (
                r#"["/a", null]"#,
                "pattern #2 must be a path string or an object, found null",
            ),
            (
                r#"[["/a"], {"method": "GET"}]"#,
                "group #2: an object group needs",
            ),
            (r#"{"path": "/a"}"#, "a single group needs \"patterns\""),
        ];
        for (text, want) in cases {
            let e = err(text);
            assert!(matches!(e, PatternError::Shape { .. }), "{text}: {e:?}");
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn shape_error_line_points_at_the_value() {
        let e = err("{\n  \"a\": [\"/a\"],\n  \"b\": [\n    \"/b\",\n    \"nope\"\n  ]\n}");
        assert!(
            matches!(e, PatternError::Shape { line: Some(5), .. }),
            "{e:?}"
        );
    }

    // ----- URLs

    #[test]
    fn split_url_forms() {
        let u = |https, host: &str, port, path: &str| UrlParts {
            https,
            host: host.into(),
            port,
            path: path.into(),
        };
        assert_eq!(
            split_url("http://example.com"),
            Some(u(false, "example.com", None, "/"))
        );
        assert_eq!(
            split_url("HtTpS://h:443"),
            Some(u(true, "h", Some(443), "/"))
        );
        assert_eq!(
            split_url("http://127.0.0.1:10041/d/select?query=a&x=/y"),
            Some(u(false, "127.0.0.1", Some(10041), "/d/select?query=a&x=/y"))
        );
        assert_eq!(
            split_url("http://h?q=1"),
            Some(u(false, "h", None, "/?q=1"))
        );
        assert_eq!(
            split_url("http://h/p#frag"),
            Some(u(false, "h", None, "/p"))
        );
        assert_eq!(split_url("http://h:/p"), Some(u(false, "h", None, "/p")));
        assert_eq!(
            split_url("http://[::1]:8080/x"),
            Some(u(false, "::1", Some(8080), "/x"))
        );
        assert_eq!(
            split_url("https://[2001:db8::1]"),
            Some(u(true, "2001:db8::1", None, "/"))
        );
        assert_eq!(
            split_url("http://h/検索?q=東京"),
            Some(u(false, "h", None, "/検索?q=東京"))
        );
        for bad in [
            "",
            "/path",
            "example.com",
            "ftp://h/",
            "http:/h",
            "http://",
            "http:///x",
            "http://h:0/",
            "http://h:65536/",
            "http://h:8o/",
            "http://h:-1/",
            "http://h:+80/",
            "http://[::1/",
            "http://[nope]/",
            "http://[::1]x/",
            "http://::1/",
            "http://u@h/",
            "http://h/a b",
            "http://h a/",
            "http://東京/",
        ] {
            assert_eq!(split_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn from_url_makes_one_pattern() {
        let set = from_url("http://127.0.0.1:10041/d/status").unwrap();
        assert_eq!(set.source, "http://127.0.0.1:10041/d/status");
        assert_eq!(set.n_patterns(), 1);
        assert_eq!(
            set.groups[0].patterns[0],
            path("http://127.0.0.1:10041/d/status")
        );
        let e = from_url("127.0.0.1:10041/d/status").unwrap_err();
        assert!(matches!(e, PatternError::Url { .. }), "{e:?}");
        assert!(
            e.to_string()
                .contains("expected an http:// or https:// URL"),
            "{e}"
        );
        let e = from_url("http://h:0/").unwrap_err();
        assert!(e.to_string().contains("invalid port"), "{e}");
    }

    // ----- frequencies

    #[test]
    fn normalized_frequency_cases() {
        let g = |f: Option<f64>| Group {
            frequency: f,
            ..Group::default()
        };
        let close = |got: Vec<f64>, want: &[f64]| {
            assert_eq!(got.len(), want.len());
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-12, "{got:?} != {want:?}");
            }
        };
        assert!(normalized_frequencies(&[]).is_empty());
        close(normalized_frequencies(&[g(None)]), &[1.0]);
        close(
            normalized_frequencies(&[g(None), g(None), g(None), g(None)]),
            &[0.25; 4],
        );
        close(
            normalized_frequencies(&[g(Some(0.61)), g(Some(0.39))]),
            &[0.61, 0.39],
        );
        // Explicit values that do not sum to 1 keep their ratio.
        close(
            normalized_frequencies(&[g(Some(2.0)), g(Some(6.0))]),
            &[0.25, 0.75],
        );
        // drnbench: a group without frequency gets 1/n of the raw total (here 1/3).
        close(
            normalized_frequencies(&[g(Some(0.5)), g(None), g(None)]),
            &[
                0.5 / (0.5 + 2.0 / 3.0),
                (1.0 / 3.0) / (0.5 + 2.0 / 3.0),
                (1.0 / 3.0) / (0.5 + 2.0 / 3.0),
            ],
        );
        close(
            normalized_frequencies(&[g(Some(0.0)), g(None)]),
            &[0.0, 1.0],
        );
        // Degenerate input built by hand (parse rejects it): equal shares, no NaN.
        close(
            normalized_frequencies(&[g(Some(0.0)), g(Some(0.0))]),
            &[0.5, 0.5],
        );
        close(
            normalized_frequencies(&[g(Some(f64::NAN)), g(Some(1.0))]),
            &[0.0, 1.0],
        );
    }
}
