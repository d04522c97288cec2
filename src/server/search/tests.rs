//! Tests of the search target, calling `handle()` directly (the HTTP server is
//! tested on its own).

use super::*;
use crate::pattern::generate::{self as patterngen, PatternsOptions, RequestForm, RequestSet};
use crate::pattern::terms::{extract_terms, TermsOptions};

fn target(documents: usize) -> SearchTarget {
    SearchTarget::new(SearchOptions {
        documents,
        ..SearchOptions::default()
    })
    .unwrap()
}

fn request<'a>(
    method: &'a str,
    path_and_query: &'a str,
    headers: &'a [(String, String)],
    body: &'a [u8],
) -> Request<'a> {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    Request {
        method,
        path,
        query,
        headers,
        body,
    }
}

fn get(t: &SearchTarget, path_and_query: &str) -> (u16, Value) {
    let resp = t.handle(&request("GET", path_and_query, &[], b""));
    assert_eq!(resp.content_type, "application/json");
    let text = String::from_utf8(resp.body).unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path_and_query}: {e}: {text}"));
    (resp.status, v)
}

fn load(t: &SearchTarget, query: &str, body: &str, json_type: bool) -> (u16, Value) {
    let headers = if json_type {
        vec![(
            "Content-Type".to_string(),
            "application/json; charset=utf-8".to_string(),
        )]
    } else {
        vec![]
    };
    let path = format!("/d/load?{query}");
    let resp = t.handle(&request("POST", &path, &headers, body.as_bytes()));
    (resp.status, serde_json::from_slice(&resp.body).unwrap())
}

/// Stats through `/d/status`: (n_queries, cache_hit_rate in percent).
fn status(t: &SearchTarget) -> (u64, f64) {
    let (code, v) = get(t, "/d/status");
    assert_eq!(code, 200);
    assert_eq!(v[0][0], json!(0));
    (
        v[1]["n_queries"].as_u64().unwrap(),
        v[1]["cache_hit_rate"].as_f64().unwrap(),
    )
}

#[test]
fn shapes_of_every_command_version() {
    let t = target(200);
    let (code, v1) = get(
        &t,
        "/d/select?table=Pages&limit=3&output_columns=_key,title,categories,_score",
    );
    assert_eq!(code, 200);
    assert_eq!(v1[0][0], json!(0));
    assert!(v1[0][1].as_f64().unwrap() > 1.0e9);
    let result = &v1[1][0];
    assert_eq!(result[0], json!([200]));
    assert_eq!(
        result[1],
        json!([
            ["_key", "ShortText"],
            ["title", "ShortText"],
            ["categories", "Categories"],
            ["_score", "Int32"]
        ])
    );
    assert_eq!(result.as_array().unwrap().len(), 2 + 3);
    assert_eq!(result[2][0], json!("page-000001"));
    assert!(result[2][2].is_array());

    let (_, v2) = get(
        &t,
        "/d/select?command_version=2&table=Pages&limit=2&output_columns=_key,_score",
    );
    assert_eq!(v2[1][0][1][1], json!(["_score", "Float"]));

    let (_, v3) = get(
        &t,
        "/d/select?command_version=3&table=Pages&limit=2&output_columns=_id,_key",
    );
    assert_eq!(v3["header"]["return_code"], json!(0));
    assert!(v3["header"]["elapsed_time"].is_number());
    assert_eq!(v3["body"]["n_hits"], json!(200));
    assert_eq!(
        v3["body"]["columns"],
        json!([{"name": "_id", "type": "UInt32"}, {"name": "_key", "type": "ShortText"}])
    );
    assert_eq!(
        v3["body"]["records"],
        json!([[1, "page-000001"], [2, "page-000002"]])
    );
    assert!(v3["body"].get("drilldowns").is_none());

    // Groonga's default output columns.
    let (_, d) = get(&t, "/d/select?table=Pages&limit=1");
    let names: Vec<&str> = d[1][0][1]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[0].as_str().unwrap())
        .collect();
    assert_eq!(names, ["_id", "_key", "categories", "text", "title"]);
}

