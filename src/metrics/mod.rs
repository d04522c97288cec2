//! Live views of a run for the field's tools: `--metrics-listen ADDR` serves the run's
//! counters and latency histograms at `/metrics` for Prometheus (so a run shows up on
//! the Grafana board beside the server's own metrics), and `--live-out FILE` writes
//! one JSON line per second. Both are [`Observer`]s of the runner, added to the run's
//! [`Fanout`] beside the console; neither touches the per-request path (they read the
//! engine's progress reports, ~4 a second, and each step's result).
//!
//! `board` keeps what the exporter knows, `exposition` renders it (Prometheus text or
//! OpenMetrics), `serve` answers scrapes, `ndjson` writes the line stream.

pub mod board;
pub mod exposition;
pub mod ndjson;
pub mod serve;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Progress, StepSpec};
use crate::observe::Fanout;
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};

use serve::{MetricsServer, Shared};

/// What the flags ask for.
#[derive(Debug, Clone, Default)]
pub struct LiveOptions {
    /// `--metrics-listen`: serve `/metrics` on exactly this address.
    pub listen: Option<SocketAddr>,
    /// `--metrics-hold`: after the run, wait at most this long for a scrape of the
    /// final numbers.
    pub hold: Duration,
    /// `--live-out`: the NDJSON lines go here; `-` is stdout.
    pub out: Option<PathBuf>,
}

/// Why the live views cannot start; said before any load is sent (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("--metrics-listen {addr}: cannot listen there: {source}; nothing was sent")]
    Listen { addr: SocketAddr, source: io::Error },
    #[error("--live-out {path}: cannot write there: {source}; nothing was sent")]
    Out { path: String, source: io::Error },
    #[error("--live-out - and {0} both print on stdout: give --live-out a file")]
    Stdout(&'static str),
}

/// The live views of one run: started before the load, watching it through
/// [`Live::observers`], finished after it.
#[derive(Default)]
pub struct Live {
    server: Option<MetricsServer>,
    shared: Arc<Shared>,
    out: Option<ndjson::LiveOut>,
    hold: Duration,
}

impl Live {
    /// Binds the address and opens the file now, so a port in use or an unwritable
    /// path is refused before any load. `stdout_busy` names what already prints on
    /// stdout (`--json`, `-o -`), which `--live-out -` would garble.
    pub fn start(o: &LiveOptions, stdout_busy: Option<&'static str>) -> Result<Live, LiveError> {
        let out = match &o.out {
            None => None,
            Some(p) if p.as_os_str() == "-" => match stdout_busy {
                Some(what) => return Err(LiveError::Stdout(what)),
                None => Some(ndjson::LiveOut::new(Box::new(io::stdout()))),
            },
            Some(p) => {
                let f = ndjson::open(p).map_err(|source| LiveError::Out {
                    path: p.display().to_string(),
                    source,
                })?;
                Some(ndjson::LiveOut::new(Box::new(f)))
            }
        };
        let shared = Arc::new(Shared::default());
        let run = run_id(std::time::SystemTime::now(), std::process::id());
        shared.board.lock().unwrap_or_else(|p| p.into_inner()).run = run.clone();
        let server = match o.listen {
            None => None,
            Some(addr) => Some(
                MetricsServer::start(addr, shared.clone())
                    .map_err(|source| LiveError::Listen { addr, source })?,
            ),
        };
        if let Some(s) = &server {
            eprintln!("Live metrics: http://{}/metrics (run=\"{run}\")", s.addr);
        }
        Ok(Live {
            server,
            shared,
            out,
            hold: o.hold,
        })
    }

