//! Request patterns from search terms: the tutorial's `sed` step and
//! drnbench-generate-select-patterns, plus sizing the set of unique requests for a
//! planned cache hit rate and Sekka's same-key / unique-keys request sets.
//!
//! Each term becomes one request path, either from a template (`--template
//! '/d/select?...&query={term}'`) or from drnbench's `--base-params` form
//! (`/d/select?<base params>&query=<term>`). The paths are printed one per line
//! (hakaru's and drnbench's plain-text patterns file) or as drnbench's JSON
//! (`{"with-query": {"frequency": 1.0, "method": "get", "patterns": [{"path": ...}]}}`).
//!
//! # Escaping
//! Terms may arrive raw (`日本語 テキスト`) or already percent-encoded (from `hakaru
//! terms --escape`). The default, [`EscapeMode::Auto`], is right for both: every
//! byte that is not an RFC 3986 unreserved character is encoded, except a `%`
//! followed by two hex digits, which is taken to be an escape already. So
//! `a&b #1` → `a%26b%20%231`, `100%` → `100%25`, `%E6%97%A5` stays, and the
//! output of `hakaru terms --escape` passes through unchanged. The one ambiguity:
//! a raw term that really contains `%` and two hex digits (`50%25`) is taken as
//! escaped; use `--escape` ([`EscapeMode::Raw`]) when terms are known to be raw,
//! `--escaped` ([`EscapeMode::Verbatim`]) when they are known to be escaped.
//!
//! # Cache-hit planning
//! Groonga and droonga-http-server cache the results of the last 100 distinct
//! requests (LRU). A benchmark that draws uniformly at random from N distinct
//! requests finds the one it draws in the cache when that request was among the
//! last C distinct ones drawn; once the cache is warm that holds for about C of
//! the N requests, so the hit rate is about C / N (1 when N ≤ C). To get a hit
//! rate R, use N = C / R distinct requests: 200 for 50% with a 100-entry cache
//! (the tutorial's rule, measured to hold against Groonga 13 here). As R falls
//! towards 0, N grows without bound, so a rate below 0.01 is refused with the
//! tutorial's advice to plan for 0.01 (N = 10 000 for C = 100).

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use crate::http::url::{encode_component, encode_component_keeping_escapes};

/// The placeholder a template must contain.
pub const TERM_PLACEHOLDER: &str = "{term}";
/// drnbench-generate-select-patterns' default base parameters.
pub const DRNBENCH_BASE_PARAMS: &str = "limit=10&offset=0";
/// Results Groonga and droonga-http-server cache by default.
pub const DEFAULT_CACHE_SIZE: usize = 100;
/// The lowest hit rate a plan accepts (the tutorial's advice for "near 0").
pub const MIN_HIT_RATE: f64 = 0.01;

/// How each term becomes a request path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestForm {
    /// Every `{term}` in the template is replaced by the escaped term.
    Template(String),
    /// drnbench-generate-select-patterns: `/d/select?<base params>&query=<term>`
    /// (`/d/select?query=<term>` when the base params are empty). As drnbench does,
    /// `:` and `;` in a term become spaces (Groonga's query syntax would read them)
    /// and runs of spaces collapse to one.
    BaseParams(String),
}

/// How terms are escaped before they go into a path (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EscapeMode {
    /// Encode what is not valid in a query parameter value; keep `%XX` escapes.
    #[default]
    Auto,
    /// Terms are raw text: encode everything but unreserved characters, `%` included.
    Raw,
    /// Terms are already escaped: use them as they are.
    Verbatim,
}

/// Which of the terms become requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum RequestSet {
    /// Every distinct term (or every term, with `keep_duplicates`).
    #[default]
    All,
    /// N = ceil(cache_size / hit_rate) distinct requests (see the module docs).
    CacheHitRate { hit_rate: f64, cache_size: usize },
    /// Sekka's "samekey": one request (the first term's); the engine repeats it,
    /// so after the first request every answer comes from the server's cache.
    SameKey,
    /// Sekka's "uniqkey": the first N distinct terms.
    UniqueKeys(usize),
}

/// Output format of the patterns file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// One path per line.
    #[default]
    Text,
    /// drnbench's named-groups JSON.
    Json,
}