#[test]
fn round_trip_select_terms_patterns_select() {
    let t = target(300);
    for version in 1..=3 {
        let (_, v) = get(
            &t,
            &format!("/d/select?command_version={version}&table=Pages&limit=50&output_columns=title&drilldown=categories"),
        );
        let text = v.to_string();
        let opts = TermsOptions {
            escape: version == 2, // raw and escaped terms must give the same patterns
            unique: true,
            ..TermsOptions::default()
        };
        let terms = extract_terms(&text, "select", &opts).unwrap();
        assert!(terms.len() >= 45, "{}", terms.len());
        let popts = PatternsOptions {
            form: RequestForm::Template(
                "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&query_flags=NONE&query={term}"
                    .into(),
            ),
            set: RequestSet::UniqueKeys(40),
            ..PatternsOptions::default()
        };
        let generated = patterngen::generate(&terms, &popts).unwrap();
        assert_eq!(generated.paths.len(), 40);
        for path in &generated.paths {
            let (code, v) = get(&t, path);
            assert_eq!(code, 200, "{path}: {v}");
            let n = v[1][0][0][0].as_i64().unwrap();
            assert!(n >= 1, "a title finds at least its own page: {path}");
        }
    }
}

#[test]
fn japanese_terms_round_trip() {
    let t = target(0);
    let (code, v) = load(
        &t,
        "table=Pages",
        r#"[{"_key":"jp-1","title":"日本語 テキスト","text":"全文 検索 エンジン","categories":["言語"]},
            {"_key":"jp-2","title":"a&b #1 100%","text":"x+y","categories":[]}]"#,
        true,
    );
    assert_eq!((code, v[1].clone()), (200, json!(2)));
    let (_, sel) = get(&t, "/d/select?table=Pages&output_columns=title");
    for escape in [false, true] {
        let terms = extract_terms(
            &sel.to_string(),
            "s",
            &TermsOptions {
                escape,
                ..TermsOptions::default()
            },
        )
        .unwrap();
        assert_eq!(terms.len(), 2);
        let g = patterngen::generate(
            &terms,
            &PatternsOptions {
                form: RequestForm::Template(
                    "/d/select?table=Pages&match_columns=title&output_columns=_key&query={term}"
                        .into(),
                ),
                ..PatternsOptions::default()
            },
        )
        .unwrap();
        let (_, a) = get(&t, &g.paths[0]);
        assert_eq!(a[1][0][2], json!(["jp-1"]), "{}", g.paths[0]);
        let (_, b) = get(&t, &g.paths[1]);
        assert_eq!(b[1][0][2], json!(["jp-2"]), "{}", g.paths[1]);
    }
}

#[test]
fn cache_hits_are_counted_like_groonga() {
    let t = target(100);
    assert_eq!(status(&t), (0, 0.0));
    let q = "/d/select?table=Pages&match_columns=title,text&query=ka";
    get(&t, q);
    assert_eq!(status(&t), (1, 0.0));
    get(&t, q);
    assert_eq!(status(&t), (2, 50.0));
    assert_eq!(
        t.cache_stats(),
        CacheStats {
            n_queries: 2,
            n_hits: 1
        }
    );
    // Another order of parameters, an explicit default, '+' for a space: the same entry.
    get(
        &t,
        "/d/select?query=ka&command_version=1&match_columns=title||text&limit=10&table=Pages",
    );
    assert_eq!(t.cache_stats().n_hits, 2);
    // A different command_version is a different entry; cache=no neither reads nor fills.
    get(&t, &format!("{q}&command_version=3"));
    get(&t, &format!("{q}&cache=no"));
    assert_eq!(
        t.cache_stats(),
        CacheStats {
            n_queries: 5,
            n_hits: 2
        }
    );
    // Errors count as queries, never as hits; status and cache_limit are not queries.
    get(&t, "/d/select?table=Nope");
    get(&t, "/d/select?table=Nope");
    get(&t, "/d/cache_limit");
    assert_eq!(
        t.cache_stats(),
        CacheStats {
            n_queries: 7,
            n_hits: 2
        }
    );
}

