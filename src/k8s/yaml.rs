//! The small YAML emitter of the manifests: block style over `serde_json` values,
//! every string quoted JSON-style unless it cannot be read as anything else, or a
//! multi-line literal block reads better. `serde_yaml` is archived, and manifests need
//! nothing a YAML library adds.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// One YAML document in block style.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => map(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => seq(a, 0, &mut out),
        other => {
            let _ = writeln!(out, "{}", scalar(other));
        }
    }
    out
}

fn map(m: &Map<String, Value>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (k, v) in m {
        let key = key(k);
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                let _ = writeln!(out, "{pad}{key}:");
                map(inner, indent + 2, out);
            }
            Value::Array(items) if !items.is_empty() => {
                let _ = writeln!(out, "{pad}{key}:");
                seq(items, indent, out);
            }
            Value::String(s) if block_scalar(s).is_some() => {
                let _ = writeln!(out, "{pad}{key}: {}", block_scalar(s).unwrap_or("|"));
                literal_lines(s, indent + 2, out);
            }
            other => {
                let _ = writeln!(out, "{pad}{key}: {}", scalar(other));
            }
        }
    }
}

fn seq(items: &[Value], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for v in items {
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                // The mapping's first line goes on the dash's line.
                let mut body = String::new();
                map(inner, indent + 2, &mut body);
                out.push_str(&pad);
                out.push_str("- ");
                out.push_str(&body[indent + 2..]);
            }
            Value::Array(inner) if !inner.is_empty() => {
                let _ = writeln!(out, "{pad}-");
                seq(inner, indent + 2, out);
            }
            // A list item is always quoted on one line (the pods' arguments: what a user
            // typed can never become YAML structure).
            other => {
                let _ = writeln!(out, "{pad}- {}", scalar(other));
            }
        }
    }
}

/// `|` or `|-` when a mapping's string (a ConfigMap's file) reads better as a literal
/// block, indented under its key, and means the same in one; None when only a quoted string is exact (leading spaces, control characters,
/// several trailing line breaks).
fn block_scalar(s: &str) -> Option<&'static str> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    let simple = s.contains('\n')
        && !body.is_empty()
        && !body.starts_with([' ', '\n', '\t'])
        && !body.ends_with('\n')
        && !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
        && !s
            .chars()
            .any(|c| matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}'));
    simple.then_some(if s.ends_with('\n') { "|" } else { "|-" })
}

fn literal_lines(s: &str, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
}

/// A scalar: a string plain when it cannot be read as anything else, otherwise
/// JSON's own spelling, which YAML reads the same (a JSON string is a YAML
/// double-quoted string).
fn scalar(v: &Value) -> String {
    match v {
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        Value::String(s) => key(s),
        other => other.to_string(),
    }
}

/// A string (key or value) plain when it cannot be read as anything but that string:
/// a letter or `/` first, then letters, digits, `-_./`; not one of YAML 1.1's booleans.
fn key(k: &str) -> String {
    let plain = k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        k.to_owned()
    } else {
        quote(k)
    }
}

/// A double-quoted YAML string on one line: JSON's spelling (a JSON string is a YAML
/// double-quoted string) with the characters YAML 1.1 readers also take for line
/// breaks (U+0085, U+2028, U+2029) and the byte-order mark escaped too.
pub(super) fn quote(s: &str) -> String {
    let json = Value::String(s.to_owned()).to_string();
    if !json.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        match c {
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_scalars_keep_their_meaning() {
        let v = json!({
            "on": "yes",
            "plain": ["word", "/etc/x", "a b", "-", "No", "3"],
            "a key": ["1", 1, true, null, "multi\nline\n", "  lead\nx", "two\n\n", "end\nno-newline"],
            "empty": {},
            "list": [],
            "nested": [{"a": 1, "b": [2]}, [3]],
        });
        assert_eq!(
            to_yaml(&v),
            "\"a key\":\n- \"1\"\n- 1\n- true\n- null\n- \"multi\\nline\\n\"\n\
             - \"  lead\\nx\"\n- \"two\\n\\n\"\n- \"end\\nno-newline\"\n\
             empty: {}\nlist: []\nnested:\n- a: 1\n  b:\n  - 2\n-\n  - 3\n\"on\": \"yes\"\n\
             plain:\n- word\n- /etc/x\n- \"a b\"\n- \"-\"\n- \"No\"\n- \"3\"\n"
        );
    }
}
