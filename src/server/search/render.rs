//! Groonga's JSON output: select results and drilldowns in the shapes of
//! command_version 1/2 (arrays) and 3 (objects), `snippet_html`, and the header
//! envelopes of answers and errors.

use serde_json::{json, Map, Value};

use super::query::{
    Column, CommandError, Drilldown, DrilldownColumn, DrilldownKey, Output, SelectParams,
};
use super::select::{window, Group, Row};
use super::SEP;

pub(super) fn column_type(out: Output, version: u8) -> (String, Value) {
    match out {
        Output::Column(c) => {
            let ty = match c {
                Column::Id => "UInt32",
                Column::Key | Column::Title => "ShortText",
                Column::Text => "Text",
                Column::Categories => "Categories",
                Column::Score if version == 1 => "Int32",
                Column::Score => "Float",
            };
            (c.name().to_string(), json!(ty))
        }
        Output::Snippet(c) if version >= 3 => (format!("snippet_html({})", c.name()), Value::Null),
        Output::Snippet(_) => ("snippet_html".to_string(), Value::Null),
    }
}

pub(super) fn row_value(row: &Row, out: Output, select: &SelectParams) -> Value {
    match out {
        Output::Column(Column::Id) => json!(row.id),
        Output::Column(Column::Key) => json!(row.key),
        Output::Column(Column::Title) => json!(row.title),
        Output::Column(Column::Text) => json!(row.text),
        Output::Column(Column::Categories) => Value::Array(
            row.categories
                .split(SEP)
                .filter(|s| !s.is_empty())
                .map(|s| json!(s))
                .collect(),
        ),
        Output::Column(Column::Score) => {
            if select.command_version == 1 {
                json!(row.score.round() as i64)
            } else {
                json!((row.score * 1e6).round() / 1e6)
            }
        }
        Output::Snippet(c) => {
            let text = if c == Column::Title {
                &row.title
            } else {
                &row.text
            };
            match snippet_html(text, &select.keywords) {
                Some(s) => json!([s]),
                None => Value::Null,
            }
        }
    }
}

/// One result set (the records, or one drilldown) before it takes a
/// command_version's shape.
pub(super) struct ResultSet {
    n_hits: i64,
    columns: Vec<(String, Value)>,
    records: Vec<Value>,
}

impl ResultSet {
    /// command_version 1/2: `[[n_hits], [[name, type], ...], record, ...]`.
    fn into_array(self) -> Value {
        let mut arr = Vec::with_capacity(self.records.len() + 2);
        arr.push(json!([self.n_hits]));
        arr.push(Value::Array(
            self.columns
                .into_iter()
                .map(|(n, t)| json!([n, t]))
                .collect(),
        ));
        arr.extend(self.records);
        Value::Array(arr)
    }

    /// command_version 3: `{"n_hits", "columns": [{"name", "type"}], "records"}`.
    fn into_object(self) -> Map<String, Value> {
        let mut obj = Map::new();
        obj.insert("n_hits".into(), json!(self.n_hits));
        obj.insert(
            "columns".into(),
            Value::Array(
                self.columns
                    .into_iter()
                    .map(|(n, t)| json!({"name": n, "type": t}))
                    .collect(),
            ),
        );
        obj.insert("records".into(), Value::Array(self.records));
        obj
    }
}

pub(super) fn drilldown_result(dd: &Drilldown, groups: &[Group]) -> ResultSet {
    let mut sorted: Vec<&Group> = groups.iter().collect();
    if !dd.sort.is_empty() {
        sorted.sort_by(|a, b| {
            for &(col, desc) in &dd.sort {
                let ord = match col {
                    DrilldownColumn::Id => a.0.cmp(&b.0),
                    DrilldownColumn::Key => a.1.cmp(&b.1),
                    DrilldownColumn::NSubrecs => a.2.cmp(&b.2),
                };
                let ord = if desc { ord.reverse() } else { ord };
                if ord.is_ne() {
                    return ord;
                }
            }
            a.0.cmp(&b.0)
        });
    }
    let (offset, limit) = window(sorted.len() as i64, dd.offset, dd.limit);
    let columns = dd
        .output
        .iter()
        .map(|c| match c {
            DrilldownColumn::Id => ("_id".to_string(), json!("UInt32")),
            DrilldownColumn::Key => ("_key".to_string(), json!("ShortText")),
            DrilldownColumn::NSubrecs => ("_nsubrecs".to_string(), json!("Int32")),
        })
        .collect();
    let records = sorted
        .iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(|g| {
            Value::Array(
                dd.output
                    .iter()
                    .map(|c| match c {
                        DrilldownColumn::Id => json!(g.0),
                        DrilldownColumn::Key => json!(g.1),
                        DrilldownColumn::NSubrecs => json!(g.2),
                    })
                    .collect(),
            )
        })
        .collect();
    ResultSet {
        n_hits: groups.len() as i64,
        columns,
        records,
    }
}

