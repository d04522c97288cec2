//! Parameters of the search target's commands, and Groonga's query syntax turned
//! into an SQLite FTS5 expression that user text cannot escape from.
//!
//! The subset of Groonga's query syntax understood: words (AND-ed), `"quoted
//! phrases"` (with `\"` inside), `OR` between words, `-word` (NOT), `+word`
//! (AND, as plain), `word*` (prefix). Parentheses are ignored. Each word or
//! phrase is handed to FTS5 as a quoted string, so `"`, `*`, `(`, `:`, `NEAR`
//! and friends in the user's text never become FTS5 syntax. `query_flags` is
//! accepted and checked but changes nothing: column (`title:@x`) and pragma
//! syntax are not supported, so every query behaves as with `NONE`.

/// A Groonga-style command error: return code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandError {
    pub code: i64,
    pub message: String,
}

/// Groonga's GRN_INVALID_ARGUMENT.
pub const INVALID_ARGUMENT: i64 = -22;
/// Groonga's GRN_SYNTAX_ERROR.
pub const SYNTAX_ERROR: i64 = -63;

impl CommandError {
    pub fn invalid(message: impl Into<String>) -> Self {
        CommandError {
            code: INVALID_ARGUMENT,
            message: message.into(),
        }
    }
    pub fn syntax(message: impl Into<String>) -> Self {
        CommandError {
            code: SYNTAX_ERROR,
            message: message.into(),
        }
    }
}

/// Decodes one query-string component: `+` is a space (form encoding, as Groonga
/// reads it), then `%XX`.
pub fn decode_component(s: &str) -> String {
    if s.contains('+') {
        crate::http::url::percent_decode(&s.replace('+', " "))
    } else {
        crate::http::url::percent_decode(s)
    }
}

/// The decoded `name=value` pairs of a query string; a later repeat of a name wins.
#[derive(Debug, Default)]
pub struct Params(Vec<(String, String)>);

impl Params {
    pub fn parse(query: &str) -> Self {
        let pairs = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) => (decode_component(k), decode_component(v)),
                None => (decode_component(kv), String::new()),
            })
            .collect();
        Params(pairs)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A non-empty value.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    pub fn int(&self, name: &str, default: i64) -> Result<i64, CommandError> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                CommandError::invalid(format!("[select][{name}] invalid integer: <{v}>"))
            }),
        }
    }
}

/// A column of the `Pages` table, or a pseudo column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Id,
    Key,
    Title,
    Text,
    Categories,
    Score,
}

impl Column {
    pub fn parse(name: &str) -> Option<Column> {
        Some(match name {
            "_id" => Column::Id,
            "_key" => Column::Key,
            "title" => Column::Title,
            "text" => Column::Text,
            "categories" => Column::Categories,
            "_score" => Column::Score,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Column::Id => "_id",
            Column::Key => "_key",
            Column::Title => "title",
            Column::Text => "text",
            Column::Categories => "categories",
            Column::Score => "_score",
        }
    }
}

/// One entry of `output_columns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    Column(Column),
    /// `snippet_html(title)` or `snippet_html(text)`.
    Snippet(Column),
}

/// Groonga's default output columns for `Pages`: `_id`, `_key`, then the columns by name.
pub const DEFAULT_OUTPUT: [Output; 5] = [
    Output::Column(Column::Id),
    Output::Column(Column::Key),
    Output::Column(Column::Categories),
    Output::Column(Column::Text),
    Output::Column(Column::Title),
];

/// Parses `output_columns`. Unknown names are skipped, as Groonga skips them.
pub fn parse_output_columns(spec: Option<&str>) -> Vec<Output> {
    let Some(spec) = spec else {
        return DEFAULT_OUTPUT.to_vec();
    };
    let mut out = Vec::new();
    for name in spec.split(',').map(str::trim) {
        if name == "*" {
            out.extend_from_slice(&DEFAULT_OUTPUT[2..]);
        } else if let Some(inner) = name
            .strip_prefix("snippet_html(")
            .and_then(|r| r.strip_suffix(')'))
        {
            if let Some(c @ (Column::Title | Column::Text)) = Column::parse(inner.trim()) {
                out.push(Output::Snippet(c));
            }
        } else if let Some(c) = Column::parse(name) {
            out.push(Output::Column(c));
        }
    }
    out
}

/// Which full-text columns `match_columns` names (`title,text`, `title||text`,
/// weights such as `title*10` accepted and ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatchColumns {
    pub title: bool,
    pub text: bool,
}

