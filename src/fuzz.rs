//! Fuzz entry points: every parser that reads bytes someone else wrote, each as a
//! libFuzzer-style `fn(&[u8])` that must never panic, hang or grow without bound.
//!
//! The cargo-fuzz targets under `fuzz/fuzz_targets/` call these; so does the
//! stdlib-only harness ([`run`], `fuzz/harness.rs`) that feeds random and mutated
//! inputs where cargo-fuzz or a nightly toolchain is missing, and in CI's smoke runs.
//! Crashes found become regression tests in `fuzz/regressions/`, named after the input.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use crate::http::{Conn, Meter};
use crate::rng::SplitMix64;

/// A fuzz target: takes any bytes, must never panic.
pub type Target = fn(&[u8]);

/// The targets by name, for the harness and `bench/fuzz.sh`.
pub const TARGETS: [(&str, Target); 10] = [
    ("http_response", http_response),
    ("patterns", patterns),
    ("terms", terms),
    ("results", results),
    ("scenario", scenario),
    ("bulk_response", bulk_response),
    ("stream_records", stream_records),
    ("expressions", expressions),
    ("kv", kv),
    ("h2_frames", h2_frames),
];

/// The share of a run's executions a target gets: the slow ones (a histogram and a
/// bitmap per input; a TOML document and its checks; the result readers) fewer, so that the CI smoke run
/// (`all 50000`) stays within seconds. `bench/fuzz.sh` asks for its counts outright.
pub fn runs_for(name: &str, runs: u64) -> u64 {
    match name {
        "stream_records" => (runs / 100).max(1),
        "scenario" | "results" => (runs / 5).max(1),
        _ => runs,
    }
}

/// The wire: response heads (1xx, close, Content-Length, chunked) and bodies, up to
/// four responses on one keep-alive connection. The first byte picks how many bytes
/// each read returns, so heads and chunk lines split at every place.
pub fn http_response(data: &[u8]) {
    thread_local! {
        static RT: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
    }
    let Some((&step, rest)) = data.split_first() else {
        return;
    };
    let step = if step == 0 {
        usize::MAX
    } else {
        usize::from(step)
    };
    let mut conn = Conn::from_bytes(rest.to_vec(), step);
    let meter = Meter::default();
    RT.with(|rt| {
        rt.block_on(async {
            for i in 0..4 {
                // A HEAD now and then: no body whatever the head says.
                let head = i == 3;
                match conn
                    .exchange(b"GET / HTTP/1.1\r\n\r\n", head, &meter, None)
                    .await
                {
                    Ok(r) if !r.close => {}
                    _ => break,
                }
            }
        })
    });
}

/// Key-value stores: up to four replies framed by RESP (an even first byte) or
/// memcached's text protocol (odd) on one connection, the first byte also picking how
/// many bytes each read returns; and the bytes as a commands file in both languages.
pub fn kv(data: &[u8]) {
    use crate::kv::commands::{parse, Protocol};
    thread_local! {
        static RT: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
    }
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    for proto in [Protocol::Redis, Protocol::Memcached] {
        let _ = parse(&text, "fuzz", proto);
    }
    let proto = if first % 2 == 0 {
        crate::http::Proto::Redis(None)
    } else {
        crate::http::Proto::Memcached
    };
    let mut conn = Conn::from_bytes(rest.to_vec(), usize::from(first / 2).max(1));
    let meter = Meter::default();
    RT.with(|rt| {
        rt.block_on(async {
            for _ in 0..4 {
                if conn.exchange_framed(b"", &proto, &meter).await.is_err() {
                    break;
                }
            }
        })
    });
}

/// HTTP/2: a server's frames (SETTINGS, HEADERS and CONTINUATION through HPACK and
/// Huffman, DATA, RST_STREAM, PING, WINDOW_UPDATE, GOAWAY) read onto a connection
/// with streams open, the first byte picking how many bytes each read returns.
pub fn h2_frames(data: &[u8]) {
    crate::http::h2::fuzz_frames(data);
}

