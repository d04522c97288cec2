//! Safe defaults: secret headers go on the wire but into no file and onto no terminal;
//! a patterns file cannot aim the load at hosts the command line did not name;
//! redirects are counted, not followed. (TLS is verified by default: see
//! `nginx::https_verifies_certificates`.)

use std::path::Path;

use crate::util::*;

/// Everything hakaru left in `dir`, as text.
fn files_text(dir: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        all.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
    }
    all
}

/// One request to `/headers` with these secrets; returns the JSON result, everything
/// written and printed, and the bytes received.
fn headers_run(
    t: &hakaru::server::listen::RunningServer,
    token: &str,
) -> (serde_json::Value, String, u64) {
    let dir = TempDir::new("secret");
    let json = dir.path("r.json");
    let out = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "1",
        "-H",
        &format!("Authorization: Bearer {token}"),
        &format!("-HCookie: sid={token}"),
        &format!("--header=X-Api-Key: {token}"),
        "--secret-header",
        "x-api-key",
        "-H",
        "X-Plain: visible",
        &format!("http://{}/headers", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]);
    let printed = ok(&out) + &stderr(&out);
    let report = run(&["report", json.to_str().unwrap()]);
    let seen = printed + &ok(&report) + &stderr(&report) + &files_text(&dir.0);
    let v = read_json(&json);
    let received = v["steps"][0]["bytes_received"].as_u64().unwrap();
    (v, seen, received)
}

