//! `--verify`: the server's own count of documents, read before the first step and
//! after the last (never during load), so acknowledged writes can be compared with
//! what is really there: CouchDB `GET /db` → `doc_count`, Groonga
//! `/d/select?table=T&limit=0` → the number of hits, Elasticsearch `POST
//! /index/_refresh` (documents are searchable only after a refresh) then `GET
//! /index/_count` → `count`.

use std::time::Duration;

use super::{BulkSettings, TargetKind};
use crate::http::Fetched;
use crate::result::{RunResult, VerifyResult};

/// The URL the count is read from.
pub fn count_url(s: &BulkSettings) -> String {
    match s.kind {
        TargetKind::CouchDb => format!("{}{}", s.target.label(), s.base_path),
        TargetKind::Groonga => format!(
            "{}{}/d/select?table={}&limit=0&output_columns=_id",
            s.target.label(),
            s.base_path,
            crate::http::url::encode_component(&s.table)
        ),
        TargetKind::Elasticsearch => format!("{}{}/_count", s.target.label(), s.base_path),
        TargetKind::Template => s
            .templated
            .as_ref()
            .and_then(|t| t.count.as_ref())
            .map_or_else(String::new, |(url, _)| url.clone()),
    }
}

/// One request of the count's, over the load's protocol: HTTP/2 when the load went
/// over it (`--http2`), else [`crate::http::Fetched::request`]'s HTTP/1.1.
fn ask(s: &BulkSettings, url: &str, method: &str, timeout: Duration) -> Result<Fetched, String> {
    if !s.http2 {
        return Fetched::request(url, method, &[], timeout);
    }
    match h2_request(s, url, method, timeout)? {
        Some(got) => Ok(got),
        // TLS whose ALPN picked HTTP/1.1: the server speaks that.
        None => Fetched::request(url, method, &[], timeout),
    }
}

/// One request on an HTTP/2 connection of its own (h2c with prior knowledge, or TLS
/// offering `h2`), through `http::h2` as the load's requests go, on a small runtime
/// between steps; `None` when TLS negotiated HTTP/1.1.
fn h2_request(
    s: &BulkSettings,
    url: &str,
    method: &str,
    timeout: Duration,
) -> Result<Option<Fetched>, String> {
    use crate::http::encode::{encode_request, host_header, Persistence};
    use crate::http::h2::{connect, Negotiated};
    let parts = crate::http::url::split_url(url).ok_or_else(|| format!("{url}: not a URL"))?;
    let host = host_header(&parts.host, s.target.port, s.target.https);
    let request = encode_request(
        method,
        &parts.path,
        &host,
        &[],
        None,
        None,
        Persistence::http11(true),
    );
    let tls = match s.target.https {
        true => Some(crate::http::offer_h2(&crate::http::tls_connector(
            false, None,
        )?)),
        false => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("{url}: cannot start a runtime: {e}"))?;
    let local = tokio::task::LocalSet::new();
    let late = format!(
        "{url}: no complete answer over HTTP/2 within {:.1} s",
        timeout.as_secs_f64()
    );
    local.block_on(&rt, async {
        let asked = async {
            let meter = std::rc::Rc::new(crate::http::Meter::default());
            let (conn, _) = connect(&s.target, tls.as_ref(), meter)
                .await
                .map_err(|e| format!("{url}: cannot connect over HTTP/2: {}", e.cause))?;
            let Negotiated::H2(mut conn) = conn else {
                return Ok(None);
            };
            let mut body = Vec::new();
            let mut sink = crate::http::BodySink {
                buf: &mut body,
                limit: MAX_COUNT_BODY,
                truncated: false,
                head: None,
            };
            let got = conn
                .exchange(&request, Some(&mut sink))
                .await
                .map_err(|e| format!("{url} over HTTP/2: {e}"))?;
            Ok(Some(Fetched {
                status: got.status,
                body,
                server: None,
            }))
        };
        tokio::time::timeout(timeout, asked)
            .await
            .unwrap_or(Err(late))
    })
}

/// The most of a count's answer kept: a count is a few bytes of JSON.
const MAX_COUNT_BODY: usize = 1 << 20;