/// Patterns files: plain lists and drnbench's JSON groups, then the plan they resolve
/// into (hosts are not resolved: every pattern must fail or name loopback).
pub fn patterns(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(set) = crate::pattern::parse(&text, "fuzz") {
        let _ = set.n_patterns();
        let _ = set.normalized_frequencies();
    }
}

/// Groonga select results, every command_version's shape, as `hakaru terms` reads them.
pub fn terms(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let opts = crate::pattern::terms::TermsOptions {
        unique: data.len().is_multiple_of(2),
        escape: data.len().is_multiple_of(3),
        ..Default::default()
    };
    let _ = crate::pattern::terms::extract_terms(&text, "fuzz", &opts);
}

/// Result files: hakaru's JSON and CSV, drnbench's CSV, as `report` reads them.
pub fn results(data: &[u8]) {
    let _ = crate::result::read::read_result_bytes(Path::new("fuzz.json"), data);
}

/// `suite` scenario files: TOML, then every check. An error names a line, except the
/// few about the whole file (no phase, too many phases or events).
pub fn scenario(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = crate::suite::scenario::Scenario::parse(&text, Path::new("fuzz.toml")) {
        if let crate::suite::scenario::ScenarioError::Whole { why, .. } = &e {
            assert!(
                why.starts_with("no [[phase]]") || why.starts_with("more than"),
                "an error without a line: {e}"
            );
        }
    }
}

/// What bulk writes read back: Groonga's `load` count, CouchDB's per-document results
/// and single-document answers, Elasticsearch's `items` with `*` pointers, the count
/// answers `--verify` reads, and the body and document templates. The first byte picks
/// the reader, the second the items the request carried. Every item is counted once:
/// accepted or failed.
pub fn bulk_response(data: &[u8]) {
    use crate::engine::{Answer, ResponseCheck};
    use crate::workload::bulk::{verify::read_count, BulkCheck, TargetKind};
    use crate::workload::check::{CountAtPointer, ItemErrors, PerItemResults, StarPointer};

    let [pick, items, rest @ ..] = data else {
        return;
    };
    let items = u64::from(*items);
    // A first line, for readers that take a pointer.
    let (first, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&rest[..i]), &rest[i + 1..]),
        None => (String::from_utf8_lossy(b""), rest),
    };
    let check = |c: &mut dyn ResponseCheck, status: u16, body: &[u8]| {
        let answer = Answer {
            status,
            body,
            truncated: false,
            items,
        };
        let mut counts = crate::stats::ItemCounts::default();
        c.check(&answer, &mut counts);
        let failed: u64 = counts.failed.iter().map(|(_, n)| n).sum();
        assert_eq!(counts.ok + failed, items, "items counted once: {counts:?}");
    };
    let status = if pick & 0x80 == 0 {
        200
    } else {
        201 + u16::from(pick & 3)
    };
    match pick % 8 {
        0 => check(
            &mut CountAtPointer {
                pointer: "/1".into(),
                body_limit: 1 << 20,
            },
            status,
            rest,
        ),
        1 => check(
            &mut PerItemResults {
                body_limit: 1 << 20,
            },
            status,
            rest,
        ),
        2 => {
            let pointer = StarPointer::parse(&first)
                .or_else(|_| StarPointer::parse("/items/*/*/error"))
                .expect("the default pointer parses");
            check(
                &mut ItemErrors {
                    pointer,
                    body_limit: 1 << 20,
                },
                status,
                body,
            );
        }
        3 => check(&mut BulkCheck::Single, status, rest),
        4 => {
            for kind in [
                TargetKind::Groonga,
                TargetKind::CouchDb,
                TargetKind::Elasticsearch,
                TargetKind::Template,
            ] {
                let _ = read_count(kind, Some(&first), body);
            }
        }
        5 | 6 => {
            let text = String::from_utf8_lossy(rest);
            let mut rng = SplitMix64::new(1);
            let mut f = crate::workload::bulk::template::Fill {
                seq: 7,
                writer: 1,
                now_ms: 1,
                rng: &mut rng,
            };
            let mut out = Vec::new();
            if pick % 8 == 5 {
                if let Ok(t) = crate::workload::bulk::body::BodyTemplate::parse(&text) {
                    let _ = t.check_json(pick & 0x10 != 0);
                    t.head(&mut out, &mut f, 2);
                    t.doc(&mut out, &mut f, b"id-1", true);
                    t.doc(&mut out, &mut f, b"id-2", false);
                    t.tail(&mut out, &mut f, 2);
                }
            } else if let Ok(t) = crate::workload::bulk::template::DocTemplate::parse(&text) {
                t.fill(&mut out, &mut f, Some(("_id", b"id-1")));
                t.fill(&mut out, &mut f, None);
            }
        }
        _ => {
            let _ = StarPointer::parse(&String::from_utf8_lossy(rest));
        }
    }
}

