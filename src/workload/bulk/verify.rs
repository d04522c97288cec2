//! `--verify`: the server's own count of documents, read before the first step and
//! after the last (never during load), so acknowledged writes can be compared with
//! what is really there: CouchDB `GET /db` → `doc_count`, Groonga
//! `/d/select?table=T&limit=0` → the number of hits, Elasticsearch `POST
//! /index/_refresh` (documents are searchable only after a refresh) then `GET
//! /index/_count` → `count`.

use std::time::Duration;

use super::{BulkSettings, TargetKind};
use crate::http::fetch;
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

/// Read the server's count of documents.
pub fn present(s: &BulkSettings, timeout: Duration) -> Result<u64, String> {
    let url = count_url(s);
    if s.kind == TargetKind::Elasticsearch {
        let refresh = format!("{}{}/_refresh", s.target.label(), s.base_path);
        let got = crate::http::Fetched::request(&refresh, "POST", &[], timeout)?;
        // A missing index has nothing to refresh; its count says so below.
        if got.status != 200 && got.status != 404 {
            return Err(format!("{refresh} answered {}", got.status));
        }
    }
    let got = fetch(&url, timeout)?;
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
