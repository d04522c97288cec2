//! Joining the results of a `stream send` spread over many load machines (`--shard
//! K/N`, a pod each): every sender of every shard in one send report, as one machine
//! with all those senders would have written it. The receiver's side (`watch`) is one
//! process and needs no merge; its `--verify` tells each sender apart by its id, which
//! the shards offset.

use super::merge::{check_shards, MergeError};
use super::stream::{SendReport, SendSection, StreamResult};
use super::Shard;

/// Merge `stream send` shard results given with where they came from (for errors).
pub fn merge_sends(results: &[(String, StreamResult)]) -> Result<StreamResult, MergeError> {
    let sends: Vec<(&str, &SendSection)> = results
        .iter()
        .map(|(p, r)| {
            r.send
                .as_ref()
                .map(|s| (p.as_str(), s))
                .ok_or_else(|| MergeError::NotAShard { path: p.clone() })
        })
        .collect::<Result<_, _>>()?;
    let shards: Vec<(&str, Option<Shard>)> = sends.iter().map(|(p, s)| (*p, s.shard)).collect();
    let count = check_shards(&shards)?;
    let (first_path, first) = sends[0];
    for (path, s) in &sends {
        let what = if s.to != first.to {
            Some("--to")
        } else if s.record_size != first.record_size {
            Some("--record-size")
        } else if s.format != first.format || s.layout != first.layout {
            Some("the records' format")
        } else if s.count != first.count {
            Some("--count")
        } else if s.rate != first.rate {
            Some("--rate")
        } else if s.report.senders.len() != first.report.senders.len() {
            Some("the senders per shard")
        } else {
            None
        };
        if let Some(what) = what {
            return Err(MergeError::Plan {
                path: path.to_string(),
                first: first_path.to_owned(),
                what,
            });
        }
    }
    let mut senders: Vec<_> = sends
        .iter()
        .flat_map(|(_, s)| s.report.senders.iter().cloned())
        .collect();
    senders.sort_by_key(|s| s.sender);
    let report = SendReport {
        senders,
        // The machines ran together: the send took as long as its slowest.
        elapsed_s: sends
            .iter()
            .map(|(_, s)| s.report.elapsed_s)
            .fold(0.0, f64::max),
        failed_senders: sends.iter().map(|(_, s)| s.report.failed_senders).sum(),
        failed_batches: sends.iter().map(|(_, s)| s.report.failed_batches).sum(),
    };
    let mut merged = results[0].1.clone();
    merged.started_at = results
        .iter()
        .map(|(_, r)| r.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.complete = results.iter().all(|(_, r)| r.complete);
    merged.merged = Some(super::Merged {
        shards: results.len() as u32,
        of: count,
    });
    merged.send = Some(SendSection {
        shard: None,
        start_late_s: sends
            .iter()
            .filter_map(|(_, s)| s.start_late_s)
            .reduce(f64::max),
        report,
        ..first.clone()
    });
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::stream::SenderReport;

    fn shard(index: u32, count: u32, first_sender: u64) -> (String, StreamResult) {
        let mut r = StreamResult::new(vec!["hakaru".into()], format!("2026-11-25T00:00:0{index}Z"));
        r.complete = true;
        r.send = Some(SendSection {
            to: "tcp://recv:5140".into(),
            record_size: 100,
            format: "raw".into(),
            layout: "sender, sequence, send time".into(),
            count: Some(10),
            rate: None,
            shard: Some(Shard { index, count }),
            start_late_s: Some(0.001 * index as f64),
            report: SendReport {
                senders: (0..2)
                    .map(|k| SenderReport {
                        sender: first_sender + k,
                        records: 10,
                        bytes: 1000,
                        elapsed_s: 1.0 + index as f64,
                        error: None,
                    })
                    .collect(),
                elapsed_s: 1.0 + index as f64,
                failed_senders: 0,
                failed_batches: 0,
            },
        });
        (format!("pod {index}"), r)
    }

    #[test]
    fn merged_sends_hold_every_sender_once() {
        let m = merge_sends(&[shard(2, 3, 2), shard(1, 3, 0), shard(3, 3, 4)]).unwrap();
        let send = m.send.unwrap();
        let ids: Vec<u64> = send.report.senders.iter().map(|s| s.sender).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
        assert_eq!(send.report.records(), 60);
        assert_eq!(send.report.elapsed_s, 4.0);
        assert_eq!(send.shard, None);
        assert_eq!(m.merged, Some(crate::result::Merged { shards: 3, of: 3 }));
        assert_eq!(m.started_at, "2026-11-25T00:00:01Z");
    }

    #[test]
    fn a_missing_send_shard_is_named() {
        let e = merge_sends(&[shard(1, 3, 0), shard(3, 3, 4)]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("shard 2/3 is missing: 2 of 3 shards came back"),
            "{e}"
        );
        let mut other = shard(2, 3, 2);
        other.1.send.as_mut().unwrap().to = "tcp://elsewhere:1".into();
        let e = merge_sends(&[shard(1, 3, 0), other, shard(3, 3, 4)]).unwrap_err();
        assert!(e.to_string().contains("--to differ"), "{e}");
    }
}
