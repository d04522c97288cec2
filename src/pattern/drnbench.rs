//! drnbench's JSON patterns files, every form its README documents: named groups,
//! an array of groups, a single group; a group as an array of patterns or an object
//! with options; a pattern as a path string or an object.
//!
//! Forms are told apart exactly as drnbench's `request-pattern.rb` does:
//! - a top-level array whose first element is a group (an array, or an object with
//!   `"patterns"`/`"pattern"`) is an array of groups; otherwise it is one group of
//!   patterns;
//! - a top-level object with `"patterns"`/`"pattern"` is one group; otherwise each of
//!   its members is a named group, kept in file order.
//!
//! Unknown keys are refused, with their line and column and the nearest known key: a
//! typo (`"metod"`, `"bdy"`) would otherwise send other requests than meant, silently
//! (drnbench ignored them). drnbench's own `"command"` key of its Droonga mode is
//! known and ignored. A JSON `null` counts as absent, as Ruby's `||=` does.
//!
//! A pattern's `"name"` (and a group object's, in the array forms) labels its requests
//! in the result; a named group's key is its name.

use super::json::{self, compact, member, shape, unknown_key, Kind, Node, ShapeErr};
use super::{
    check_host_field, check_name, check_target, is_token_char, Group, Pattern, PatternError,
    Patterns,
};
use crate::http::url::{parse_port, quote};

/// drnbench's test for a group object: it has `"patterns"` or `"pattern"`.
fn has_group_key(members: &[(String, Node)]) -> bool {
    member(members, "patterns").is_some() || member(members, "pattern").is_some()
}

/// The groups of a JSON patterns file; `source` names it in messages.
pub(super) fn parse_json(body: &str, source: &str) -> Result<Vec<Group>, PatternError> {
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
    let located = |e: ShapeErr| {
        let before = &body[..e.at];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        if e.column {
            let from = before.rfind('\n').map_or(0, |i| i + 1);
            return PatternError::Key {
                path: source.into(),
                line,
                column: body[from..e.at].chars().count() + 1,
                message: e.message,
            };
        }
        PatternError::Shape {
            path: source.into(),
            line: Some(line),
            message: e.message,
        }
    };
    let root = json::read(body).map_err(located)?;
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

/// Every key a pattern object may have (`command`: drnbench's Droonga mode, ignored).
const PATTERN_KEYS: [&str; 9] = [
    "path", "method", "body", "host", "port", "timeout", "headers", "name", "command",
];

/// Every key a group object may have.
const GROUP_KEYS: [&str; 12] = [
    "patterns",
    "pattern",
    "frequency",
    "path",
    "method",
    "body",
    "host",
    "port",
    "timeout",
    "headers",
    "name",
    "command",
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
        let patterns_of = |items: &[Node]| -> Result<Patterns, ShapeErr> {
            let mut out = Patterns::default();
            for (i, p) in items.iter().enumerate() {
                out.push(self.pattern(p, &label.pattern(Some(i + 1)))?);
            }
            out.shrink();
            Ok(out)
        };
        let group = match &node.kind {
            Kind::Array(items) => Group {
                name: label.name(),
                patterns: patterns_of(items)?,
                ..Group::default()
            },
            Kind::Object(members) => {
                unknown_key(members, &GROUP_KEYS, &g)?;
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
                let mut defaults = self.fields(members, &g)?;
                // A group object's "name" names the group, not its patterns' default.
                let name = match (label.name(), defaults.name.take()) {
                    (Some(key), Some(own)) if key != own => {
                        let at = member(members, "name").unwrap_or(node);
                        let m = format!("{g} is named twice: by its key and by \"name\": {own:?}");
                        return Err(shape(at, m));
                    }
                    (key, own) => key.or(own),
                };
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
                    (Some(p), None) => Patterns::from(vec![self.pattern(p, &label.pattern(None))?]),
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
                    name,
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
            Kind::Object(members) => {
                unknown_key(members, &PATTERN_KEYS, label)?;
                self.fields(members, label)
            }
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
        if let Some((v, s)) = string("name")? {
            check_name(s).map_err(|m| shape(v, format!("{label}: \"name\": {m}")))?;
            p.name = Some(s.into());
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
                Kind::Number(_) => parse_port(&self.text[v.start..v.end]),
                // drnbench handed the value to Ruby as is, where "10041" worked too.
                Kind::Str(s) => parse_port(s),
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
