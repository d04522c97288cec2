//! Search terms from Groonga `select` results: what drnbench-extract-searchterms
//! does, for every output shape Groonga has.
//!
//! A benchmark of a search engine needs terms that really hit. The tutorial's
//! way is to ask the engine itself (`select ... limit=200&output_columns=title`)
//! and use one column of each record as a term. This module reads such results
//! and returns that column's values:
//!
//! * command_version 1 and 2: `[[status, start, elapsed(, message)], [[[n_hits],
//!   [[column, type], ...], record, record, ...], drilldown, ...]]`;
//! * command_version 3: `{"header": {"return_code": 0, ...}, "body": {"n_hits": N,
//!   "columns": [{"name": ..., "type": ...}], "records": [[...]], "drilldowns": {...}}}`;
//! * several such documents one after another (a file of many results).
//!
//! Drilldowns are ignored. A string value is a term as it is; a number or boolean
//! is printed as JSON prints it; `null` gives no term; an array (a vector column
//! such as `categories`, or `snippet_html(...)`) gives one term per element; an
//! object gives its compact JSON text. Line breaks and tabs inside a value become
//! spaces (a term is one line), surrounding spaces are trimmed, blank terms are
//! skipped.
//!
//! `--escape` percent-encodes each term for a URL query parameter
//! ([`crate::http::url::encode_component`]): RFC 3986 unreserved characters
//! (`A-Z a-z 0-9 - . _ ~`) stay, every other byte of the term's UTF-8 becomes `%XX` (a space is `%20`, never `+`). drnbench used Ruby's
//! `CGI.escape`, which writes `+` for a space; `%20` means the same to every server
//! and cannot be mistaken for a literal `+`.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::Value;

use crate::http::url::encode_component;

/// What to extract and how to print it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermsOptions {
    /// Index of the column to extract (0 when neither this nor `column` is given).
    pub column_index: Option<usize>,
    /// Name of the column to extract; wins over `column_index`.
    pub column: Option<String>,
    /// Percent-encode each term for a URL query parameter.
    pub escape: bool,
    /// Keep only the first occurrence of each term.
    pub unique: bool,
    /// Stop after this many terms (counted after `unique`).
    pub limit: Option<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum TermsError {
    #[error("{source_name}: no select result found (the input is empty)")]
    Empty { source_name: String },
    #[error("{source_name}: invalid JSON at line {line}, column {column}: {message}")]
    Json {
        source_name: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{source_name}: Groonga returned an error ({code}): {message}")]
    Groonga {
        source_name: String,
        code: i64,
        message: String,
    },
    #[error("{source_name}: expected a Groonga select result (array of [header, body] or {{header, body}}), found {found}")]
    Shape { source_name: String, found: String },
    #[error("{source_name}: no column named {name:?}; the result has columns {available}")]
    NoSuchColumn {
        source_name: String,
        name: String,
        available: String,
    },
    #[error("{source_name}: --column-index {index} is out of range: the result has {n_columns} column(s) ({available})")]
    ColumnIndex {
        source_name: String,
        index: usize,
        n_columns: usize,
        available: String,
    },
    #[error("{url}: {message}")]
    Fetch { url: String, message: String },
}

/// One select result reduced to what term extraction needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectResult {
    /// Column names in output order.
    pub columns: Vec<String>,
    pub records: Vec<Vec<Value>>,
}

/// Extracts the terms of every select result in `json_text` (one or more JSON
/// documents). `source` names the input in error messages (a file name, `stdin`,
/// a URL).
pub fn extract_terms(
    json_text: &str,
    source: &str,
    opts: &TermsOptions,
) -> Result<Vec<String>, TermsError> {
    extract_terms_from(&[(source, json_text)], opts)
}