#[test]
fn cache_is_an_lru_of_100() {
    let t = target(50);
    let (_, v) = get(&t, "/d/cache_limit");
    assert_eq!(v[1], json!(100));
    for i in 0..101 {
        get(&t, &format!("/d/select?table=Pages&limit=1&offset={i}"));
    }
    // offset=0 was evicted by the 101st entry; offset=100 is still there.
    get(&t, "/d/select?table=Pages&limit=1&offset=0");
    get(&t, "/d/select?table=Pages&limit=1&offset=100");
    assert_eq!(t.cache_stats().n_hits, 1);
    let (_, v) = get(&t, "/d/cache_limit?max=5");
    assert_eq!(v[1], json!(100));
    let (_, v) = get(&t, "/d/cache_limit");
    assert_eq!(v[1], json!(5));
}

#[test]
fn drilldown_counts() {
    let t = target(0);
    load(
        &t,
        "table=Pages",
        r#"[{"_key":"a","title":"alpha one","text":"common","categories":["x","y"]},
            {"_key":"b","title":"beta two","text":"common","categories":["y"]},
            {"_key":"c","title":"gamma","text":"common rare","categories":["y","z"]},
            {"_key":"d","title":"delta","text":"other","categories":["x"]}]"#,
        true,
    );
    let (_, v) = get(
        &t,
        "/d/select?table=Pages&match_columns=text&query=common&limit=0&drilldown=categories&drilldown_sortby=-_nsubrecs&drilldown_output_columns=_key,_nsubrecs",
    );
    assert_eq!(v[1][0][0], json!([3]));
    assert_eq!(v[1][0].as_array().unwrap().len(), 2, "limit=0: no records");
    assert_eq!(
        v[1][1],
        json!([
            [3],
            [["_key", "ShortText"], ["_nsubrecs", "Int32"]],
            ["y", 3],
            ["x", 1],
            ["z", 1]
        ])
    );
    let (_, v) = get(
        &t,
        "/d/select?command_version=3&table=Pages&limit=0&drilldown=categories&drilldown_sortby=_nsubrecs,_key&drilldown_limit=2&drilldown_output_columns=_id,_key,_nsubrecs",
    );
    let dd = &v["body"]["drilldowns"]["categories"];
    assert_eq!(dd["n_hits"], json!(3));
    assert_eq!(dd["records"], json!([[3, "z", 1], [1, "x", 2]]));
    // Default drilldown output and order (group order), limit 10.
    let (_, v) = get(&t, "/d/select?table=Pages&limit=0&drilldown=categories");
    assert_eq!(
        v[1][1],
        json!([
            [3],
            [["_key", "ShortText"], ["_nsubrecs", "Int32"]],
            ["x", 2],
            ["y", 3],
            ["z", 1]
        ])
    );
    let (code, v) = get(&t, "/d/select?table=Pages&drilldown=nope");
    assert_eq!(code, 400);
    assert_eq!(v[0][0], json!(-22));
}

#[test]
fn drilldown_on_the_generated_corpus_adds_up() {
    let t = target(300);
    let (_, all) = get(
        &t,
        "/d/select?command_version=3&table=Pages&limit=-1&output_columns=categories",
    );
    let mut expected = std::collections::HashMap::<String, i64>::new();
    for r in all["body"]["records"].as_array().unwrap() {
        for c in r[0].as_array().unwrap() {
            *expected.entry(c.as_str().unwrap().to_string()).or_default() += 1;
        }
    }
    let (_, v) = get(
        &t,
        "/d/select?command_version=3&table=Pages&limit=0&drilldown=categories&drilldown_limit=-1",
    );
    let dd = &v["body"]["drilldowns"]["categories"];
    assert_eq!(dd["n_hits"].as_u64().unwrap() as usize, expected.len());
    for r in dd["records"].as_array().unwrap() {
        assert_eq!(expected[r[0].as_str().unwrap()], r[1].as_i64().unwrap());
    }
}