pub(super) fn render_select(
    select: &SelectParams,
    n_hits: i64,
    rows: &[Row],
    drilldowns: &[(DrilldownKey, Vec<Group>)],
) -> String {
    let v = select.command_version;
    let main = ResultSet {
        n_hits,
        columns: select.output.iter().map(|&o| column_type(o, v)).collect(),
        records: rows
            .iter()
            .map(|r| {
                Value::Array(
                    select
                        .output
                        .iter()
                        .map(|&o| row_value(r, o, select))
                        .collect(),
                )
            })
            .collect(),
    };
    let drilldowns: Vec<(DrilldownKey, ResultSet)> = match &select.drilldown {
        Some(dd) => drilldowns
            .iter()
            .map(|(key, groups)| (*key, drilldown_result(dd, groups)))
            .collect(),
        None => Vec::new(),
    };
    if v >= 3 {
        let mut body = main.into_object();
        if select.drilldown.is_some() {
            let dds: Map<String, Value> = drilldowns
                .into_iter()
                .map(|(key, set)| (key.name().to_string(), Value::Object(set.into_object())))
                .collect();
            body.insert("drilldowns".into(), Value::Object(dds));
        }
        Value::Object(body).to_string()
    } else {
        let mut body = vec![main.into_array()];
        body.extend(drilldowns.into_iter().map(|(_, set)| set.into_array()));
        Value::Array(body).to_string()
    }
}

/// Groonga's snippet_html, simplified: one window of up to 200 bytes starting a
/// little before the first keyword, HTML-escaped, keywords (ASCII
/// case-insensitive, whole words as the full-text index matched them) wrapped in
/// `<span class="keyword">`.
pub fn snippet_html(text: &str, keywords: &[String]) -> Option<String> {
    const WIDTH: usize = 200;
    const BEFORE: usize = 40;
    let lower = text.to_ascii_lowercase();
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for kw in keywords.iter().filter(|k| !k.is_empty()) {
        let is_word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        matches.extend(
            lower
                .match_indices(kw.as_str())
                .map(|(i, m)| (i, i + m.len()))
                .filter(|&(s, e)| {
                    !is_word_char(lower[..s].chars().next_back())
                        && !is_word_char(lower[e..].chars().next())
                }),
        );
    }
    if matches.is_empty() {
        return None;
    }
    matches.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let floor = |mut i: usize| {
        while i > 0 && !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let mut start = floor(matches[0].0.saturating_sub(BEFORE));
    if start > 0 {
        // Begin at a word, not in the middle of one.
        if let Some(space) = text[start..matches[0].0].find(char::is_whitespace) {
            start += space + 1;
        }
    }
    let end = floor((start + WIDTH).min(text.len())).max(matches[0].1);
    let mut out = String::with_capacity(end - start + 64);
    let mut pos = start;
    for &(s, e) in &matches {
        if s < pos || e > end {
            continue;
        }
        html_escape(&text[pos..s], &mut out);
        out.push_str("<span class=\"keyword\">");
        html_escape(&text[s..e], &mut out);
        out.push_str("</span>");
        pos = e;
    }
    html_escape(&text[pos..end], &mut out);
    Some(out)
}

pub(super) fn html_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

/// Wraps a body in the header of `version`.
pub(super) fn envelope(version: u8, start: f64, elapsed: f64, body: &str) -> String {
    if version >= 3 {
        format!(
            "{{\"header\":{{\"return_code\":0,\"start_time\":{start},\"elapsed_time\":{elapsed}}},\"body\":{body}}}"
        )
    } else {
        format!("[[0,{start},{elapsed}],{body}]")
    }
}

/// A Groonga error answer; `trailing` is a value after the header (load's count).
pub(super) fn error_envelope(
    version: u8,
    start: f64,
    elapsed: f64,
    err: &CommandError,
    trailing: Option<&str>,
) -> String {
    let message = Value::String(err.message.clone());
    let code = err.code;
    if version >= 3 {
        let mut s = format!(
            "{{\"header\":{{\"return_code\":{code},\"start_time\":{start},\"elapsed_time\":{elapsed},\"error\":{{\"message\":{message}}}}}"
        );
        if let Some(t) = trailing {
            s.push_str(&format!(",\"body\":{t}"));
        }
        s.push('}');
        s
    } else {
        match trailing {
            Some(t) => format!("[[{code},{start},{elapsed},{message}],{t}]"),
            None => format!("[[{code},{start},{elapsed},{message}]]"),
        }
    }
}