pub fn parse_match_columns(spec: &str) -> Result<MatchColumns, CommandError> {
    let mut m = MatchColumns {
        title: false,
        text: false,
    };
    for part in spec
        .split([',', '|'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let name = part.split('*').next().unwrap_or("").trim();
        match name {
            "title" => m.title = true,
            "text" => m.text = true,
            other => {
                return Err(CommandError::syntax(format!(
                    "Syntax error: <{spec}>: [expr][parse] unknown identifier: <{other}> (hakaru-search matches title and text)"
                )))
            }
        }
    }
    if !m.title && !m.text {
        return Err(CommandError::syntax(format!(
            "Syntax error: <{spec}>: no column to match"
        )));
    }
    Ok(m)
}

/// One sort key: a column, descending when written `-col`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SortKey {
    pub column: Column,
    pub descending: bool,
}

/// Parses `sortby` / `sort_keys`. Unknown keys are skipped (Groonga ignores them too).
pub fn parse_sort_keys(spec: Option<&str>) -> Vec<SortKey> {
    spec.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter_map(|k| {
            let (descending, name) = match k.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, k),
            };
            Column::parse(name).map(|column| SortKey { column, descending })
        })
        .filter(|k| k.column != Column::Categories)
        .collect()
}

/// What a drilldown groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrilldownKey {
    Categories,
    Title,
}

impl DrilldownKey {
    pub fn name(self) -> &'static str {
        match self {
            DrilldownKey::Categories => "categories",
            DrilldownKey::Title => "title",
        }
    }
}

/// A column of a drilldown's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrilldownColumn {
    Id,
    Key,
    NSubrecs,
}

/// The drilldown options shared by every key of one select.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Drilldown {
    pub keys: Vec<DrilldownKey>,
    /// (by `_nsubrecs` when true, else by `_key`; descending) — `None` keeps group order.
    pub sort: Vec<(DrilldownColumn, bool)>,
    pub limit: i64,
    pub offset: i64,
    pub output: Vec<DrilldownColumn>,
}

fn parse_drilldown(params: &Params) -> Result<Option<Drilldown>, CommandError> {
    let Some(spec) = params.value("drilldown") else {
        return Ok(None);
    };
    let mut keys = Vec::new();
    for k in spec.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        keys.push(match k {
            "categories" => DrilldownKey::Categories,
            "title" => DrilldownKey::Title,
            other => {
                return Err(CommandError::invalid(format!(
                    "[select][drilldown] unsupported key: <{other}> (hakaru-search drills down on categories and title)"
                )))
            }
        });
    }
    let column = |name: &str| match name {
        "_id" => Some(DrilldownColumn::Id),
        "_key" => Some(DrilldownColumn::Key),
        "_nsubrecs" => Some(DrilldownColumn::NSubrecs),
        _ => None,
    };
    let sort = params
        .value("drilldown_sortby")
        .or_else(|| params.value("drilldown_sort_keys"))
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter_map(|k| {
            let (desc, name) = match k.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, k),
            };
            column(name).map(|c| (c, desc))
        })
        .collect();
    let output = match params.value("drilldown_output_columns") {
        None => vec![DrilldownColumn::Key, DrilldownColumn::NSubrecs],
        Some(spec) => spec.split(',').map(str::trim).filter_map(column).collect(),
    };
    Ok(Some(Drilldown {
        keys,
        sort,
        limit: params.int("drilldown_limit", 10)?,
        offset: params.int("drilldown_offset", 0)?,
        output,
    }))
}

/// Everything a select depends on, parsed and normalised. Its `Debug` text is the
/// result cache's key: like Groonga's, the key is built from the arguments'
/// values, so the order of parameters or an explicit default does not matter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectParams {
    pub command_version: u8,
    /// The FTS5 expression, `None` when there is no query (every page matches).
    pub fts: Option<String>,
    /// The query's positive words, lower-cased, for snippets.
    pub keywords: Vec<String>,
    pub output: Vec<Output>,
    pub sort: Vec<SortKey>,
    pub limit: i64,
    pub offset: i64,
    pub drilldown: Option<Drilldown>,
    /// `cache=no`: neither read nor fill the result cache.
    pub no_cache: bool,
}

const QUERY_FLAGS: &[&str] = &[
    "NONE",
    "ALLOW_PRAGMA",
    "ALLOW_COLUMN",
    "ALLOW_UPDATE",
    "ALLOW_LEADING_NOT",
    "QUERY_NO_SYNTAX_ERROR",
];