/// Read the server's count of documents.
pub fn present(s: &BulkSettings, timeout: Duration) -> Result<u64, String> {
    let url = count_url(s);
    if s.kind == TargetKind::Elasticsearch {
        let refresh = format!("{}{}/_refresh", s.target.label(), s.base_path);
        let got = ask(s, &refresh, "POST", timeout)?;
        // A missing index has nothing to refresh; its count says so below.
        if got.status != 200 && got.status != 404 {
            return Err(format!("{refresh} answered {}", got.status));
        }
    }
    let got = ask(s, &url, "GET", timeout)?;
    if got.status == 404 && s.kind == TargetKind::Elasticsearch {
        // The index is made by the first `_bulk`: none yet is zero documents.
        return Ok(0);
    }
    if got.status != 200 {
        return Err(format!(
            "{url} answered {}: {}",
            got.status,
            String::from_utf8_lossy(&got.body[..got.body.len().min(200)])
        ));
    }
    let pointer = s
        .templated
        .as_ref()
        .and_then(|t| t.count.as_ref())
        .map(|(_, p)| p.as_str());
    read_count(s.kind, pointer, &got.body).map_err(|why| format!("{url}: {why}"))
}

/// The comparison: documents that appeared (after − before) against those acknowledged.
pub fn compare(
    url: String,
    acknowledged: u64,
    in_flight: u64,
    before: u64,
    after: u64,
) -> VerifyResult {
    VerifyResult::compare(url, acknowledged, in_flight, before, after)
}

/// Documents the server acknowledged over a run's steps.
pub fn acknowledged(run: &RunResult) -> u64 {
    run.steps
        .iter()
        .filter_map(|s| s.items.as_ref())
        .map(|i| i.ok)
        .sum()
}

/// After the last step: read the count again and compare it with what `run` acknowledged.
pub fn after_run(
    s: &BulkSettings,
    run: &RunResult,
    before: u64,
    timeout: Duration,
) -> Result<VerifyResult, String> {
    let after = present(s, timeout)?;
    let in_flight = run
        .steps
        .iter()
        .map(|st| st.unfinished * st.bulk.as_ref().map_or(1, |b| b.batch_size))
        .sum();
    Ok(compare(
        count_url(s),
        acknowledged(run),
        in_flight,
        before,
        after,
    ))
}

/// The count in an answer of [`count_url`].
/// `pointer`: where a templated target's count is (`--count-pointer`).
pub fn read_count(kind: TargetKind, pointer: Option<&str>, body: &[u8]) -> Result<u64, String> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON ({e})"))?;
    let n = match kind {
        TargetKind::CouchDb => v.get("doc_count"),
        TargetKind::Elasticsearch => v.get("count"),
        TargetKind::Template => v.pointer(pointer.unwrap_or("")),
        // [[status,…],[[[N_hits],[columns…],…]]]
        TargetKind::Groonga => {
            if v.pointer("/0/0").and_then(|c| c.as_i64()) != Some(0) {
                return Err(format!(
                    "Groonga answered an error: {}",
                    v.pointer("/0").map(|h| h.to_string()).unwrap_or_default()
                ));
            }
            v.pointer("/1/0/0/0")
        }
    };
    n.and_then(|n| n.as_u64())
        .ok_or_else(|| "no document count in the answer".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_each_server() {
        assert_eq!(
            read_count(
                TargetKind::CouchDb,
                None,
                br#"{"doc_count":3,"update_seq":3}"#
            ),
            Ok(3)
        );
        assert_eq!(
            read_count(
                TargetKind::Groonga,
                None,
                br#"[[0,1.0,0.01],[[[1200],[["_id","UInt32"]]]]]"#
            ),
            Ok(1200)
        );
        assert!(
            read_count(TargetKind::Groonga, None, br#"[[-22,1.0,0.0,"no table"]]"#)
                .unwrap_err()
                .contains("error")
        );
        assert!(read_count(TargetKind::CouchDb, None, b"{}").is_err());
        assert_eq!(
            read_count(
                TargetKind::Elasticsearch,
                None,
                br#"{"count":7,"_shards":{"total":1}}"#
            ),
            Ok(7)
        );
        assert_eq!(
            read_count(TargetKind::Template, Some("/n/0"), br#"{"n":[12]}"#),
            Ok(12)
        );
    }
}