/// Stream records as a pipeline hands them back: the record decoder line by line, then
/// `watch --verify`'s line splitter and verifier over reads the first byte sizes.
/// Sequence numbers are kept below 2^20 for the verifier: its bitmap is sized by the
/// highest one seen (up to [`crate::stream::verify::MAX_SEQ`], 1 GiB), by design.
pub fn stream_records(data: &[u8]) {
    use crate::stream::record::decode;
    use crate::stream::verify::{Lines, Verifier};

    let Some((&step, rest)) = data.split_first() else {
        return;
    };
    let mut small = true;
    for line in rest.split_inclusive(|&b| b == b'\n') {
        if let Some(r) = decode(line) {
            small &= r.seq < 1 << 20;
        }
    }
    if !small {
        return;
    }
    let mut v = Verifier::default();
    let mut lines = Lines::default();
    for chunk in rest.chunks(usize::from(step).max(1)) {
        lines.feed(chunk, &mut v, 1_000_000);
    }
    lines.finish(&mut v, 1_000_000);
    let mut both = v.clone();
    both.merge(&v);
    let one = v.report(Some(u64::from(step)), Some(2));
    let two = both.report(None, None);
    assert_eq!(
        two.received,
        2 * one.received,
        "a merge counts both readers"
    );
}

/// Flag expressions read from scripts and CI files: `--threshold`/`--slo` and
/// `--start-at` (resolved, as the run does).
pub fn expressions(data: &[u8]) {
    use crate::spec::threshold::{parse_list, Threshold};
    let text = String::from_utf8_lossy(data);
    for e in [Threshold::parse(&text).err(), parse_list(&text).err()]
        .into_iter()
        .flatten()
    {
        assert!(
            e.column >= 1 && e.column <= text.len() + 1,
            "column {} of {} bytes",
            e.column,
            text.len()
        );
    }
    if let Ok(at) = crate::spec::parse_start_at(&text) {
        let _ = at.resolve(std::time::SystemTime::now());
    }
}