/// Parses a select's parameters. `command_version` must already be checked.
pub fn parse_select(params: &Params, command_version: u8) -> Result<SelectParams, CommandError> {
    let table = params.value("table").unwrap_or("");
    if table != "Pages" {
        return Err(CommandError::invalid(format!(
            "[select][table] invalid name: <{table}> (hakaru-search has one table: Pages)"
        )));
    }
    for unsupported in ["filter", "scorer", "adjuster"] {
        if let Some(v) = params.value(unsupported) {
            return Err(CommandError::invalid(format!(
                "[select][{unsupported}] not supported by hakaru-search: <{v}>"
            )));
        }
    }
    if let Some(flags) = params.value("query_flags") {
        for flag in flags.split('|').map(str::trim) {
            if !QUERY_FLAGS.contains(&flag) {
                return Err(CommandError::invalid(format!(
                    "[select][query_flags] invalid query flag: <{flag}>"
                )));
            }
        }
    }
    let (fts, keywords) = match params.get("query").map(str::trim).filter(|q| !q.is_empty()) {
        None => (None, Vec::new()),
        Some(query) => {
            let Some(spec) = params.value("match_columns") else {
                return Err(CommandError::syntax(
                    "[select][query] a query needs match_columns (e.g. match_columns=title,text)",
                ));
            };
            let columns = parse_match_columns(spec)?;
            let parsed = parse_query(query);
            (Some(parsed.to_fts(columns)), parsed.keywords())
        }
    };
    Ok(SelectParams {
        command_version,
        fts,
        keywords,
        output: parse_output_columns(params.value("output_columns")),
        sort: parse_sort_keys(params.value("sortby").or_else(|| params.value("sort_keys"))),
        limit: params.int("limit", 10)?,
        offset: params.int("offset", 0)?,
        drilldown: parse_drilldown(params)?,
        no_cache: params.value("cache") == Some("no"),
    })
}

/// One item of a parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Term { text: String, prefix: bool },
    Or,
    Not(String),
}

/// A parsed Groonga query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    items: Vec<Item>,
}

/// Does FTS5's unicode61 tokenizer see at least one token in `s`?
fn has_token(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// Splits a Groonga query into items. Never fails: what cannot be read is dropped.
pub fn parse_query(query: &str) -> Query {
    let mut items = Vec::new();
    let mut chars = query.chars().peekable();
    let is_space = |c: char| c.is_whitespace() || c == '(' || c == ')';
    while let Some(&c) = chars.peek() {
        if is_space(c) {
            chars.next();
            continue;
        }
        // A modifier applies to the following word or phrase.
        let mut negated = false;
        if c == '-' || c == '+' {
            negated = c == '-';
            chars.next();
        }
        let mut text = String::new();
        let mut phrase = false;
        if chars.peek() == Some(&'"') {
            phrase = true;
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(next) = chars.next() {
                            text.push(next);
                        }
                    }
                    '"' => break,
                    _ => text.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if is_space(c) {
                    break;
                }
                text.push(c);
                chars.next();
            }
        }
        if !phrase && !negated && text == "OR" {
            items.push(Item::Or);
            continue;
        }
        let prefix = !phrase && text.ends_with('*');
        if !has_token(&text) {
            continue;
        }
        if negated {
            items.push(Item::Not(text));
        } else {
            items.push(Item::Term { text, prefix });
        }
    }
    Query { items }
}

/// `s` as an FTS5 string: double quotes doubled, nothing else special inside.
fn fts_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

