//! A result keeps only the requests its slowest and fastest lists name, with the
//! patterns file's digest and count (`--request-list` keeps them all), and both forms
//! read back in `report` and `compare`.

use crate::util::{ok, read_json, run, target, TempDir};

fn sha256(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[test]
fn the_result_names_only_the_listed_requests_unless_request_list() {
    let t = target();
    let dir = TempDir::new("request-list");
    let lines: Vec<String> = (0..200).map(|i| format!("/?term=t{i}")).collect();
    let text = lines.join("\n") + "\n";
    let patterns = dir.write("p.txt", &text);
    let port = t.addr.port().to_string();
    let go = |name: &str, extra: &[&str]| {
        let csv = dir.path(&format!("{name}.csv"));
        let mut args = vec![
            "run",
            "-c",
            "2",
            "-n",
            "300",
            "--n-slow-requests",
            "3",
            "--n-fast-requests",
            "2",
            "--request-patterns-file",
            patterns.to_str().unwrap(),
            "--default-hosts",
            "127.0.0.1",
            "--default-port",
            &port,
            "-o",
            csv.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        ok(&run(&args));
        (
            csv.with_extension("json"),
            read_json(&csv.with_extension("json")),
        )
    };

    let (small_path, small) = go("small", &[]);
    assert_eq!(small["schema_version"], hakaru::result::SCHEMA_VERSION);
    assert_eq!(small["settings"]["n_patterns"], 200);
    assert_eq!(small["settings"]["request_list"], false);
    assert_eq!(
        small["settings"]["patterns_sha256"].as_str(),
        Some(sha256(text.as_bytes()).as_str())
    );
    let requests = small["requests"].as_array().unwrap();
    assert!((1..=5).contains(&requests.len()), "{requests:?}");
    let step = &small["steps"][0];
    for s in step["slowest"]
        .as_array()
        .unwrap()
        .iter()
        .chain(step["fastest"].as_array().unwrap())
    {
        let id = s["request"].as_u64().unwrap();
        let r = requests
            .iter()
            .find(|r| r["id"].as_u64() == Some(id))
            .unwrap_or_else(|| panic!("request {id} is not in {requests:?}"));
        // One host: request N is line N of the file.
        let want = format!("http://127.0.0.1:{port}{}", lines[id as usize]);
        assert_eq!(r["url"], want.as_str());
        assert_eq!(r["method"], "GET");
    }

    let (all_path, all) = go("all", &["--request-list"]);
    assert_eq!(all["settings"]["request_list"], true);
    let requests = all["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 200);
    assert!(requests[0].get("id").is_none(), "{:?}", requests[0]);
    assert!(requests[199]["url"]
        .as_str()
        .unwrap()
        .ends_with("/?term=t199"));

    for path in [&small_path, &all_path] {
        let html = dir.path("r.html");
        ok(&run(&[
            "report",
            path.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ]));
    }
    let out = ok(&run(&[
        "compare",
        small_path.to_str().unwrap(),
        all_path.to_str().unwrap(),
    ]));
    assert!(out.contains("small") && out.contains("all"), "{out}");
}