/// Inputs the harness starts from and mutates: one valid example or more per target.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let s: &[&str] = match target {
        "http_response" => &[
            "\u{8}HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            "\u{3}HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nT: 1\r\n\r\n",
            "\u{0}HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
            "\u{1}HTTP/1.1 302 Found\r\nLocation: /\r\nConnection: close\r\n\r\nbody until close",
        ],
        "patterns" => &[
            "/a\n/b?q=1\nhttp://127.0.0.1:1/c\n",
            r#"{"g": {"frequency": 0.5, "method": "POST", "host": "127.0.0.1", "port": 80,
                "headers": {"Accept": "a"}, "patterns": ["/x", {"path": "/y", "body": "b", "timeout": 1}]},
                "h": {"patterns": [{"path": "/z", "method": "GET"}]}}"#,
            r#"{"patterns": ["/a", {"path": "/b", "host": "[::1]", "port": "8080"}]}"#,
        ],
        "terms" => &[
            r#"[[0,1.0,0.1],[[[2],[["_key","ShortText"],["title","Text"]],["a","b c"],["d",["e","f"]]]]]"#,
            r#"{"header":{"return_code":0},"body":{"n_hits":1,"columns":[{"name":"_key","type":"ShortText"}],"records":[["k"]]}}"#,
        ],
        "results" => &[
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,200\n1,10,5.0,0.001,0.01,0.005,1.0\n",
            r#"{"schema_version": 2, "tool": "hakaru", "command_line": [], "mode": "run", "started_at": "x", "partial": false, "steps": []}"#,
        ],
        "scenario" => &[
            "hosts = [\"127.0.0.1:10041\"]\n[targets.t]\npid = 1\n[recovery]\n\n[[phase]]\nname = \"steady\"\nduration = \"20s\"\nrate = 500\n[[phase.workload]]\npatterns = \"reads.txt\"\nweight = 95\n[[phase.workload]]\nbulk = { target = \"couchdb\", url = \"http://127.0.0.1:5984/db\", batch = 100 }\nweight = 5\n\n[[event]]\nat = \"8s\"\nrun = \"kill -STOP {pid:t}\"\n[[event]]\nat = \"9s\"\nfor = \"2s\"\ntoxic = { proxy = \"web\", type = \"latency\", attributes = { latency = 200 } }\n",
            "[[phase]]\nduration = 3\nclients = 2\n[[phase.workload]]\nurl = \"http://127.0.0.1:1/\"\n",
        ],
        "bulk_response" => &[
            "\u{0}\u{3}[[0,1.0,0.1],3]",
            "\u{1}\u{2}[{\"ok\":true,\"id\":\"a\"},{\"id\":\"b\",\"error\":\"conflict\",\"reason\":\"x\"}]",
            "\u{2}\u{2}/items/*/*/error\n{\"errors\":true,\"items\":[{\"index\":{\"status\":201}},{\"index\":{\"error\":{\"type\":\"version_conflict_engine_exception\"}}}]}",
            "\u{83}\u{1}{\"error\":\"conflict\",\"reason\":\"Document update conflict.\"}",
            "\u{4}\u{0}/hits/total\n[[0,1.0,0.1],[[[42],[[\"_id\",\"UInt32\"]]]]]",
            "\u{5}\u{0}{\"table\":\"Docs\",\"n\":{{batch}},\"values\":[{{#docs \",\"}}{\"_key\":\"{{id}}\",\"n\":{{seq}},\"r\":{{rand}},\"u\":\"{{uuid}}\",\"b\":\"{{bytes:8}}\"}{{/docs}}]}",
            "\u{6}\u{0}{\"title\":\"doc {{seq}}\",\"w\":{{writer}},\"t\":{{now}},\"pad\":\"{{bytes:16}}\"}",
        ],
        "stream_records" => &[
            "\u{7}t0-1-5af3107a4000 xxxx\ns1-2\nq3\n{\"s\":0,\"q\":4,\"t\":1000}\n{\"q\":5}\n{\"t\":1,\"q\":6,\"s\":2}\nnot a record\n\n",
            "\u{1}{\"s\":1,\"q\":1,\"p\":\"xxxx\"}\r\n{\"s\":1,\"q\":1   }\n",
        ],
        "expressions" => &[
            "p99<50ms,errors<0.1%",
            "p50 <= 10ms, rps>=1000, mean<2s",
            "+30s",
            "2026-11-23T10:00:00.5+09:00",
        ],
        "kv" => &[
            "\u{4}+OK\r\n$5\r\nhello\r\n*2\r\n$-1\r\n:1\r\n-WRONGTYPE x\r\n",
            "\u{8}*2\r\n*1\r\n$1\r\na\r\n$-1\r\n*0\r\n",
            "\u{3}VALUE k 0 5\r\nhello\r\nEND\r\nSTORED\r\nSERVER_ERROR out of memory\r\n12\r\n",
            "\u{1}STAT pid 1\r\nEND\r\nNOT_FOUND\r\nCLIENT_ERROR bad\r\n",
            "\u{0}weight=2 name=g GET key:{key}\nset k:{key} {value} 0 60\n# c\n",
        ],
        _ => &[],
    };
    if target == "h2_frames" {
        return h2_seeds();
    }
    s.iter().map(|t| t.as_bytes().to_vec()).collect()
}