#[test]
fn load_inserts_updates_and_empties_the_cache() {
    let t = target(100);
    let q = "/d/select?table=Pages&match_columns=title,text&query=zzyzx&output_columns=_key,title,categories";
    let (_, v) = get(&t, q);
    assert_eq!(v[1][0][0], json!([0]));
    let (code, v) = load(
        &t,
        "table=Pages",
        r#"[{"_key":"new-1","title":"Zzyzx road","categories":["Places"]}]"#,
        true,
    );
    assert_eq!(code, 200);
    assert_eq!(v[1], json!(1));
    assert_eq!(t.documents(), 101);
    let (_, v) = get(&t, q);
    assert_eq!(
        v[1][0],
        json!([
            [1],
            [
                ["_key", "ShortText"],
                ["title", "ShortText"],
                ["categories", "Categories"]
            ],
            ["new-1", "Zzyzx road", ["Places"]]
        ])
    );
    // Update by key, array-of-arrays form; untouched columns keep their values.
    let (_, v) = load(
        &t,
        "table=Pages",
        r#"[["_key","text"],["new-1","now with zzyzx in the text"]]"#,
        true,
    );
    assert_eq!(v[1], json!(1));
    assert_eq!(t.documents(), 101);
    let (_, v) = get(
        &t,
        "/d/select?table=Pages&match_columns=text&query=zzyzx&output_columns=_key,title",
    );
    assert_eq!(v[1][0][2], json!(["new-1", "Zzyzx road"]));
    // `values` parameter.
    let (_, v) = get(
        &t,
        "/d/load?table=Pages&values=%5B%7B%22_key%22%3A%22new-2%22%2C%22title%22%3A%22qwv%22%7D%5D",
    );
    assert_eq!(v[1], json!(1));
    let (_, v) = get(
        &t,
        "/d/select?command_version=3&table=Pages&match_columns=title&query=qwv&output_columns=_key",
    );
    assert_eq!(v["body"]["records"], json!([["new-2"]]));
}