/// Everything `hakaru patterns` needs besides the terms.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternsOptions {
    pub form: RequestForm,
    pub escape: EscapeMode,
    pub set: RequestSet,
    /// Keep repeated terms (each repeat is one more pattern, so it is drawn more
    /// often). By default repeats are dropped: they add weight, not unique requests.
    pub keep_duplicates: bool,
    pub format: OutputFormat,
    /// JSON group name ("with-query" like drnbench when `None`); with hosts each
    /// group is `<name>-<host>`.
    pub group: Option<String>,
    /// JSON group frequency (1.0 when `None`), split equally between hosts.
    pub frequency: Option<f64>,
    /// JSON group method ("get" when `None`, as drnbench writes it).
    pub method: Option<String>,
    /// One JSON group per host, each with `"host"` set and an equal share of the frequency.
    pub hosts: Vec<String>,
}

impl Default for PatternsOptions {
    fn default() -> Self {
        PatternsOptions {
            form: RequestForm::BaseParams(DRNBENCH_BASE_PARAMS.to_string()),
            escape: EscapeMode::Auto,
            set: RequestSet::All,
            keep_duplicates: false,
            format: OutputFormat::Text,
            group: None,
            frequency: None,
            method: None,
            hosts: Vec::new(),
        }
    }
}

