//! Terminal text for `stream send`, `watch` and `stream run`: the send summary, one line
//! per interval, a table per run, the verification block and the experiment's table.
//! Pure functions of [`crate::stream`]'s reports. Rates are records/s and MiB/s (the
//! seed's "MB/s" are MiB: 4,096 B × 64,943/s = 253.7).

use std::fmt::Write;

use crate::stream::send::SendReport;

/// 1234567 → "1,234,567".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

fn per_s(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

/// `stream send`'s summary.
pub fn send_summary(r: &SendReport, record_size: usize) -> String {
    let mut s = String::new();
    let records = r.records();
    let bytes = records * record_size as u64;
    let n = r.senders.len();
    let _ = writeln!(
        s,
        "Sent {} records ({:.1} MiB) in {:.2} s{}: {} records/s, {:.1} MiB/s",
        grouped(records),
        mib(bytes as f64),
        r.elapsed_s,
        if n > 1 {
            format!(" by {n} senders")
        } else {
            String::new()
        },
        grouped(per_s(records as f64, r.elapsed_s).round() as u64),
        mib(per_s(bytes as f64, r.elapsed_s)),
    );
    for sr in &r.senders {
        if let Some(e) = &sr.error {
            let _ = writeln!(
                s,
                "  sender {} stopped after {} records: {e}",
                sr.sender,
                grouped(sr.records)
            );
        }
    }
    if r.failed_batches > 0 {
        let _ = writeln!(
            s,
            "  {} batches were refused or not answered",
            grouped(r.failed_batches)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::send::SenderReport;

    #[test]
    fn send_summary_reads_well() {
        let r = SendReport {
            senders: vec![
                SenderReport {
                    sender: 0,
                    records: 1_000_000,
                    bytes: 1_024_000_000,
                    elapsed_s: 2.0,
                    error: None,
                },
                SenderReport {
                    sender: 1,
                    records: 12_345,
                    bytes: 12_641_280,
                    elapsed_s: 0.1,
                    error: Some("the receiver closed the connection (Broken pipe)".into()),
                },
            ],
            elapsed_s: 2.0,
            failed_senders: 1,
            failed_batches: 0,
        };
        assert_eq!(
            send_summary(&r, 1024),
            "Sent 1,012,345 records (988.6 MiB) in 2.00 s by 2 senders: 506,173 records/s, 494.3 MiB/s\n  sender 1 stopped after 12,345 records: the receiver closed the connection (Broken pipe)\n"
        );
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }
}