#[test]
fn secret_headers_reach_the_server_but_no_file_or_terminal() {
    let t = target();
    let short = "s3cretAAAA";
    let long = format!("s3cretBBBB{}", "x".repeat(40));
    let (v, seen, short_bytes) = headers_run(&t, short);
    let (_, seen_long, long_bytes) = headers_run(&t, &long);
    for (secret, seen) in [(short, &seen), (long.as_str(), &seen_long)] {
        assert!(!seen.contains(secret), "{secret} leaked:\n{seen}");
    }
    assert_eq!(v["steps"][0]["statuses"]["200"], 1, "{}", v["steps"][0]);
    let line: Vec<&str> = v["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(line.contains(&"Authorization: <redacted>"), "{line:?}");
    assert!(line.contains(&"-HCookie: <redacted>"), "{line:?}");
    assert!(line.contains(&"--header=X-Api-Key: <redacted>"), "{line:?}");
    assert!(line.contains(&"X-Plain: visible"), "{line:?}");
    // /headers echoes what the server got: the three real values, each 40 bytes longer.
    assert_eq!(long_bytes - short_bytes, 3 * 40);
}

#[test]
fn ab_credentials_and_cookies_are_not_printed() {
    let t = target();
    let out = run(&[
        "ab",
        "-n",
        "2",
        "-A",
        "user:pAssw0rdZ",
        "-C",
        "sid=c00kieZ",
        &format!("http://{}/headers", t.addr),
    ]);
    let printed = ok(&out) + &stderr(&out);
    assert!(printed.contains("Complete requests:"), "{printed}");
    for secret in ["pAssw0rdZ", "c00kieZ", "dXNlcjpwQXNzdzByZFo"] {
        assert!(!printed.contains(secret), "{secret} leaked:\n{printed}");
    }
}

#[test]
fn a_patterns_file_cannot_name_hosts_of_its_own() {
    let named = target();
    let other = target_at("127.0.0.2:0".parse().unwrap(), true);
    let dir = TempDir::new("hosts");
    let own_url = dir.write(
        "url.txt",
        &format!("/\nhttp://127.0.0.2:{}/\n", other.addr.port()),
    );
    let own_host = dir.write(
        "host.json",
        &format!(
            r#"{{"patterns": ["/", {{"path": "/", "host": "127.0.0.2", "port": {}}}]}}"#,
            other.addr.port()
        ),
    );
    let port = named.addr.port().to_string();
    let args = |file: &Path, allow: bool| {
        let mut a = vec![
            "run".to_string(),
            "-c".into(),
            "1".into(),
            "-n".into(),
            "4".into(),
            // Every pattern in turn: the file's own host surely gets its share.
            "--order".into(),
            "sequential".into(),
            "--request-patterns-file".into(),
            file.to_str().unwrap().into(),
            "--default-hosts".into(),
            "127.0.0.1".into(),
            "--default-port".into(),
            port.clone(),
        ];
        if allow {
            a.push("--allow-pattern-hosts".into());
        }
        a
    };
    for file in [&own_url, &own_host] {
        let a = args(file, false);
        let out = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let why = stderr(&out);
        for part in [
            file.to_str().unwrap(),
            "pattern #2",
            "\"127.0.0.2\"",
            "--allow-pattern-hosts",
        ] {
            assert!(why.contains(part), "missing {part:?} in: {why}");
        }
    }
    // Refused before any load: neither server saw a request.
    assert_eq!(named.stats.requests() + other.stats.requests(), 0);

    // With leave, the file's host gets its share.
    let a = args(&own_url, true);
    ok(&run(&a.iter().map(String::as_str).collect::<Vec<_>>()));
    assert!(other.stats.requests() > 0);
    // Hosts the command line names need no leave.
    let same = dir.write(
        "same.txt",
        &format!("http://127.0.0.1:{}/\n", named.addr.port()),
    );
    ok(&run(&args(&same, false)
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()));
    let group = dir.write(
        "group.json",
        &format!(
            r#"{{"g": {{"host": "127.0.0.2", "port": {}, "patterns": ["/"]}}}}"#,
            other.addr.port()
        ),
    );
    // A group's own "host" is the file's too: refused without leave, load only with it.
    let before = other.stats.requests();
    let out = run(&args(&group, false)
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("\"127.0.0.2\""), "{}", stderr(&out));
    assert_eq!(other.stats.requests(), before);
    ok(&run(&args(&group, true)
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()));
}

#[test]
fn redirects_are_counted_not_followed() {
    let t = target();
    let dir = TempDir::new("redirect");
    let json = dir.path("r.json");
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "5",
        &format!("http://{}/status/302", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    assert_eq!(v["steps"][0]["statuses"]["302"], 5, "{}", v["steps"][0]);
    // Five requests reached the server: none was a followed Location.
    assert_eq!(t.stats.requests(), 5);
}

/// A `hakaru run` of 30 s, started and answering; its result files' stem.
fn long_run(
    t: &hakaru::server::listen::RunningServer,
    dir: &TempDir,
) -> (std::process::Child, std::path::PathBuf) {
    let csv = dir.path("r.csv");
    let child = hakaru()
        .args(["run", "-c", "2", "-d", "30", "-o"])
        .arg(&csv)
        .arg(format!("http://{}/", t.addr))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while t.stats.requests() < 10 && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (child, dir.path("r.json"))
}

fn signal(pid: u32, sig: &str) {
    let st = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

/// Issue 20: SIGHUP (an SSH session dropping) killed `run` without writing its step.
#[test]
fn sighup_writes_the_current_step_like_sigterm() {
    let t = target();
    let dir = TempDir::new("sighup");
    let (child, json) = long_run(&t, &dir);
    signal(child.id(), "-HUP");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let v = read_json(&json);
    assert_eq!(v["state"], "interrupted", "{v}");
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    assert!(v["steps"][0]["total_requests"].as_u64().unwrap() > 0);
}

/// Issue 20: two SIGINTs a moment apart (`timeout -s INT` signals the process and its
/// group) exited at once with no result.
#[test]
fn two_sigints_at_once_are_one_stop() {
    let t = target();
    let dir = TempDir::new("sigint2");
    let (child, json) = long_run(&t, &dir);
    let pid = child.id().to_string();
    let st = std::process::Command::new("sh")
        .args(["-c", "kill -INT $0; kill -INT $0", &pid])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Stopped again"), "{}", stderr(&out));
    let v = read_json(&json);
    assert_eq!(v["state"], "interrupted", "{v}");
    let stray = std::fs::read_dir(dir.path("."))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().contains(".tmp-")
        })
        .count();
    assert_eq!(stray, 0);
}

/// Issue 20: tokens in query strings (`?token=`, `?api_key=`) were kept in results.
#[test]
fn secret_query_params_are_redacted_in_results() {
    let t = target();
    let dir = TempDir::new("secret-param");
    let json = dir.path("r.json");
    let url = format!("http://{}/?token=s3cret&q=kept&sid=s3cret2", t.addr);
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "3",
        "--secret-param",
        "sid",
        "-o",
        json.to_str().unwrap(),
        &url,
    ]));
    assert_eq!(t.stats.requests(), 3);
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(!text.contains("s3cret"), "{text}");
    assert!(
        text.contains("token=<redacted>&q=kept&sid=<redacted>"),
        "{text}"
    );
    let csv = std::fs::read_to_string(dir.path("r.csv")).unwrap();
    assert!(!csv.contains("s3cret"), "{csv}");
}

/// Issue 36 item 12: a before-command that echoes a secret hakaru was given (here a
/// secret header's value; a URL's password likewise, `redact`'s unit tests) has it
/// hidden in the recorded stderr and in what is printed.
#[test]
fn a_before_command_echoing_a_secret_is_recorded_without_it() {
    let t = target();
    let dir = TempDir::new("secret-before");
    let json = dir.path("r.json");
    let out = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "2",
        "-H",
        "Authorization: Bearer tok-9f8e7d6c",
        "--before-step",
        "echo 'sent Bearer tok-9f8e7d6c, then PGPASSWORD' >&2; exit 3",
        &format!("http://{}/", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]);
    let seen = stdout(&out) + &stderr(&out) + &files_text(&dir.0);
    assert!(!seen.contains("tok-9f8e7d6c"), "leaked:\n{seen}");
    assert!(seen.contains("sent <redacted>, then PGPASSWORD"), "{seen}");
}