impl Query {
    /// The positive words, lower-cased (for highlighting).
    pub fn keywords(&self) -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        for item in &self.items {
            if let Item::Term { text, .. } = item {
                for w in text
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    let w = w.to_lowercase();
                    if !words.contains(&w) {
                        words.push(w);
                    }
                }
            }
        }
        words
    }

    /// The FTS5 MATCH expression. A query with no positive word matches nothing
    /// (the empty phrase `""`), as a Groonga query of only `-word` finds nothing.
    pub fn to_fts(&self, columns: MatchColumns) -> String {
        let mut positive = String::new();
        let mut pending_or = false;
        for item in &self.items {
            match item {
                Item::Or => pending_or = !positive.is_empty(),
                Item::Term { text, prefix } => {
                    if !positive.is_empty() {
                        positive.push_str(if pending_or { " OR " } else { " AND " });
                    }
                    pending_or = false;
                    let word = if *prefix {
                        text.trim_end_matches('*')
                    } else {
                        text
                    };
                    fts_string(word, &mut positive);
                    if *prefix {
                        positive.push_str(" *");
                    }
                }
                Item::Not(_) => {}
            }
        }
        if positive.is_empty() {
            return "\"\"".to_string();
        }
        let mut expr = format!("({positive})");
        let negatives: Vec<&String> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Not(t) => Some(t),
                _ => None,
            })
            .collect();
        if !negatives.is_empty() {
            expr.push_str(" NOT (");
            for (i, n) in negatives.iter().enumerate() {
                if i > 0 {
                    expr.push_str(" OR ");
                }
                fts_string(n, &mut expr);
            }
            expr.push(')');
        }
        match (columns.title, columns.text) {
            (true, true) => expr,
            (true, false) => format!("{{title}} : ({expr})"),
            _ => format!("{{text}} : ({expr})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: MatchColumns = MatchColumns {
        title: true,
        text: true,
    };

    #[test]
    fn words_phrases_or_not_prefix() {
        assert_eq!(parse_query("a b").to_fts(BOTH), r#"("a" AND "b")"#);
        assert_eq!(parse_query("a OR b").to_fts(BOTH), r#"("a" OR "b")"#);
        assert_eq!(
            parse_query(r#""a b" -c"#).to_fts(BOTH),
            r#"("a b") NOT ("c")"#
        );
        assert_eq!(parse_query("gro*").to_fts(BOTH), r#"("gro" *)"#);
        assert_eq!(parse_query("+a").to_fts(BOTH), r#"("a")"#);
        let title = MatchColumns {
            title: true,
            text: false,
        };
        assert_eq!(parse_query("a").to_fts(title), r#"{title} : (("a"))"#);
    }

    #[test]
    fn user_text_cannot_become_fts_syntax() {
        for q in [
            r#"""#,
            "*",
            "OR",
            "-",
            "(",
            ")",
            "a\"b",
            "NEAR(a b)",
            "a:b",
            "OR OR a OR",
            "-a",
            "{title}:x",
            "\\",
        ] {
            let fts = parse_query(q).to_fts(BOTH);
            // Every double quote that FTS5 reads as a string delimiter is ours.
            assert!(fts.starts_with('(') || fts == "\"\"", "{q} -> {fts}");
        }
        assert_eq!(parse_query(r#"a"b"#).to_fts(BOTH), r#"("a""b")"#);
        assert_eq!(
            parse_query("NEAR(a b)").to_fts(BOTH),
            r#"("NEAR" AND "a" AND "b")"#
        );
        assert_eq!(parse_query("-a").to_fts(BOTH), r#""""#);
        assert_eq!(parse_query("*").to_fts(BOTH), r#""""#);
    }

    #[test]
    fn params_decode_plus_and_percent() {
        let p = Params::parse("query=a+b%26c&x&limit=5&limit=7&e=%E6%97%A5");
        assert_eq!(p.get("query"), Some("a b&c"));
        assert_eq!(p.get("x"), Some(""));
        assert_eq!(p.int("limit", 10), Ok(7));
        assert_eq!(p.get("e"), Some("日"));
        assert!(p.int("e", 1).is_err());
    }

    #[test]
    fn select_params_normalise() {
        let a = parse_select(
            &Params::parse("table=Pages&query=x&match_columns=title,text"),
            1,
        )
        .unwrap();
        let b = parse_select(
            &Params::parse("match_columns=title||text&query=x&table=Pages&limit=10"),
            1,
        )
        .unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let e = parse_select(&Params::parse("table=Nope"), 1).unwrap_err();
        assert_eq!(e.code, INVALID_ARGUMENT);
        assert!(e.message.contains("<Nope>"));
        let e = parse_select(&Params::parse("table=Pages&query=x"), 1).unwrap_err();
        assert_eq!(e.code, SYNTAX_ERROR);
        let e =
            parse_select(&Params::parse("table=Pages&query=x&match_columns=body"), 1).unwrap_err();
        assert!(
            e.message.contains("unknown identifier: <body>"),
            "{}",
            e.message
        );
        assert!(parse_select(&Params::parse("table=Pages&query_flags=NONE|BOGUS"), 1).is_err());
        assert!(parse_select(
            &Params::parse("table=Pages&query_flags=ALLOW_PRAGMA|ALLOW_COLUMN"),
            1
        )
        .is_ok());
    }

    #[test]
    fn output_columns() {
        assert_eq!(parse_output_columns(None), DEFAULT_OUTPUT.to_vec());
        assert_eq!(
            parse_output_columns(Some("snippet_html(title), _key,nope,_score")),
            vec![
                Output::Snippet(Column::Title),
                Output::Column(Column::Key),
                Output::Column(Column::Score)
            ]
        );
    }
}