/// The generated request paths and what the user should be told about them.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub paths: Vec<String>,
    /// Messages for stderr (the plan, dropped duplicates); not errors.
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PatternGenError {
    #[error("--template {template:?} has no {{term}} placeholder: write e.g. '/d/select?table=Pages&match_columns=title&query={{term}}'")]
    NoPlaceholder { template: String },
    #[error("--template {template:?} must start with '/' or http:// or https://")]
    TemplateStart { template: String },
    #[error("--template {template:?} contains whitespace; escape it (%20) so each pattern stays one line")]
    TemplateWhitespace { template: String },
    #[error("--base-params {params:?} contains whitespace or '?'; give only name=value pairs joined by '&'")]
    BaseParams { params: String },
    #[error("no search terms in the input (blank lines are skipped)")]
    NoTerms,
    #[error("--cache-hit-rate {rate} is not in (0, 1]; use e.g. 0.5 for 50%")]
    HitRateRange { rate: f64 },
    #[error("--cache-hit-rate {rate} is too close to 0: it would need {needed} unique requests; plan for 0.01 (1%) instead, as the tutorial advises")]
    HitRateTooLow { rate: f64, needed: String },
    #[error("--cache-size must be at least 1")]
    CacheSize,
    #[error("need {needed} unique terms for a {percent}% hit rate with a {cache_size}-entry cache, got {got}")]
    NotEnoughForHitRate {
        needed: usize,
        percent: String,
        cache_size: usize,
        got: usize,
    },
    #[error("--unique-keys {needed} needs {needed} distinct terms, got {got}")]
    NotEnoughUniqueKeys { needed: usize, got: usize },
    #[error("--unique-keys must be at least 1")]
    UniqueKeysZero,
    #[error("--frequency {0} must be a positive number")]
    Frequency(f64),
    #[error("{flag} only applies to --format json (a plain-text patterns file holds only paths; give hosts to `hakaru run`/`ramp` with --default-hosts)")]
    JsonOnly { flag: &'static str },
    #[error("--hosts has an empty host name")]
    EmptyHost,
}

/// Terms from a terms file: one per line, surrounding whitespace trimmed, blank
/// lines skipped.
pub fn read_terms(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// How many unique requests give `hit_rate` with a `cache_size`-entry LRU cache:
/// ceil(cache_size / hit_rate). See the module docs for why.
pub fn unique_requests_for(hit_rate: f64, cache_size: usize) -> Result<usize, PatternGenError> {
    if cache_size == 0 {
        return Err(PatternGenError::CacheSize);
    }
    if hit_rate.is_nan() || hit_rate > 1.0 || hit_rate <= 0.0 {
        if hit_rate <= 0.0 {
            return Err(PatternGenError::HitRateTooLow {
                rate: hit_rate,
                needed: "infinitely many".to_string(),
            });
        }
        return Err(PatternGenError::HitRateRange { rate: hit_rate });
    }
    let exact = cache_size as f64 / hit_rate;
    if hit_rate < MIN_HIT_RATE {
        return Err(PatternGenError::HitRateTooLow {
            rate: hit_rate,
            needed: format!("{:.0}", exact.ceil()),
        });
    }
    // The small tolerance keeps 100 / 0.1 at 1000 despite binary fractions.
    Ok((exact - 1e-9).ceil() as usize)
}

/// Escapes `term` for a query parameter value according to `mode`.
pub fn escape_term(term: &str, mode: EscapeMode) -> String {
    match mode {
        EscapeMode::Verbatim => term.to_string(),
        EscapeMode::Raw => encode_component(term),
        EscapeMode::Auto => encode_component_keeping_escapes(term),
    }
}

/// drnbench's sanitize_for_param before escaping: `:` and `;` become spaces,
/// the ends are trimmed, runs of spaces become one.
fn drnbench_sanitize(term: &str) -> String {
    let replaced: String = term
        .chars()
        .map(|c| if c == ':' || c == ';' { ' ' } else { c })
        .collect();
    replaced
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn validate(opts: &PatternsOptions) -> Result<(), PatternGenError> {
    match &opts.form {
        RequestForm::Template(t) => {
            if !t.contains(TERM_PLACEHOLDER) {
                return Err(PatternGenError::NoPlaceholder {
                    template: t.clone(),
                });
            }
            if !(t.starts_with('/') || t.starts_with("http://") || t.starts_with("https://")) {
                return Err(PatternGenError::TemplateStart {
                    template: t.clone(),
                });
            }
            if t.chars().any(char::is_whitespace) {
                return Err(PatternGenError::TemplateWhitespace {
                    template: t.clone(),
                });
            }
        }
        RequestForm::BaseParams(p) => {
            if p.chars().any(|c| c.is_whitespace() || c == '?') {
                return Err(PatternGenError::BaseParams { params: p.clone() });
            }
        }
    }
    if opts.format == OutputFormat::Text {
        let json_only = [
            ("--hosts", !opts.hosts.is_empty()),
            ("--group", opts.group.is_some()),
            ("--frequency", opts.frequency.is_some()),
            ("--method", opts.method.is_some()),
        ];
        if let Some((flag, _)) = json_only.iter().find(|(_, set)| *set) {
            return Err(PatternGenError::JsonOnly { flag });
        }
    }
    if let Some(f) = opts.frequency {
        if !(f > 0.0 && f.is_finite()) {
            return Err(PatternGenError::Frequency(f));
        }
    }
    if opts.hosts.iter().any(|h| h.trim().is_empty()) {
        return Err(PatternGenError::EmptyHost);
    }
    Ok(())
}

/// Turns terms into request paths according to `opts`.
pub fn generate(terms: &[String], opts: &PatternsOptions) -> Result<Generated, PatternGenError> {
    validate(opts)?;
    let mut notes = Vec::new();
    let mut paths = Vec::with_capacity(terms.len());
    let mut seen = HashSet::new();
    let mut n_duplicates = 0usize;
    for term in terms {
        let term = term.trim();
        let escaped = match &opts.form {
            RequestForm::BaseParams(_) => escape_term(&drnbench_sanitize(term), opts.escape),
            RequestForm::Template(_) => escape_term(term, opts.escape),
        };
        if escaped.is_empty() {
            continue;
        }
        // Duplicates are judged on the escaped form: "a b" and "a%20b" are one request.
        if !seen.insert(escaped.clone()) {
            n_duplicates += 1;
            if !opts.keep_duplicates || opts.set != RequestSet::All {
                continue;
            }
        }
        paths.push(match &opts.form {
            RequestForm::Template(t) => t.replace(TERM_PLACEHOLDER, &escaped),
            RequestForm::BaseParams(p) if p.is_empty() => format!("/d/select?query={escaped}"),
            RequestForm::BaseParams(p) => format!("/d/select?{p}&query={escaped}"),
        });
    }
    if paths.is_empty() {
        return Err(PatternGenError::NoTerms);
    }
    let n_unique = seen.len();
    if n_duplicates > 0 && !(opts.keep_duplicates && opts.set == RequestSet::All) {
        notes.push(format!(
            "dropped {n_duplicates} repeated term(s); {n_unique} unique remain"
        ));
    }
    match opts.set {
        RequestSet::All => {}
        RequestSet::CacheHitRate {
            hit_rate,
            cache_size,
        } => {
            let needed = unique_requests_for(hit_rate, cache_size)?;
            if paths.len() < needed {
                return Err(PatternGenError::NotEnoughForHitRate {
                    needed,
                    percent: format_percent(hit_rate),
                    cache_size,
                    got: paths.len(),
                });
            }
            paths.truncate(needed);
            notes.push(format!(
                "planned {needed} unique requests: cache {cache_size} ÷ hit rate {hit_rate}"
            ));
        }
        RequestSet::SameKey => {
            paths.truncate(1);
            notes.push(
                "same key: one request; the engine repeats it, so every answer after the first can come from the server's cache"
                    .to_string(),
            );
        }
        RequestSet::UniqueKeys(n) => {
            if n == 0 {
                return Err(PatternGenError::UniqueKeysZero);
            }
            if paths.len() < n {
                return Err(PatternGenError::NotEnoughUniqueKeys {
                    needed: n,
                    got: paths.len(),
                });
            }
            paths.truncate(n);
            notes.push(format!("unique keys: {n} distinct requests"));
        }
    }
    Ok(Generated { paths, notes })
}

fn format_percent(rate: f64) -> String {
    let p = rate * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}", p.round() as i64)
    } else {
        format!("{}", (p * 1000.0).round() / 1000.0)
    }
}

/// The patterns file's text: one path per line, or drnbench's named-groups JSON
/// (pretty-printed, ending in a newline).
pub fn render(paths: &[String], opts: &PatternsOptions) -> String {
    match opts.format {
        OutputFormat::Text => {
            let mut out = String::with_capacity(paths.iter().map(|p| p.len() + 1).sum());
            for p in paths {
                out.push_str(p);
                out.push('\n');
            }
            out
        }
        OutputFormat::Json => {
            let name = opts.group.as_deref().unwrap_or("with-query");
            let frequency = opts.frequency.unwrap_or(1.0);
            let method = opts.method.as_deref().unwrap_or("get");
            let patterns: Vec<Value> = paths.iter().map(|p| json!({ "path": p })).collect();
            let mut groups = Map::new();
            if opts.hosts.is_empty() {
                groups.insert(
                    name.to_string(),
                    json!({ "frequency": frequency, "method": method, "patterns": patterns }),
                );
            } else {
                let share = frequency / opts.hosts.len() as f64;
                for host in &opts.hosts {
                    let host = host.trim();
                    groups.insert(
                        format!("{name}-{host}"),
                        json!({ "frequency": share, "method": method, "host": host, "patterns": patterns }),
                    );
                }
            }
            let mut text = serde_json::to_string_pretty(&Value::Object(groups)).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// [`generate`] then [`render`]: the file's text and the notes for stderr.
pub fn generate_file(
    terms: &[String],
    opts: &PatternsOptions,
) -> Result<(String, Vec<String>), PatternGenError> {
    let generated = generate(terms, opts)?;
    Ok((render(&generated.paths, opts), generated.notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::url::percent_decode;

    const TEMPLATE: &str = "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&query_flags=NONE&query={term}";

    fn terms(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn template_opts() -> PatternsOptions {
        PatternsOptions {
            form: RequestForm::Template(TEMPLATE.to_string()),
            ..PatternsOptions::default()
        }
    }

    /// The query parameter's value as a server decodes it.
    fn query_of(path: &str) -> String {
        let q = path.split_once('?').unwrap().1;
        let v = q
            .split('&')
            .find_map(|kv| kv.strip_prefix("query="))
            .unwrap();
        percent_decode(&v.replace('+', " "))
    }

    #[test]
    fn template_substitutes_each_term() {
        let g = generate(&terms(&["alpha", "beta gamma"]), &template_opts()).unwrap();
        assert_eq!(
            g.paths,
            vec![
                TEMPLATE.replace("{term}", "alpha"),
                TEMPLATE.replace("{term}", "beta%20gamma")
            ]
        );
        assert!(g.notes.is_empty());
    }

    #[test]
    fn template_errors() {
        let o = PatternsOptions {
            form: RequestForm::Template("/d/select?query=x".into()),
            ..PatternsOptions::default()
        };
        let e = generate(&terms(&["a"]), &o).unwrap_err().to_string();
        assert!(e.contains("has no {term} placeholder"), "{e}");
        let o = PatternsOptions {
            form: RequestForm::Template("d/select?query={term}".into()),
            ..PatternsOptions::default()
        };
        assert!(matches!(
            generate(&terms(&["a"]), &o),
            Err(PatternGenError::TemplateStart { .. })
        ));
        assert_eq!(
            generate(&[], &template_opts()),
            Err(PatternGenError::NoTerms)
        );
    }

    #[test]
    fn round_trip_of_awkward_terms_raw_or_escaped() {
        let raw = [
            "a&b",
            "#hash",
            "100%",
            "1+1",
            "two words",
            "日本語 テキスト",
            "x=y?z/",
            "%zz",
        ];
        // Raw terms, escaped by default.
        let g = generate(&terms(&raw), &template_opts()).unwrap();
        for (p, t) in g.paths.iter().zip(raw) {
            assert!(!p.contains(' ') && !p.contains('#'), "{p}");
            assert_eq!(p.matches('&').count(), TEMPLATE.matches('&').count(), "{p}");
            assert_eq!(query_of(p), t, "{p}");
        }
        // The same terms after `hakaru terms --escape`: unchanged by the default mode.
        let escaped: Vec<String> = raw.iter().map(|t| encode_component(t)).collect();
        let g2 = generate(&escaped, &template_opts()).unwrap();
        assert_eq!(g.paths, g2.paths);
        // --escape encodes '%' too; --escaped takes terms as they are.
        assert_eq!(escape_term("50%25", EscapeMode::Raw), "50%2525");
        assert_eq!(escape_term("50%25", EscapeMode::Auto), "50%25");
        assert_eq!(escape_term("a b", EscapeMode::Verbatim), "a b");
    }

    #[test]
    fn auto_escape_is_idempotent() {
        for t in ["a&b", "100%", "%4", "日本", "%E6%97%A5", "a%20b c"] {
            let once = escape_term(t, EscapeMode::Auto);
            assert_eq!(escape_term(&once, EscapeMode::Auto), once);
        }
    }

    #[test]
    fn base_params_as_drnbench() {
        let o = PatternsOptions::default();
        let g = generate(&terms(&["foo:bar;  baz ", "日本"]), &o).unwrap();
        assert_eq!(
            g.paths,
            vec![
                "/d/select?limit=10&offset=0&query=foo%20bar%20baz",
                "/d/select?limit=10&offset=0&query=%E6%97%A5%E6%9C%AC"
            ]
        );
        let o = PatternsOptions {
            form: RequestForm::BaseParams(String::new()),
            ..PatternsOptions::default()
        };
        assert_eq!(
            generate(&terms(&["x"]), &o).unwrap().paths,
            vec!["/d/select?query=x"]
        );
    }

    #[test]
    fn duplicates_and_blanks() {
        assert_eq!(read_terms("a\n\n  \r\nb \r\na\n"), terms(&["a", "b", "a"]));
        let g = generate(&terms(&["a", "b", "a", "a b", "a%20b"]), &template_opts()).unwrap();
        assert_eq!(g.paths.len(), 3);
        assert_eq!(g.notes, vec!["dropped 2 repeated term(s); 3 unique remain"]);
        let o = PatternsOptions {
            keep_duplicates: true,
            ..template_opts()
        };
        assert_eq!(generate(&terms(&["a", "a"]), &o).unwrap().paths.len(), 2);
    }

    #[test]
    fn hit_rate_plan_sizes() {
        assert_eq!(unique_requests_for(0.5, 100), Ok(200));
        assert_eq!(unique_requests_for(0.1, 100), Ok(1000));
        assert_eq!(unique_requests_for(0.3, 100), Ok(334));
        assert_eq!(unique_requests_for(1.0, 100), Ok(100));
        assert_eq!(unique_requests_for(0.01, 100), Ok(10000));
        let e = unique_requests_for(0.001, 100).unwrap_err().to_string();
        assert!(
            e.contains("100000 unique requests") && e.contains("0.01"),
            "{e}"
        );
        let e = unique_requests_for(0.0, 100).unwrap_err().to_string();
        assert!(e.contains("infinitely many") && e.contains("0.01"), "{e}");
        assert!(unique_requests_for(-1.0, 100)
            .unwrap_err()
            .to_string()
            .contains("0.01"));
        assert!(matches!(
            unique_requests_for(1.5, 100),
            Err(PatternGenError::HitRateRange { .. })
        ));
        assert!(matches!(
            unique_requests_for(f64::NAN, 100),
            Err(PatternGenError::HitRateRange { .. })
        ));
        assert_eq!(unique_requests_for(0.5, 0), Err(PatternGenError::CacheSize));
    }

    #[test]
    fn hit_rate_plan_takes_the_first_unique_terms() {
        let many: Vec<String> = (0..250).map(|i| format!("t{}", i % 210)).collect();
        let o = PatternsOptions {
            set: RequestSet::CacheHitRate {
                hit_rate: 0.5,
                cache_size: 100,
            },
            ..template_opts()
        };
        let g = generate(&many, &o).unwrap();
        assert_eq!(g.paths.len(), 200);
        assert_eq!(g.paths.iter().collect::<HashSet<_>>().len(), 200);
        assert!(g
            .notes
            .contains(&"planned 200 unique requests: cache 100 ÷ hit rate 0.5".to_string()));
        let few: Vec<String> = (0..150).map(|i| format!("t{i}")).collect();
        let e = generate(&few, &o).unwrap_err().to_string();
        assert_eq!(
            e,
            "need 200 unique terms for a 50% hit rate with a 100-entry cache, got 150"
        );
    }

    #[test]
    fn sekka_sets() {
        let t = terms(&["Kanji", "Aimai", "Ao", "Kanji"]);
        let o = PatternsOptions {
            set: RequestSet::SameKey,
            ..template_opts()
        };
        assert_eq!(
            generate(&t, &o).unwrap().paths,
            vec![TEMPLATE.replace("{term}", "Kanji")]
        );
        let o = PatternsOptions {
            set: RequestSet::UniqueKeys(3),
            ..template_opts()
        };
        assert_eq!(generate(&t, &o).unwrap().paths.len(), 3);
        let o = PatternsOptions {
            set: RequestSet::UniqueKeys(4),
            ..template_opts()
        };
        assert_eq!(
            generate(&t, &o).unwrap_err(),
            PatternGenError::NotEnoughUniqueKeys { needed: 4, got: 3 }
        );
    }

    #[test]
    fn json_output_as_drnbench() {
        let o = PatternsOptions {
            format: OutputFormat::Json,
            ..PatternsOptions::default()
        };
        let (text, _) = generate_file(&terms(&["a"]), &o).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({"with-query": {"frequency": 1.0, "method": "get",
                   "patterns": [{"path": "/d/select?limit=10&offset=0&query=a"}]}})
        );
        let o = PatternsOptions {
            hosts: vec!["node0".into(), "node1".into()],
            group: Some("search".into()),
            method: Some("GET".into()),
            ..o
        };
        let v: Value = serde_json::from_str(&generate_file(&terms(&["a"]), &o).unwrap().0).unwrap();
        assert_eq!(v["search-node0"]["frequency"], json!(0.5));
        assert_eq!(v["search-node1"]["host"], json!("node1"));
        assert_eq!(v["search-node1"]["method"], json!("GET"));
        assert_eq!(v.as_object().unwrap().len(), 2);
    }

    #[test]
    fn json_only_flags_are_refused_for_text() {
        let o = PatternsOptions {
            hosts: vec!["node0".into()],
            ..template_opts()
        };
        assert_eq!(
            generate(&terms(&["a"]), &o),
            Err(PatternGenError::JsonOnly { flag: "--hosts" })
        );
        assert_eq!(render(&terms(&["/a", "/b"]), &template_opts()), "/a\n/b\n");
    }
}
