//! Against real nginx: keep-alive, chunked responses, https with verification.

use crate::util::*;

#[test]
fn keep_alive_against_nginx() {
    if !have("nginx") {
        return;
    }
    let s = nginx(&[("index.html", b"hello from nginx\n")], false);
    let dir = TempDir::new("nginx-ka");
    let on = dir.path("on.json");
    ok(&run(&[
        "run",
        "-c",
        "5",
        "-n",
        "2000",
        &format!("http://127.0.0.1:{}/index.html", s.port),
        "-o",
        on.to_str().unwrap(),
    ]));
    let v = read_json(&on);
    assert_eq!(v["steps"][0]["statuses"]["200"], 2000);
    assert_eq!(v["steps"][0]["connections_opened"], 5);
    let off = dir.path("off.json");
    ok(&run(&[
        "run",
        "-c",
        "5",
        "-n",
        "500",
        "--no-keep-alive",
        &format!("http://127.0.0.1:{}/index.html", s.port),
        "-o",
        off.to_str().unwrap(),
    ]));
    let v = read_json(&off);
    assert_eq!(v["steps"][0]["statuses"]["200"], 500);
    assert_eq!(v["steps"][0]["connections_opened"], 500);
}

#[test]
fn chunked_and_missing_files() {
    if !have("nginx") {
        return;
    }
    let body = "chunk me ".repeat(5000);
    let s = nginx(&[("chunked", body.as_bytes())], false);
    let dir = TempDir::new("nginx-chunked");
    let json = dir.path("r.json");
    let patterns = dir.write("p.txt", "/chunked\n/missing\n");
    ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "200",
        "-H",
        "Accept-Encoding: gzip",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &s.port.to_string(),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    let st = &v["steps"][0]["statuses"];
    assert_eq!(
        st["200"].as_u64().unwrap() + st["404"].as_u64().unwrap(),
        200,
        "{st}"
    );
    assert!(
        v["steps"][0]["errors"].as_object().unwrap().is_empty(),
        "{}",
        v["steps"][0]["errors"]
    );
    // Every request stayed on its connection: chunked bodies were read to their end.
    assert_eq!(v["steps"][0]["connections_opened"], 2);
}

#[test]
fn https_verifies_certificates() {
    if !have("nginx") || !have("openssl") {
        return;
    }
    let s = nginx(&[("index.html", b"secure\n")], true);
    let url = format!("https://127.0.0.1:{}/index.html", s.port);
    let dir = TempDir::new("tls");

    // Self-signed: refused by default, counted as TLS errors.
    let strict = dir.path("strict.json");
    answered_nothing(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "3",
        &url,
        "-o",
        strict.to_str().unwrap(),
    ]));
    let v = read_json(&strict);
    assert_eq!(v["steps"][0]["errors"]["tls"], 3, "{}", v["steps"][0]);
    // The TLS library's reason is kept, so the user sees why.
    let why = v["steps"][0]["error_samples"]["tls"].as_str().unwrap();
    assert!(why.contains("certificate"), "{why}");

    // --insecure accepts it; handshake time is reported on its own.
    let insecure = dir.path("insecure.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "50",
        "--insecure",
        &url,
        "-o",
        insecure.to_str().unwrap(),
    ]));
    let v = read_json(&insecure);
    assert_eq!(v["steps"][0]["statuses"]["200"], 50);
    // One handshake per connection opened. Not always two: under load the first
    // worker can spend the whole -n 50 before the second worker's thread takes a
    // turn (a full test run once saw 1 handshake where 2 were asserted).
    let opened = v["steps"][0]["connections_opened"].as_u64().unwrap();
    assert!((1..=2).contains(&opened), "{}", v["steps"][0]);
    assert_eq!(v["steps"][0]["tls_handshake"]["count"], opened);
    assert!(out.contains("TLS"), "{out}");

    // --cacert trusts the test CA that signed the server's certificate, with verification on.
    let ca = dir.path("ca.json");
    let cert = s.dir.path("ca.pem");
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "5",
        "--cacert",
        cert.to_str().unwrap(),
        &url,
        "-o",
        ca.to_str().unwrap(),
    ]));
    assert_eq!(read_json(&ca)["steps"][0]["statuses"]["200"], 5);
}
