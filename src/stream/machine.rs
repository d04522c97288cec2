//! The machine beside each interval of a watch, from `/proc`: free memory, page cache,
//! dirty and writeback pages (`/proc/meminfo`), disk write bytes/s (`/proc/diskstats`,
//! whole disks), network bytes/s (`/proc/net/dev`, every interface, loopback
//! included) and, with `--pid`, the receiver process's CPU. It is how a timeline
//! shows the moment the bottleneck moved: the seed's HDD run was fast until dirty
//! pages had filled memory, then ran at the disk's speed.

use std::time::Instant;

pub use crate::result::stream::MachineSample;

const MIB: f64 = 1024.0 * 1024.0;

/// Counters that only grow, read at the end of each interval.
#[derive(Debug, Clone, Copy)]
struct Totals {
    at: Instant,
    disk_written: u64,
    net_rx: u64,
    net_tx: u64,
    pid_cpu_s: Option<f64>,
}

/// Samples the machine; the first sample sets the baseline for the rates.
pub struct MachineProbe {
    pid: Option<u32>,
    disks: Vec<String>,
    last: Option<Totals>,
}

impl MachineProbe {
    pub fn new(pid: Option<u32>) -> MachineProbe {
        // Whole disks are what /sys/block lists; loop and RAM devices are not disks.
        let disks = std::fs::read_dir("/sys/block")
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| {
                        !n.starts_with("loop") && !n.starts_with("ram") && !n.starts_with("zram")
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut p = MachineProbe {
            pid,
            disks,
            last: None,
        };
        p.last = Some(p.totals());
        p
    }

    fn totals(&self) -> Totals {
        let disk_written = std::fs::read_to_string("/proc/diskstats")
            .map(|s| disk_sectors_written(&s, &self.disks) * 512)
            .unwrap_or(0);
        let (net_rx, net_tx) = std::fs::read_to_string("/proc/net/dev")
            .map(|s| net_bytes(&s))
            .unwrap_or((0, 0));
        Totals {
            at: Instant::now(),
            disk_written,
            net_rx,
            net_tx,
            pid_cpu_s: self
                .pid
                .and_then(|p| crate::sysinfo::pid_cpu_seconds(&p.to_string())),
        }
    }

    /// The interval since the last sample.
    pub fn sample(&mut self) -> MachineSample {
        let now = self.totals();
        let mem = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let kib = |key: &str| meminfo_kib(&mem, key) as f64 / 1024.0;
        let mut s = MachineSample {
            mem_free_mib: kib("MemFree:"),
            page_cache_mib: kib("Cached:"),
            dirty_mib: kib("Dirty:"),
            writeback_mib: kib("Writeback:"),
            ..Default::default()
        };
        if let Some(last) = self.last {
            let dt = now.at.saturating_duration_since(last.at).as_secs_f64();
            if dt > 0.0 {
                let rate = |a: u64, b: u64| a.saturating_sub(b) as f64 / MIB / dt;
                s.disk_write_mib_per_s = rate(now.disk_written, last.disk_written);
                s.net_rx_mib_per_s = rate(now.net_rx, last.net_rx);
                s.net_tx_mib_per_s = rate(now.net_tx, last.net_tx);
                if let (Some(a), Some(b)) = (now.pid_cpu_s, last.pid_cpu_s) {
                    s.pid_cpu_pct = Some(((a - b) / dt * 100.0).max(0.0));
                }
            }
        }
        self.last = Some(now);
        s
    }
}

/// A `/proc/meminfo` value in KiB.
fn meminfo_kib(text: &str, key: &str) -> u64 {
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l[key.len()..].split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Sectors written (field 10) summed over `disks`.
fn disk_sectors_written(text: &str, disks: &[String]) -> u64 {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let name = *f.get(2)?;
            disks
                .iter()
                .any(|d| d == name)
                .then(|| f.get(9)?.parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

/// Received and sent bytes over every interface.
fn net_bytes(text: &str) -> (u64, u64) {
    let mut rx = 0;
    let mut tx = 0;
    for l in text.lines().skip(2) {
        let Some((_, rest)) = l.split_once(':') else {
            continue;
        };
        let f: Vec<u64> = rest
            .split_whitespace()
            .filter_map(|v| v.parse().ok())
            .collect();
        if f.len() >= 9 {
            rx += f[0];
            tx += f[8];
        }
    }
    (rx, tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse() {
        let mem = "MemTotal:       24000000 kB\nMemFree:        2048 kB\nCached:   1024 kB\nSwapCached: 5 kB\nDirty:  512 kB\nWriteback: 0 kB\n";
        assert_eq!(meminfo_kib(mem, "MemFree:"), 2048);
        assert_eq!(meminfo_kib(mem, "Cached:"), 1024);
        assert_eq!(meminfo_kib(mem, "Dirty:"), 512);
        let disk = " 253       0 vda 100 0 2000 10 50 0 4096 20 0 30 30 0 0 0 0\n 253       1 vda1 1 0 2 1 5 0 999 2 0 3 3 0 0 0 0\n";
        assert_eq!(disk_sectors_written(disk, &["vda".into()]), 4096);
        let net = "Inter-|   Receive\n face |bytes packets\n    lo: 1000 10 0 0 0 0 0 0 2000 10 0 0 0 0 0 0\n  eth0: 5 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0\n";
        assert_eq!(net_bytes(net), (1005, 2007));
    }

    #[test]
    fn a_sample_of_this_machine_is_sane() {
        let mut p = MachineProbe::new(Some(std::process::id()));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let s = p.sample();
        assert!(s.mem_free_mib > 0.0);
        assert!(s.pid_cpu_pct.is_some());
    }
}
