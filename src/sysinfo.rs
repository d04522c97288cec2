//! Facts about this machine and this process: CPU time used, core count, a
//! wall-clock timestamp. Read from `/proc` so no extra dependency is needed.

use std::time::SystemTime;

use crate::result::Machine;

/// CPU time (user + system) this process has used so far, in seconds.
/// Linux reports it in clock ticks of 1/100 s in `/proc/self/stat` (USER_HZ is 100).
pub fn process_cpu_seconds() -> f64 {
    pid_cpu_seconds("self").unwrap_or(0.0)
}

/// CPU time (user + system) of a process, in seconds, or None when it cannot be read.
pub fn pid_cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces; fields after the last ')' are fixed.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after ')'.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Resident memory of this process in bytes (VmRSS), 0 when unknown.
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Resident memory of another process in bytes, or None when it cannot be read.
pub fn pid_rss_bytes(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = s
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Raise this process's soft limit on open files to its hard limit (as Go programs
/// do at start): each connection is a file descriptor, and the usual soft limit of
/// 1,024 is below what a benchmark of many clients needs. Returns the limit now in
/// force, `None` when it cannot be read.
pub fn raise_fd_limit() -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return limit.maximum;
        }
    }
    limit.current
}

pub fn cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

pub fn machine() -> Machine {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let os_release = read("/etc/os-release");
    let pretty = os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
    let cpu_model = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split(':').nth(1))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default();
    let memory_bytes = read("/proc/meminfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("MemTotal:")
                .and_then(|r| r.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0);
    Machine {
        hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
        os: if kernel.is_empty() {
            pretty
        } else {
            format!("{pretty} (Linux {kernel})")
        },
        cpus: cpus(),
        cpu_model,
        memory_bytes,
        fd_limit: None,
    }
}

/// Now as RFC 3339 UTC with milliseconds, e.g. `2026-11-21T05:47:33.120Z`.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// See [`crate::timestamp::format`].
pub fn rfc3339(t: SystemTime) -> String {
    crate::timestamp::format(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_795_240_053_120);
        assert_eq!(rfc3339(t), "2026-11-21T05:47:33.120Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn reads_own_cpu_time() {
        assert!(process_cpu_seconds() >= 0.0);
        assert!(resident_bytes() > 0);
    }
}