/// Like [`extract_terms`] for several inputs, `(source, json_text)` each:
/// `unique` and `limit` apply across all of them, in order.
pub fn extract_terms_from(
    inputs: &[(&str, &str)],
    opts: &TermsOptions,
) -> Result<Vec<String>, TermsError> {
    let mut terms = Vec::new();
    let mut seen = HashSet::new();
    let limit = opts.limit.unwrap_or(usize::MAX);
    for (source, json_text) in inputs {
        let results = parse_select_results(json_text, source)?;
        for result in &results {
            let index = column_index(result, source, opts)?;
            for record in &result.records {
                let Some(value) = record.get(index) else {
                    continue;
                };
                let mut values = Vec::new();
                value_terms(value, &mut values);
                for raw in values {
                    if terms.len() >= limit {
                        return Ok(terms);
                    }
                    let term = clean_term(&raw);
                    if term.is_empty() {
                        continue;
                    }
                    let term = if opts.escape {
                        encode_component(&term)
                    } else {
                        term
                    };
                    if opts.unique && !seen.insert(term.clone()) {
                        continue;
                    }
                    terms.push(term);
                }
            }
        }
    }
    Ok(terms)
}

/// Parses every JSON document in `json_text` as a select result.
pub fn parse_select_results(
    json_text: &str,
    source: &str,
) -> Result<Vec<SelectResult>, TermsError> {
    let mut results = Vec::new();
    let stream = serde_json::Deserializer::from_str(json_text).into_iter::<Value>();
    for doc in stream {
        let doc = doc.map_err(|e| TermsError::Json {
            source_name: source.to_string(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        results.push(parse_select_result(&doc, source)?);
    }
    if results.is_empty() {
        return Err(TermsError::Empty {
            source_name: source.to_string(),
        });
    }
    Ok(results)
}

/// Reads one select result in any command_version's shape.
pub fn parse_select_result(doc: &Value, source: &str) -> Result<SelectResult, TermsError> {
    let shape = |found: String| TermsError::Shape {
        source_name: source.to_string(),
        found,
    };
    match doc {
        Value::Array(top) => {
            let header = top.first().and_then(Value::as_array).ok_or_else(|| {
                shape(format!(
                    "an array whose first element is {}",
                    describe(top.first())
                ))
            })?;
            let code = header.first().and_then(Value::as_i64).ok_or_else(|| {
                shape(format!(
                    "an array whose header starts with {}",
                    describe(header.first())
                ))
            })?;
            if code != 0 {
                let message = header
                    .get(3)
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_string();
                return Err(TermsError::Groonga {
                    source_name: source.to_string(),
                    code,
                    message,
                });
            }
            // body = [search_result, drilldown...]; search_result = [[n_hits], columns, rows...]
            let search = top
                .get(1)
                .and_then(Value::as_array)
                .and_then(|body| body.first())
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    shape(format!(
                        "a header followed by {} instead of [[[n_hits], columns, records...]] (is this the result of another command than select?)",
                        describe(top.get(1))
                    ))
                })?;
            let columns = search.get(1).and_then(Value::as_array).ok_or_else(|| {
                shape(format!(
                    "a search result whose columns are {}",
                    describe(search.get(1))
                ))
            })?;
            let columns = columns
                .iter()
                .map(|c| {
                    c.as_array()
                        .and_then(|c| c.first())
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| {
                            shape(format!("a column definition {c} (expected [name, type])"))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let records = search
                .iter()
                .skip(2)
                .map(|r| as_record(r).map_err(&shape))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(SelectResult { columns, records })
        }
        Value::Object(map) => {
            let (Some(header), Some(body)) = (map.get("header"), map.get("body")) else {
                if let Some(header) = map.get("header") {
                    // An error response in command_version 3 has no body.
                    check_v3_header(header, source)?;
                }
                let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                return Err(shape(format!("an object with keys {}", keys.join(", "))));
            };
            check_v3_header(header, source)?;
            let body = body
                .as_object()
                .ok_or_else(|| shape(format!("a body that is {}", describe(Some(body)))))?;
            let columns = body
                .get("columns")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    let keys: Vec<&str> = body.keys().map(String::as_str).collect();
                    shape(format!(
                        "a body with keys {} (no \"columns\" array: is this the result of another command than select?)",
                        keys.join(", ")
                    ))
                })?;
            let columns = columns
                .iter()
                .map(|c| {
                    c.get("name")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| shape(format!("a column definition {c} (expected {{\"name\": ..., \"type\": ...}})")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let records = body
                .get("records")
                .and_then(Value::as_array)
                .ok_or_else(|| shape("a body without a \"records\" array".to_string()))?
                .iter()
                .map(|r| as_record(r).map_err(&shape))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(SelectResult { columns, records })
        }
        other => Err(shape(describe(Some(other)))),
    }
}

/// A record is an array of column values in every command_version.
fn as_record(r: &Value) -> Result<Vec<Value>, String> {
    r.as_array()
        .cloned()
        .ok_or_else(|| format!("a record that is {} (expected an array)", describe(Some(r))))
}

fn check_v3_header(header: &Value, source: &str) -> Result<(), TermsError> {
    let code = header
        .get("return_code")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if code != 0 {
        let message = header
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_string();
        return Err(TermsError::Groonga {
            source_name: source.to_string(),
            code,
            message,
        });
    }
    Ok(())
}

fn column_index(
    result: &SelectResult,
    source: &str,
    opts: &TermsOptions,
) -> Result<usize, TermsError> {
    let available = || {
        if result.columns.is_empty() {
            "(none)".to_string()
        } else {
            result.columns.join(", ")
        }
    };
    if let Some(name) = &opts.column {
        return result
            .columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| TermsError::NoSuchColumn {
                source_name: source.to_string(),
                name: name.clone(),
                available: available(),
            });
    }
    let index = opts.column_index.unwrap_or(0);
    if index >= result.columns.len() {
        return Err(TermsError::ColumnIndex {
            source_name: source.to_string(),
            index,
            n_columns: result.columns.len(),
            available: available(),
        });
    }
    Ok(index)
}

/// A short description of a JSON value for error messages.
fn describe(value: Option<&Value>) -> String {
    match value {
        None => "nothing".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => format!("the boolean {b}"),
        Some(Value::Number(n)) => format!("the number {n}"),
        Some(Value::String(s)) => {
            let short: String = s.chars().take(40).collect();
            format!("the string {short:?}")
        }
        Some(Value::Array(a)) => format!("an array of {} element(s)", a.len()),
        Some(Value::Object(o)) => {
            let keys: Vec<&str> = o.keys().map(String::as_str).collect();
            format!("an object with keys {}", keys.join(", "))
        }
    }
}

fn value_terms(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Null => {}
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => {
            for item in items {
                value_terms(item, out);
            }
        }
        other => out.push(other.to_string()),
    }
}

/// One line per term: control characters become spaces, ends are trimmed.
fn clean_term(raw: &str) -> String {
    let replaced: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    replaced.trim().to_string()
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Fetches `url` (plain `http://` only) with one blocking GET ([`crate::http::fetch`])
/// and returns the body as text. A non-2xx status is an error unless the body is
/// JSON (Groonga answers errors with status 400 and a JSON error that
/// [`extract_terms`] explains better).
pub fn fetch_url(url: &str, timeout: Duration) -> Result<String, TermsError> {
    let fetched = crate::http::fetch(url, timeout).map_err(|message| TermsError::Fetch {
        url: url.to_string(),
        message,
    })?;
    finish((fetched.status, fetched.body), url)
}

fn finish((status, body): (u16, Vec<u8>), url: &str) -> Result<String, TermsError> {
    let text = String::from_utf8(body).map_err(|_| TermsError::Fetch {
        url: url.to_string(),
        message: format!("status {status}: the body is not UTF-8 text"),
    })?;
    let looks_json = matches!(text.trim_start().as_bytes().first(), Some(b'[' | b'{'));
    if !(200..300).contains(&status) && !looks_json {
        let short: String = text.chars().take(200).collect();
        return Err(TermsError::Fetch {
            url: url.to_string(),
            message: format!("status {status}: {}", short.trim()),
        });
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::url::percent_decode;

    const V1: &str = r#"[[0,1795240391.44,0.01],[[[3],[["_key","ShortText"],["title","ShortText"],["categories","Categories"],["_score","Int32"]],["page-1","Groonga fast search",["search","db"],2],["page-2","日本語 テキスト",["search"],1],["page-3","a&b #1 100%",[],1]]]]"#;
    const V2_DRILLDOWN: &str = r#"[[0,1.0,0.001],[[[2],[["title","ShortText"],["_key","ShortText"]],["Alpha","k1"],["Beta","k2"]],[[3],[["_key","ShortText"],["_nsubrecs","Int32"]],["search",2],["db",2],["x",1]]]]"#;
    const V3: &str = r#"{"header":{"return_code":0,"start_time":1.0,"elapsed_time":0.0004},"body":{"n_hits":2,"columns":[{"name":"_key","type":"ShortText"},{"name":"title","type":"ShortText"}],"records":[["page-1","Groonga fast search"],["page-2","Droonga distributed"]],"drilldowns":{"categories":{"n_hits":1,"columns":[{"name":"_key","type":"ShortText"}],"records":[["search"]]}}}}"#;

    fn opts() -> TermsOptions {
        TermsOptions::default()
    }

    #[test]
    fn first_column_of_v1() {
        let t = extract_terms(V1, "t", &opts()).unwrap();
        assert_eq!(t, vec!["page-1", "page-2", "page-3"]);
    }

    #[test]
    fn column_by_name_and_index() {
        let o = TermsOptions {
            column: Some("title".into()),
            ..opts()
        };
        assert_eq!(
            extract_terms(V1, "t", &o).unwrap(),
            vec!["Groonga fast search", "日本語 テキスト", "a&b #1 100%"]
        );
        let o = TermsOptions {
            column_index: Some(3),
            ..opts()
        };
        assert_eq!(extract_terms(V1, "t", &o).unwrap(), vec!["2", "1", "1"]);
    }

    #[test]
    fn vector_column_gives_one_term_per_element() {
        let o = TermsOptions {
            column: Some("categories".into()),
            ..opts()
        };
        assert_eq!(
            extract_terms(V1, "t", &o).unwrap(),
            vec!["search", "db", "search"]
        );
        let o = TermsOptions { unique: true, ..o };
        assert_eq!(extract_terms(V1, "t", &o).unwrap(), vec!["search", "db"]);
    }

    #[test]
    fn drilldowns_are_ignored_in_every_version() {
        assert_eq!(
            extract_terms(V2_DRILLDOWN, "t", &opts()).unwrap(),
            vec!["Alpha", "Beta"]
        );
        let o = TermsOptions {
            column: Some("title".into()),
            ..opts()
        };
        assert_eq!(
            extract_terms(V3, "t", &o).unwrap(),
            vec!["Groonga fast search", "Droonga distributed"]
        );
    }

    #[test]
    fn several_documents_one_after_another() {
        let text = format!("{V3}\n{V2_DRILLDOWN}\n\n{V3}");
        let t = extract_terms(&text, "t", &opts()).unwrap();
        assert_eq!(
            t,
            vec!["page-1", "page-2", "Alpha", "Beta", "page-1", "page-2"]
        );
        let o = TermsOptions {
            unique: true,
            limit: Some(3),
            ..opts()
        };
        assert_eq!(
            extract_terms(&text, "t", &o).unwrap(),
            vec!["page-1", "page-2", "Alpha"]
        );
    }

    #[test]
    fn escape_encodes_for_a_query_parameter() {
        let o = TermsOptions {
            column: Some("title".into()),
            escape: true,
            ..opts()
        };
        let t = extract_terms(V1, "t", &o).unwrap();
        assert_eq!(t[0], "Groonga%20fast%20search");
        assert_eq!(
            t[1],
            "%E6%97%A5%E6%9C%AC%E8%AA%9E%20%E3%83%86%E3%82%AD%E3%82%B9%E3%83%88"
        );
        assert_eq!(t[2], "a%26b%20%231%20100%25");
        assert_eq!(percent_decode(&t[1]), "日本語 テキスト");
    }

    #[test]
    fn blank_and_multiline_values() {
        let text = r#"[[0,1,0],[[[4],[["t","Text"]],[""],["  "],["a\nb\tc "],[null]]]]"#;
        assert_eq!(extract_terms(text, "t", &opts()).unwrap(), vec!["a b c"]);
    }

    #[test]
    fn groonga_error_v1_and_v3() {
        let v1 = r#"[[-22,1795240396.48,0.0005,"[select][table] invalid name: <Nope>",[["execute","proc_select.cpp",4983]]]]"#;
        let e = extract_terms(v1, "sel.json", &opts())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "sel.json: Groonga returned an error (-22): [select][table] invalid name: <Nope>"
        );
        let v3 = r#"{"header":{"return_code":-22,"start_time":1.0,"elapsed_time":0.1,"error":{"message":"invalid table name","function":"f","file":"x","line":1}}}"#;
        let e = extract_terms(v3, "u", &opts()).unwrap_err().to_string();
        assert_eq!(e, "u: Groonga returned an error (-22): invalid table name");
    }

    #[test]
    fn other_shapes_are_named() {
        let e = extract_terms(r#"{"hitRatio":49.8,"nHits":1}"#, "s", &opts())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("found an object with keys hitRatio, nHits"),
            "{e}"
        );
        let e = extract_terms(r#"[[0,1,0],{"n_queries":1}]"#, "s", &opts())
            .unwrap_err()
            .to_string();
        assert!(e.contains("another command than select"), "{e}");
        let e = extract_terms("42", "s", &opts()).unwrap_err().to_string();
        assert!(e.contains("found the number 42"), "{e}");
        let e = extract_terms(r#"[[0,1,0],[[[1],[["a","b"]]]]"#, "s", &opts())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s: invalid JSON at line 1"), "{e}");
        let e = extract_terms("  \n", "s", &opts()).unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn column_errors_list_the_columns() {
        let o = TermsOptions {
            column: Some("body".into()),
            ..opts()
        };
        let e = extract_terms(V3, "s", &o).unwrap_err().to_string();
        assert_eq!(
            e,
            "s: no column named \"body\"; the result has columns _key, title"
        );
        let o = TermsOptions {
            column_index: Some(2),
            ..opts()
        };
        let e = extract_terms(V3, "s", &o).unwrap_err().to_string();
        assert_eq!(
            e,
            "s: --column-index 2 is out of range: the result has 2 column(s) (_key, title)"
        );
    }

    #[test]
    fn empty_result_gives_no_terms() {
        let text = r#"{"header":{"return_code":0},"body":{"n_hits":0,"columns":[{"name":"_key","type":"ShortText"}],"records":[]}}"#;
        assert!(extract_terms(text, "s", &opts()).unwrap().is_empty());
    }

    #[test]
    fn fetch_refuses_https() {
        assert!(fetch_url("https://127.0.0.1/", Duration::from_secs(1)).is_err());
    }

    #[test]
    fn fetch_from_a_loopback_server() {
        use std::io::{Read, Write};
        use std::net::TcpListener;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap();
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            s.write_all(format!("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{V1}").as_bytes())
                .unwrap();
            head
        });
        let text = fetch_url(
            &format!("http://127.0.0.1:{port}/d/select?x=1"),
            Duration::from_secs(5),
        )
        .unwrap();
        assert_eq!(text, V1);
        let head = server.join().unwrap();
        assert!(head.starts_with("GET /d/select?x=1 HTTP/1.1\r\n"), "{head}");
    }
}
