//! `hakaru serve`: run the embedded target until Ctrl-C or SIGTERM.
//!
//! Prints `hakaru target listening on http://ADDR` (flushed) once the port is bound, so
//! scripts and tests started with `--bind 127.0.0.1:0` can read the real port.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Context;

use crate::server::basic::start_basic_with_memcached;
use crate::server::listen::{check_bind, check_threads, ServerOptions, ShutdownSignal};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on; port 0 picks a free port (printed at start).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub bind: SocketAddr,

    /// Answer every request with `Connection: close` and close the connection.
    #[arg(long)]
    pub no_keep_alive: bool,

    /// Worker threads; 0, the default, means one per core.
    #[arg(long, default_value_t = 0, hide_default_value = true, value_name = "N")]
    pub threads: usize,

    /// Speak HTTP/2 with prior knowledge (h2c, as `run --http2` sends it) instead of
    /// HTTP/1.1.
    #[arg(long, conflicts_with = "no_keep_alive")]
    pub http2: bool,

    /// Allow a non-loopback --bind address (benchmarks on shared machines should not).
    #[arg(long)]
    pub allow_remote: bool,

    /// Serve the search target (full-text search over generated documents) instead of
    /// the basic endpoints.
    #[arg(long)]
    pub search: bool,

    /// Number of generated documents for --search.
    #[arg(long, requires = "search")]
    pub documents: Option<u64>,

    /// Serve the document store (CouchDB's `_bulk_docs`, single PUT/POST, `GET /db`,
    /// `batch=ok`, `X-Couch-Full-Commit`; standing in for Elasticsearch: `_bulk`, `_count`)
    /// instead of the basic endpoints.
    #[arg(long, conflicts_with = "search")]
    pub docs: bool,

    /// Workers behind /work?ms=MS: requests take them first come, first served, each
    /// for MS ms, so the capacity is exactly workers ÷ MS (4 workers at 2 ms: 2000/s).
    #[arg(long, default_value_t = 1, value_name = "N", conflicts_with_all = ["search", "docs"])]
    pub workers: usize,

    /// A real memcached (host:port on loopback) as /cached's cache instead of the
    /// in-process one: hits are its hits, /cached/clear and /cached/reboot send it
    /// flush_all.
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["search", "docs"])]
    pub memcached: Option<SocketAddr>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    check_bind(args.bind, args.allow_remote)?;
    check_threads(args.threads)?;
    // A descriptor per connection: as many as the hard limit allows, as `run` does.
    crate::sysinfo::raise_fd_limit();
    let opts = ServerOptions {
        keep_alive: !args.no_keep_alive,
        threads: args.threads,
        http2: args.http2,
    };
    // A small runtime of our own only waits for the signal; the server has its own.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("building the signal runtime")?;
    let mut signal = {
        let _guard = runtime.enter();
        ShutdownSignal::new().context("installing the SIGINT/SIGTERM handlers")?
    };
    let server = if args.search {
        let search = crate::server::search::SearchOptions {
            documents: args.documents.map_or(10_000, |n| n as usize),
            ..Default::default()
        };
        eprintln!("Building the search corpus ({} pages)...", search.documents);
        crate::server::search::start_search(args.bind, search, opts)?
    } else if args.docs {
        let docs = crate::server::docs::DocsOptions::default();
        crate::server::docs::start_docs(args.bind, docs, opts)?
    } else {
        use crate::server::basic_work::MAX_WORKERS;
        use crate::spec::SpecError;
        if args.workers == 0 {
            return Err(SpecError::AtLeast {
                flag: "--workers",
                min: 1,
            }
            .into());
        }
        if args.workers > MAX_WORKERS {
            return Err(SpecError::AtMost {
                flag: "--workers",
                max: MAX_WORKERS as u64,
                found: args.workers as u64,
            }
            .into());
        }
        if let Some(m) = args
            .memcached
            .filter(|m| !args.allow_remote && !m.ip().is_loopback())
        {
            return Err(crate::server::listen::ServeError::MemcachedNotLoopback(m).into());
        }
        start_basic_with_memcached(args.bind, opts, args.workers, args.memcached)
            .with_context(|| format!("--bind {}: cannot listen", args.bind))?
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "hakaru target listening on http://{}", server.addr)?;
    stdout.flush()?;
    drop(stdout);
    runtime.block_on(signal.recv());
    server.stop();
    Ok(0)
}