#[test]
fn load_mimics_groonga_pitfalls_and_errors() {
    let t = target(10);
    // No JSON content type: status 0, nothing loaded.
    let (code, v) = load(&t, "table=Pages", r#"[{"_key":"x"}]"#, false);
    assert_eq!(
        (code, v[0][0].clone(), v[1].clone()),
        (200, json!(0), json!(0))
    );
    // Truncated JSON: status 0, nothing loaded.
    let (_, v) = load(&t, "table=Pages", r#"[{"_key":"x","title":"tr"#, true);
    assert_eq!(v[1], json!(0));
    assert_eq!(t.documents(), 10);
    let (code, v) = load(&t, "table=Nope", r#"[{"_key":"x"}]"#, true);
    assert_eq!(code, 400);
    assert_eq!(v[0][0], json!(-22));
    assert_eq!(v[0][3], json!("nonexistent table: <Nope>"));
    assert_eq!(v[1], json!(0));
    let (_, v) = load(
        &t,
        "table=Pages&command_version=3",
        r#"[{"_key":"y"}]"#,
        true,
    );
    assert_eq!(v["body"], json!({"n_loaded_records": 1}));
}

#[test]
fn errors_look_like_groonga() {
    let t = target(10);
    let (code, v) = get(&t, "/d/select?table=Nope&query=x&match_columns=title");
    assert_eq!(code, 400);
    assert_eq!(v[0][0], json!(-22));
    assert!(v[0][3]
        .as_str()
        .unwrap()
        .starts_with("[select][table] invalid name: <Nope>"));
    assert_eq!(v.as_array().unwrap().len(), 1);
    let (_, v) = get(&t, "/d/select?command_version=3&table=Nope");
    assert_eq!(v["header"]["return_code"], json!(-22));
    assert!(v["header"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("<Nope>"));
    assert!(v.get("body").is_none());
    // The terms extractor explains such an answer.
    let e = extract_terms(&v.to_string(), "u", &TermsOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("u: Groonga returned an error (-22): [select][table] invalid name: <Nope>"),
        "{e}"
    );
    let (code, v) = get(&t, "/d/nosuch");
    assert_eq!(code, 404);
    assert!(v[0][3]
        .as_str()
        .unwrap()
        .contains("unknown command: <nosuch>"));
    let (code, _) = get(&t, "/other");
    assert_eq!(code, 404);
    let (code, _) = get(&t, "/d/select?table=Pages&command_version=4");
    assert_eq!(code, 400);
    let (code, _) = get(&t, "/d/select.xml?table=Pages");
    assert_eq!(code, 400);
    let (code, v) = get(&t, "/d/select.json?table=Pages&limit=1");
    assert_eq!((code, v[1][0][0].clone()), (200, json!([10])));
    let (code, v) = get(&t, "/d/select?table=Pages&limit=abc");
    assert_eq!((code, v[0][0].clone()), (400, json!(-22)));
    let (code, v) = get(&t, "/d/select?table=Pages&filter=true");
    assert_eq!((code, v[0][0].clone()), (400, json!(-22)));
}

#[test]
fn query_syntax_characters_never_error() {
    let t = target(100);
    for q in [
        "%22",
        "*",
        "OR",
        "-",
        "(",
        ")",
        "%22abc",
        "a%22b",
        "NEAR(ka%20ri)",
        "ka*",
        "-ka",
        "ka%20OR%20ri",
        "%5C",
        "%7Btitle%7D%3Aka",
        "ka%3Ari",
        "%E3%80%80",
    ] {
        for flags in ["", "&query_flags=NONE"] {
            let (code, v) = get(
                &t,
                &format!("/d/select?table=Pages&match_columns=title,text&query={q}{flags}"),
            );
            assert_eq!(code, 200, "{q}: {v}");
        }
    }
}

#[test]
fn query_operators_work() {
    let t = target(0);
    load(
        &t,
        "table=Pages",
        r#"[{"_key":"1","title":"apple banana","text":""},{"_key":"2","title":"apple cherry","text":""},{"_key":"3","title":"durian","text":"Apple pie"}]"#,
        true,
    );
    let keys = |q: &str, cols: &str| -> Vec<String> {
        let (_, v) = get(&t, &format!("/d/select?command_version=3&table=Pages&match_columns={cols}&output_columns=_key&query={q}"));
        v["body"]["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(keys("apple", "title"), ["1", "2"]);
    assert_eq!(keys("apple", "title,text"), ["1", "2", "3"]);
    assert_eq!(keys("apple", "text"), ["3"]);
    assert_eq!(keys("apple+banana", "title"), ["1"]);
    assert_eq!(keys("banana%20OR%20durian", "title"), ["1", "3"]);
    assert_eq!(keys("apple%20-cherry", "title"), ["1"]);
    assert_eq!(keys("%22apple%20cherry%22", "title"), ["2"]);
    assert_eq!(keys("dur*", "title"), ["3"]);
    assert_eq!(keys("APPLE", "title*10||text"), ["1", "2", "3"]);
}

#[test]
fn limit_offset_sort_and_snippets() {
    let t = target(30);
    let keys = |q: &str| -> Vec<String> {
        let (_, v) = get(
            &t,
            &format!("/d/select?command_version=3&table=Pages&output_columns=_key{q}"),
        );
        v["body"]["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(keys("&limit=2&offset=28"), ["page-000029", "page-000030"]);
    assert_eq!(keys("&limit=-1").len(), 30);
    assert_eq!(
        keys("&limit=2&sortby=-_key"),
        ["page-000030", "page-000029"]
    );
    assert_eq!(keys("&limit=2&offset=-1"), ["page-000030"]);
    assert_eq!(keys("&limit=5&offset=100").len(), 0);
    let (_, v) = get(
        &t,
        "/d/select?command_version=3&table=Pages&limit=-1&output_columns=title&sortby=title",
    );
    let titles: Vec<&str> = v["body"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap())
        .collect();
    let mut sorted = titles.clone();
    sorted.sort();
    assert_eq!(titles, sorted);
    // Scores descend with -_score.
    let (_, v) = get(&t, "/d/select?command_version=2&table=Pages&match_columns=title,text&query=ka%20OR%20ri&limit=-1&output_columns=_score&sortby=-_score");
    let scores: Vec<f64> = v[1][0].as_array().unwrap()[2..]
        .iter()
        .map(|r| r[0].as_f64().unwrap())
        .collect();
    assert!(!scores.is_empty());
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Snippets.
    assert_eq!(
        snippet_html("Say <hi> to Groonga & groonga, not groongas", &["groonga".to_string()]).unwrap(),
        "Say &lt;hi&gt; to <span class=\"keyword\">Groonga</span> &amp; <span class=\"keyword\">groonga</span>, not groongas"
    );
    assert_eq!(snippet_html("nothing here", &["x".to_string()]), None);
    let long = format!("{} needle {}", "あ".repeat(100), "い".repeat(100));
    let s = snippet_html(&long, &["needle".to_string()]).unwrap();
    assert!(
        s.contains("<span class=\"keyword\">needle</span>") && s.len() < 260,
        "{s}"
    );
    let (_, v) = get(&t, "/d/select?command_version=3&table=Pages&match_columns=text&query=ka&limit=1&output_columns=snippet_html(text),snippet_html(title)");
    assert_eq!(
        v["body"]["columns"][0],
        json!({"name": "snippet_html(text)", "type": null})
    );
    assert!(v["body"]["records"][0][0][0]
        .as_str()
        .unwrap()
        .contains("<span class=\"keyword\">"));
}

#[test]
fn parallel_selects_from_several_threads() {
    let t = Arc::new(target(200));
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let t = Arc::clone(&t);
            std::thread::spawn(move || {
                for j in 0..50 {
                    let (code, _) = get(
                        &t,
                        &format!(
                            "/d/select?table=Pages&match_columns=text&query=ka&offset={}",
                            (i * 50 + j) % 150
                        ),
                    );
                    assert_eq!(code, 200);
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    assert_eq!(t.cache_stats().n_queries, 200);
    assert_eq!(status(&t).0, 200);
}

#[test]
fn status_shape() {
    let t = target(5);
    let (_, v) = get(&t, "/d/status");
    for key in [
        "alloc_count",
        "starttime",
        "uptime",
        "version",
        "n_queries",
        "cache_hit_rate",
        "command_version",
        "default_command_version",
        "max_command_version",
    ] {
        assert!(v[1].get(key).is_some(), "{key}");
    }
    assert_eq!(v[1]["max_command_version"], json!(3));
    let (_, v) = get(&t, "/d/status?command_version=3");
    assert_eq!(v["body"]["n_queries"], json!(0));
    assert_eq!(v["body"]["command_version"], json!(3));
}

#[test]
fn the_database_file_is_removed() {
    let t = target(5);
    let path = t.database_path().to_path_buf();
    assert!(path.exists());
    drop(t);
    assert!(!path.exists());
}

#[test]
fn planned_hit_rate_is_what_status_measures() {
    // The tutorial's chain against the target: 200 unique requests planned for a
    // 50% hit rate, drawn at random; /d/status before and after says ~50%.
    let t = target(1000);
    let (_, sel) = get(
        &t,
        "/d/select?command_version=2&table=Pages&limit=300&output_columns=title",
    );
    let terms = extract_terms(
        &sel.to_string(),
        "select",
        &TermsOptions {
            unique: true,
            ..TermsOptions::default()
        },
    )
    .unwrap();
    let plan = patterngen::generate(
        &terms,
        &PatternsOptions {
            form: RequestForm::Template("/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&query_flags=NONE&query={term}".into()),
            set: RequestSet::CacheHitRate { hit_rate: 0.5, cache_size: 100 },
            ..PatternsOptions::default()
        },
    )
    .unwrap();
    assert_eq!(plan.paths.len(), 200);
    let mut rng = corpus::Rng::new(5);
    let mut draw = || {
        let path = &plan.paths[(rng.next_u64() % 200) as usize];
        assert_eq!(get(&t, path).0, 200);
    };
    for _ in 0..500 {
        draw(); // warm-up
    }
    let (q0, r0) = status(&t);
    for _ in 0..3000 {
        draw();
    }
    let (q1, r1) = status(&t);
    let hits = r1 / 100.0 * q1 as f64 - r0 / 100.0 * q0 as f64;
    let rate = hits / (q1 - q0) as f64;
    assert!((0.46..0.54).contains(&rate), "measured {rate}");
}
