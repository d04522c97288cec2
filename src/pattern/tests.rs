//! Tests of reading patterns files (text and JSON forms), their errors, and
//! group frequencies. URL splitting is tested in `crate::http::url`.

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

fn paths(g: &Group) -> Vec<String> {
    g.patterns
        .to_vec()
        .into_iter()
        .map(|p| p.path.unwrap_or_else(|| "-".into()))
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
        let p = std::env::temp_dir().join(format!("hakaru-pattern-{}-{name}", std::process::id()));
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
    assert_eq!(g.patterns.to_vec(), vec![path("/a?x=1"), path("/b")]);
    assert_eq!(set.n_patterns(), 2);
}

#[test]
fn text_accepts_urls_and_ipv6_urls() {
    let set = ok("http://127.0.0.1:10041/d/status\nHTTPS://example.com\nhttp://[::1]:8080/x?y=1\n");
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
    assert_eq!(set.groups[0].patterns.get(0).path.as_deref(), Some(SELECT));
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
    let set =
        ok(r#"{"frequency": 1, "method": "POST", "patterns": ["/a", "/b"], "command": "ignored"}"#);
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
    assert_eq!(g.patterns.get(1).method.as_deref(), Some("DELETE"));
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
    assert_eq!(g.patterns.get(0).body.as_deref(), Some("x"));
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
    let p = set.groups[0].patterns.to_vec();
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
        g.patterns.get(0).headers,
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
    assert_eq!(g.patterns.get(0), Pattern::default());
    assert_eq!(g.patterns.get(1).host.as_deref(), Some("::1"));
    assert_eq!(g.patterns.get(1).port, Some(8080));
    assert_eq!(g.patterns.get(1).timeout, Some(1.0));
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
fn from_url_makes_one_pattern() {
    let set = from_url("http://127.0.0.1:10041/d/status").unwrap();
    assert_eq!(set.source, "http://127.0.0.1:10041/d/status");
    assert_eq!(set.n_patterns(), 1);
    assert_eq!(
        set.groups[0].patterns.get(0),
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

#[test]
fn load_file_reads_as_parse_does_and_digests_the_bytes() {
    for (name, text) in [
        ("t.txt", "\u{feff}\r\n  \n# c\n/a?q=1\r\n/a?q=2\n/b/3/x\n"),
        ("t.json", "\n\n\u{20}{\"g\": {\"frequency\": 0.5, \"patterns\": [\"/a\", {\"path\": \"/b\", \"method\": \"POST\"}]}}\n"),
    ] {
        let f = TempFile::new(name, text.as_bytes());
        let from_file = load_file(&f.0).unwrap();
        let parsed = parse(text, &f.0.display().to_string()).unwrap();
        assert_eq!(from_file, parsed, "{name}");
        let digest = from_file.digest.clone().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
    }
    // Line numbers count the blank lines read before the form was known.
    let f = TempFile::new("late.json", b"\n\n{\"g\": [\"/a\", 3]}\n");
    let e = load_file(&f.0).unwrap_err();
    assert!(
        matches!(e, PatternError::Shape { line: Some(3), .. }),
        "{e:?}"
    );
    let f = TempFile::new("bad.json", b"\n[\"/a\",\n\"/b\xff\"]\n");
    let e = load_file(&f.0).unwrap_err();
    assert!(matches!(e, PatternError::Line { line: 3, .. }), "{e:?}");
    let f = TempFile::new("blank.txt", b"\n  \n\n");
    assert!(matches!(
        load_file(&f.0).unwrap_err(),
        PatternError::Empty { .. }
    ));
}

#[test]
fn request_patterns_file_dev_zero_is_refused_at_the_line_bound() {
    let err = load_file(Path::new("/dev/zero")).unwrap_err().to_string();
    assert!(
        err.contains("/dev/zero, line 1: longer than 1048576 bytes"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("hakaru-long-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("p.txt");
    let mut text = format!("/a\n/{}\n", "x".repeat(MAX_LINE_BYTES));
    std::fs::write(&path, &text).unwrap();
    let err = load_file(&path).unwrap_err().to_string();
    assert!(err.contains("line 2: longer than"), "{err}");
    // A line at the bound is a pattern like any other.
    text.truncate(text.len() - 3);
    text.push('\n');
    std::fs::write(&path, &text).unwrap();
    assert_eq!(load_file(&path).unwrap().n_patterns(), 2);
    // Minified JSON is one line longer than the bound, and is read whole.
    let long = format!("\"/{}\"", "y".repeat(1000));
    let json = format!("[{}]", vec![long; MAX_LINE_BYTES / 1000 + 1].join(","));
    std::fs::write(&path, &json).unwrap();
    assert_eq!(
        load_file(&path).unwrap().n_patterns(),
        MAX_LINE_BYTES / 1000 + 1
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn issue_19_a_misspelt_key_is_refused_not_sent_as_a_get() {
    // Before: "metod" and "bdy" were ignored, and every request went out as a GET
    // without a body.
    let e = err(r#"{"metod":"POST","patterns":[{"path":"/echo","bdy":"hello"}]}"#).to_string();
    assert_eq!(
        e,
        "patterns file t.json, line 1, column 2: the group: unknown key \"metod\" \
         (did you mean \"method\"?)"
    );
    let e = err("{\"method\":\"POST\",\n \"patterns\":[{\"path\":\"/echo\",\"bdy\":\"hello\"}]}")
        .to_string();
    assert_eq!(
        e,
        "patterns file t.json, line 2, column 30: pattern #1: unknown key \"bdy\" \
         (did you mean \"body\"?)"
    );
    // Nothing near: the known keys are listed.
    let e = err(r#"[{"path":"/a","zzzzzz":1}]"#).to_string();
    assert!(e.contains("known keys: path, method"), "{e}");
    // drnbench's own "command" stays accepted.
    ok(r#"[{"path":"/a","command":"search"}]"#);
}

#[test]
fn patterns_and_groups_take_names() {
    let set = ok(
        r#"{"search": {"patterns": [{"path": "/s", "name": "by-title"}, "/t"]},
                    "load": ["/l"]}"#,
    );
    assert_eq!(set.groups[0].name.as_deref(), Some("search"));
    assert_eq!(
        set.groups[0].patterns.get(0).name.as_deref(),
        Some("by-title")
    );
    assert_eq!(set.groups[0].patterns.get(1).name, None);
    // An array of groups names a group by its "name".
    let set = ok(r#"[{"name": "a", "patterns": ["/a"]}, ["/b"]]"#);
    assert_eq!(set.groups[0].name.as_deref(), Some("a"));
    assert_eq!(set.groups[0].defaults.name, None);
    let e = err(r#"{"a": {"name": "b", "patterns": ["/a"]}}"#).to_string();
    assert!(e.contains("named twice"), "{e}");
    let e = err(r#"[{"path": "/a", "name": "two words"}]"#).to_string();
    assert!(e.contains("space"), "{e}");
}

#[test]
fn text_lines_take_a_name_before_the_target() {
    let set = parse(
        "name=search /d/select?q=a\n/plain\nname=load\thttp://127.0.0.1:1/d/load\n",
        "t.txt",
    )
    .expect("parses");
    let g = &set.groups[0];
    assert_eq!(
        paths(g),
        ["/d/select?q=a", "/plain", "http://127.0.0.1:1/d/load"]
    );
    assert_eq!(g.patterns.get(0).name.as_deref(), Some("search"));
    assert_eq!(g.patterns.get(1).name, None);
    assert_eq!(g.patterns.get(2).name.as_deref(), Some("load"));
    for bad in ["name=search", "name= /a", "name=x{y} /a", "name=a nothttp"] {
        let e = parse(bad, "t.txt").expect_err(bad).to_string();
        assert!(e.starts_with("patterns file t.txt, line 1: "), "{e}");
    }
}