/// Frames as nginx sends them, and the rarer ones: binary, so not among the text seeds.
fn h2_seeds() -> Vec<Vec<u8>> {
    // A frame: length (24 bits), type, flags, stream id, payload.
    fn f(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = (payload.len() as u32).to_be_bytes();
        let mut v = vec![len[1], len[2], len[3], kind, flags];
        v.extend_from_slice(&stream.to_be_bytes());
        v.extend_from_slice(payload);
        v
    }
    let settings = f(4, 0, 0, &[0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0]);
    let ack = f(4, 1, 0, &[]);
    // A size update to 0, then `:status 200` indexed; then a literal `:status 302`
    // Huffman-coded into the table (RFC 7541 C.6.1), and `:status 404` indexed in a
    // CONTINUATION.
    let ok = f(1, 4, 1, &[0x20, 0x88]);
    let data = f(0, 1, 1, b"hello");
    let literal = f(1, 5, 3, &[0x48, 0x82, 0x64, 0x02]);
    let split = [f(1, 0, 5, &[0x20]), f(9, 4, 5, &[0x8d])].concat();
    let padded = f(0, 0x9, 5, &[2, b'x', 0, 0]);
    let control = [
        f(3, 0, 7, &[0, 0, 0, 8]),
        f(6, 0, 0, &[1, 2, 3, 4, 5, 6, 7, 8]),
        f(8, 0, 0, &[0, 0, 0x10, 0]),
        f(7, 0, 0, &[0, 0, 0, 3, 0, 0, 0, 0]),
    ]
    .concat();
    let mut seeds = vec![[&[7][..], &settings, &ack, &ok, &data].concat()];
    seeds.push([&[1][..], &settings, &literal, &split, &padded].concat());
    seeds.push([&[0][..], &ok, &control].concat());
    seeds
}

/// What a harness run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub executions: u64,
    /// Inputs that panicked, in the order found.
    pub crashes: Vec<Vec<u8>>,
}

/// Feed `target` `executions` inputs: its seeds, then random bytes and mutations of
/// the seeds and of earlier inputs (bit flips, byte inserts and deletions, splices,
/// interesting numbers), drawn from `seed`. Panics are caught and kept as crashes.
pub fn run(target: Target, seeds: &[Vec<u8>], executions: u64, seed: u64) -> Outcome {
    let mut rng = SplitMix64::new(seed);
    let mut pool: Vec<Vec<u8>> = seeds.to_vec();
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let mut out = Outcome::default();
    let mut input = Vec::new();
    while out.executions < executions {
        let i = out.executions as usize;
        if i < seeds.len() {
            input.clone_from(&seeds[i]);
        } else {
            let base = &pool[rng.next_u64() as usize % pool.len()];
            input.clone_from(base);
            mutate(&mut input, &pool, &mut rng);
        }
        out.executions += 1;
        if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
            out.crashes.push(input.clone());
        } else if pool.len() < 256 && rng.next_u64().is_multiple_of(64) {
            // Keep some mutants, so that mutations stack up.
            pool.push(input.clone());
        }
    }
    out
}

