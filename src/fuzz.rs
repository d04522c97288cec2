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
pub const TARGETS: [(&str, Target); 4] = [
    ("http_response", http_response),
    ("patterns", patterns),
    ("terms", terms),
    ("results", results),
];

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
    let _ = crate::report::read::read_result_bytes(Path::new("fuzz.json"), data);
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
        _ => &[],
    };
    s.iter().map(|t| t.as_bytes().to_vec()).collect()
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