    /// The address `/metrics` is served on (port 0 resolved).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.server.as_ref().map(|s| s.addr)
    }

    /// The observers to watch the run with (none when no live view was asked for).
    pub fn observers(&mut self) -> Fanout<'static> {
        let mut f = Fanout::new();
        if self.server.is_some() {
            f.push(Exporter(self.shared.clone()));
        }
        if let Some(out) = self.out.take() {
            f.push(out);
        }
        f
    }

    /// After the run: keep `/metrics` up until a scrape has read the final numbers, at
    /// most `--metrics-hold`, then stop serving.
    pub fn finish(mut self) {
        let Some(server) = self.server.as_mut() else {
            return;
        };
        self.shared.end();
        if !self.hold.is_zero() {
            eprintln!(
                "Live metrics: the final numbers stay at http://{}/metrics until a scrape \
                 reads them, at most {} s (--metrics-hold)",
                server.addr,
                self.hold.as_secs_f64()
            );
            self.shared.wait_for_final_scrape(self.hold);
        }
        server.stop();
    }
}

/// A run's id for its series: when its live views started, and the process, so that
/// runs one after another on one machine (or at once, on several ports) differ.
fn run_id(at: std::time::SystemTime, pid: u32) -> String {
    format!("{}/{pid}", crate::timestamp::format(at))
}

/// Keeps the board up to date from the runner's reports.
struct Exporter(Arc<Shared>);

impl Exporter {
    fn board(&self) -> std::sync::MutexGuard<'_, board::Board> {
        self.0.board.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Observer for Exporter {
    fn warmup_started(&mut self, _d: Duration, _spec: &StepSpec) {
        self.board().warmup(true);
    }
    fn warmup_finished(&mut self, _responses: u64, _errors: u64) {
        self.board().warmup(false);
    }
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.board().step_started(at, spec);
    }
    fn progress(&mut self, _spec: &StepSpec, p: Progress) {
        self.board().progress(&p);
    }
    fn step_finished(&mut self, _run: &RunResult, step: &StepResult) {
        self.board().step_finished(step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_in_use_and_an_unwritable_file_are_refused_up_front() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let e = Live::start(
            &LiveOptions {
                listen: Some(addr),
                ..LiveOptions::default()
            },
            None,
        )
        .err()
        .expect("refused");
        assert!(
            e.to_string()
                .starts_with(&format!("--metrics-listen {addr}: cannot listen there")),
            "{e}"
        );
        let e = Live::start(
            &LiveOptions {
                out: Some("/nonexistent-dir/live.ndjson".into()),
                ..LiveOptions::default()
            },
            None,
        )
        .err()
        .expect("refused");
        assert!(matches!(e, LiveError::Out { .. }), "{e}");
        let e = Live::start(
            &LiveOptions {
                out: Some("-".into()),
                ..LiveOptions::default()
            },
            Some("--json"),
        )
        .err()
        .expect("refused");
        assert!(matches!(e, LiveError::Stdout("--json")), "{e}");
    }

    #[test]
    fn a_scrape_after_the_end_reads_the_final_numbers_and_ends_the_hold() {
        let mut live = Live::start(
            &LiveOptions {
                listen: Some("127.0.0.1:0".parse().unwrap()),
                hold: Duration::from_secs(30),
                out: None,
            },
            None,
        )
        .unwrap();
        let addr = live.metrics_addr().unwrap();
        assert_eq!(live.observers().len(), 1);
        let get = move |accept: &str| {
            crate::http::Fetched::request(
                &format!("http://{addr}/metrics"),
                "GET",
                &[("Accept".to_string(), accept.to_string())],
                Duration::from_secs(5),
            )
            .expect("scraped")
        };
        let page = get("text/plain");
        let body = String::from_utf8_lossy(&page.body).into_owned();
        assert!(
            body.contains("# TYPE hakaru_requests_total counter"),
            "{body}"
        );
        let page = get("application/openmetrics-text;version=1.0.0");
        assert!(String::from_utf8_lossy(&page.body).ends_with("# EOF\n"));
        let scraper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            get("text/plain")
        });
        let t = std::time::Instant::now();
        live.finish();
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the hold ended at the scrape"
        );
        scraper.join().unwrap();
        // Stopped: nothing listens any more.
        assert!(std::net::TcpStream::connect(addr).is_err());
    }
}