fn mutate(input: &mut Vec<u8>, pool: &[Vec<u8>], rng: &mut SplitMix64) {
    const INTERESTING: [&[u8]; 12] = [
        b"\r\n",
        b"\r\n\r\n",
        b"0",
        b"-1",
        b"18446744073709551615",
        b"ffffffffffffffff",
        b"chunked",
        b"Content-Length: ",
        b"Transfer-Encoding: chunked\r\n",
        b"{",
        b"\"",
        b"\xff\xfe",
    ];
    let rounds = 1 + rng.next_u64() % 4;
    for _ in 0..rounds {
        let r = rng.next_u64();
        let at = |len: usize| {
            if len == 0 {
                0
            } else {
                (r >> 8) as usize % (len + 1)
            }
        };
        match r % 7 {
            0 if !input.is_empty() => {
                let i = at(input.len() - 1);
                input[i] ^= 1 << ((r >> 40) % 8);
            }
            1 => {
                let i = at(input.len());
                input.insert(i, (r >> 40) as u8);
            }
            2 if !input.is_empty() => {
                let i = at(input.len() - 1);
                let n = ((r >> 40) as usize % 16).min(input.len() - i);
                input.drain(i..i + n);
            }
            3 => {
                let i = at(input.len());
                let word = INTERESTING[(r >> 40) as usize % INTERESTING.len()];
                input.splice(i..i, word.iter().copied());
            }
            4 => {
                // Splice: our head, another input's tail.
                let other = &pool[(r >> 40) as usize % pool.len()];
                let i = at(input.len());
                let j = if other.is_empty() {
                    0
                } else {
                    (r >> 20) as usize % other.len()
                };
                input.truncate(i);
                input.extend_from_slice(&other[j..]);
            }
            5 if !input.is_empty() => {
                // Duplicate a slice: long lines, repeated chunks.
                let i = at(input.len() - 1);
                let n = ((r >> 40) as usize % 64).min(input.len() - i);
                let piece = input[i..i + n].to_vec();
                input.splice(i..i, piece);
            }
            _ => {
                // Random bytes.
                let n = (r >> 40) as usize % 32;
                for k in 0..n {
                    input.push((r.rotate_left(k as u32 * 7)) as u8);
                }
            }
        }
        if input.len() > 64 * 1024 {
            input.truncate(64 * 1024);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_takes_its_seeds_and_a_few_hundred_mutants() {
        for (name, target) in TARGETS {
            let out = run(target, &seeds(name), 300, 1);
            assert_eq!(out.executions, 300);
            assert!(out.crashes.is_empty(), "{name}: {:?}", out.crashes);
        }
    }

    /// Every input under `fuzz/regressions/TARGET/` (crashes once found, and hostile
    /// inputs worth keeping), each named after what it is, still runs clean.
    #[test]
    fn regressions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
        let mut n = 0;
        for (name, target) in TARGETS {
            let Ok(dir) = std::fs::read_dir(root.join(name)) else {
                continue;
            };
            for entry in dir {
                let path = entry.unwrap().path();
                let input = std::fs::read(&path).unwrap();
                let ok = catch_unwind(AssertUnwindSafe(|| target(&input))).is_ok();
                assert!(ok, "{name}: {} panics", path.display());
                n += 1;
            }
        }
        assert!(n > 0, "no regression inputs under {}", root.display());
    }

    /// The wire target reaches the real reader: its seeds parse to whole responses.
    #[test]
    fn the_memory_connection_reads_responses() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let seed = &seeds("http_response")[1];
        let mut conn = Conn::from_bytes(seed[1..].to_vec(), 3);
        let meter = Meter::default();
        let r = rt
            .block_on(conn.exchange(b"GET / HTTP/1.1\r\n\r\n", false, &meter, None))
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.bytes as usize, seed.len() - 1);
    }

    #[test]
    fn a_panicking_target_is_counted_not_fatal() {
        fn boom(d: &[u8]) {
            assert!(!d.starts_with(b"x"), "boom");
        }
        let out = run(boom, &[b"x".to_vec(), b"y".to_vec()], 2, 1);
        assert_eq!(out.crashes, vec![b"x".to_vec()]);
    }
}
