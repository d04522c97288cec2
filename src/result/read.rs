//! Readers: turn any result file a user may hold — hakaru's JSON, hakaru's CSV, or
//! drnbench's CSV as drnbench wrote it — into one plain [`Series`] that the analysis,
//! the charts and the comparisons work on.
//!
//! The format is told by content, never by file name: JSON starts with `{`; a CSV is
//! hakaru's when its header carries any of hakaru's extra columns, drnbench's otherwise.
//! Every error names the file, and where it can, the line and column at fault.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::result::series::{error_share, share, Point, Series, SourceFormat};
use crate::result::RunResult;

use crate::result::csv::{BULK_COLUMNS, ITEM_ERRORS_PREFIX};
pub use crate::result::csv::{DRNBENCH_COLUMNS, FULL_EXTRA_COLUMNS};

/// hakaru's CSV columns that carry server-side numbers: read as probes, like any
/// named column this reader does not know.
const PROBE_COLUMNS: [&str; 3] = ["cache_hit_rate", "server_cpu_cores", "server_rss_max_bytes"];

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: cannot read: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// hakaru's JSON result, refused as [`crate::result::json::from_json`] refuses it
    /// (not JSON, not a result, or written by a newer hakaru).
    #[error(transparent)]
    Json(#[from] crate::result::json::ResultReadError),
    #[error(
        "{path}: not a drnbench or hakaru result: missing column(s) {}; found: {}",
        missing.join(", "),
        found.join(", ")
    )]
    MissingColumns {
        path: PathBuf,
        missing: Vec<String>,
        /// The first line's fields, a few and short (it may be any text file).
        found: Vec<String>,
    },
    #[error(
        "{path}: a log-pipeline result (hakaru-stream, from watch, stream send or stream run); \
         it compares only with other stream results"
    )]
    StreamKind { path: PathBuf },
    #[error(
        "cannot compare {stream} with {other}: the first is a log-pipeline result \
         (hakaru-stream: records/s at a receiver), the second a request-response result; \
         compare stream results with stream results"
    )]
    MixedKinds { stream: PathBuf, other: PathBuf },
    #[error(
        "{path}: a binary file, not a result (hakaru reads its own .json and .csv results, \
         and drnbench's .csv)"
    )]
    Binary { path: PathBuf },
    #[error("{path}: the result holds no steps")]
    Empty { path: PathBuf },
    #[error("{path}: line {line}, column {column}: {value:?} is not a number")]
    NotNumber {
        path: PathBuf,
        line: u64,
        column: String,
        value: String,
    },
    #[error("{path}: line {line}: {message}")]
    Csv {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{path}: {at}: mismatched units: {detail}")]
    MismatchedUnits {
        path: PathBuf,
        at: String,
        detail: String,
    },
}

/// Reads one result file of any supported kind. The label is the file stem.
pub fn read_result(path: &Path) -> Result<Series, ReadError> {
    read_result_and_run(path).map(|(s, _)| s)
}

/// [`read_result`] with hakaru's JSON result behind the series, when there is one:
/// the file itself, or the JSON beside hakaru's CSV (its thresholds' verdicts and
/// `--find-max` search are not in the CSV). A JSON beside that cannot be read is
/// passed over: the report is of the file given.
pub fn read_result_and_run(path: &Path) -> Result<(Series, Option<RunResult>), ReadError> {
    let bytes = std::fs::read(path).map_err(|error| ReadError::Io {
        path: path.to_owned(),
        error,
    })?;
    let (series, run) = read_bytes(path, &bytes)?;
    let run = match run {
        Some(run) => Some(run),
        None if series.format == SourceFormat::HakaruCsv => {
            let json = path.with_extension("json");
            std::fs::read_to_string(&json)
                .ok()
                .and_then(|t| crate::result::json::from_json(&t, &json.display().to_string()).ok())
        }
        None => None,
    };
    Ok((series, run))
}

/// [`read_result`] of bytes already read; `path` names them (and labels the series).
#[doc(hidden)]
pub fn read_result_bytes(path: &Path, bytes: &[u8]) -> Result<Series, ReadError> {
    read_bytes(path, bytes).map(|(s, _)| s)
}

fn read_bytes(path: &Path, bytes: &[u8]) -> Result<(Series, Option<RunResult>), ReadError> {
    // A NUL or a byte that is no UTF-8 near the start: an image, an archive, a program.
    // Refused in one line rather than quoted to the terminal.
    let head = &bytes[..bytes.len().min(8192)];
    let cut = head.len() < bytes.len();
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        // The head may end inside a character: only an error before its last 3 bytes counts.
        Err(e) => cut && e.error_len().is_none(),
    };
    if head.contains(&0) || !utf8 {
        return Err(ReadError::Binary {
            path: path.to_owned(),
        });
    }
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    let (series, run) = if text.trim_start().starts_with('{') {
        let (s, run) = read_json(path, text)?;
        (s, Some(run))
    } else {
        (read_csv(path, text)?, None)
    };
    if series.points.is_empty() {
        return Err(ReadError::Empty {
            path: path.to_owned(),
        });
    }
    check_units(&series)?;
    Ok((series, run))
}

/// A few of a first line's fields as the error quotes them: at most six, each at
/// most 40 characters, control characters dropped (the file may be any text).
fn shown_fields(headers: &[String]) -> Vec<String> {
    let mut out: Vec<String> = headers
        .iter()
        .take(6)
        .map(|h| {
            let clean: String = h.chars().filter(|c| !c.is_control()).collect();
            match clean.char_indices().nth(40) {
                Some((i, _)) => format!("{}…", &clean[..i]),
                None => clean,
            }
        })
        .collect();
    if headers.len() > 6 {
        out.push(format!("… ({} in all)", headers.len()));
    }
    out
}

/// The JSON of `path`: itself, or the file beside a CSV.
fn json_of(path: &Path) -> PathBuf {
    if path.extension().is_some_and(|e| e == "json") {
        path.to_owned()
    } else {
        path.with_extension("json")
    }
}

/// The stream result at `path` (its JSON, or the JSON beside a CSV): `None` when the
/// file is not one (the ordinary readers then take it), an error when it is one that
/// cannot be read (a newer version, a broken field).
pub fn read_stream(path: &Path) -> Option<Result<super::stream::StreamResult, ReadError>> {
    let json = json_of(path);
    let text = std::fs::read_to_string(&json).ok()?;
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    if value.get("kind").and_then(|k| k.as_str()) != Some(super::stream::KIND) {
        return None;
    }
    use crate::result::json::ResultReadError;
    let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
    if version > u64::from(super::stream::VERSION) {
        return Some(Err(ReadError::Json(ResultReadError::TooNew {
            path: json.display().to_string(),
            found: u32::try_from(version).unwrap_or(u32::MAX),
            supported: super::stream::VERSION,
        })));
    }
    // Parsed again from the text so a broken field is named by line and column.
    Some(serde_json::from_str(&text).map_err(|e| {
        ReadError::Json(ResultReadError::Invalid {
            path: json.display().to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    }))
}

/// The bulk run in `path` (its JSON, or the JSON beside a CSV); `None` when the file
/// is not a bulk run or cannot be read (the ordinary readers then say why).
pub fn read_bulk(path: &Path) -> Option<RunResult> {
    let json = json_of(path);
    let text = std::fs::read_to_string(&json).ok()?;
    let run = super::json::from_json(&text, &json.display().to_string()).ok()?;
    (run.mode == super::Mode::Bulk).then_some(run)
}

fn label_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn read_json(path: &Path, text: &str) -> Result<(Series, RunResult), ReadError> {
    // The one reader of hakaru's JSON: the schema version checked before the shape,
    // and `state` filled in for files written before it existed. A log pipeline's
    // result has a shape of its own: it is named as such, not by the field it lacks.
    let run = match crate::result::json::from_json(text, &path.display().to_string()) {
        Ok(run) => run,
        Err(_) if is_stream_result(text) => {
            return Err(ReadError::StreamKind {
                path: path.to_owned(),
            })
        }
        Err(e) => return Err(e.into()),
    };
    let mut series = Series::from_run(&run, &label_of(path));
    series.source = path.to_owned();
    Ok((series, run))
}

/// Whether `text` is a `hakaru-stream` result (watch, stream send, stream run).
fn is_stream_result(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    serde_json::from_str::<Kind>(text)
        .is_ok_and(|k| k.kind.as_deref() == Some(crate::result::stream::KIND))
}

/// What one CSV column holds.
#[derive(Debug, Clone)]
enum Column {
    Known(&'static str),
    Status(u16),
    Probe(String),
    Ignored,
}

fn classify(name: &str) -> Column {
    if PROBE_COLUMNS.contains(&name) {
        return Column::Probe(name.to_owned());
    }
    if let Some(k) = DRNBENCH_COLUMNS
        .iter()
        .chain(FULL_EXTRA_COLUMNS.iter())
        .find(|k| **k == name)
    {
        return Column::Known(k);
    }
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(code) = name.parse::<u16>() {
            return Column::Status(code);
        }
    }
    // A SQL run's and a store's statuses are written by name (`ok`, `hit_or_done`).
    if let Some(code) = crate::result::answers::csv_status_of_column(name) {
        return Column::Status(code);
    }
    // hakaru may grow more latency, error and byte columns; those are not probes.
    let ours = name.ends_with("_elapsed_time")
        || name.ends_with("_connect_time")
        || name.starts_with("errors_")
        || name.starts_with("bytes_")
        || name.starts_with("client_")
        // A bulk write's figures (`hakaru bulk`): read from its JSON, not charted from CSV.
        || BULK_COLUMNS.contains(&name)
        || name.starts_with(ITEM_ERRORS_PREFIX);
    if ours || name.is_empty() {
        Column::Ignored
    } else {
        Column::Probe(name.to_owned())
    }
}

fn read_csv(path: &Path, text: &str) -> Result<Series, ReadError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let csv_err = |e: csv::Error| ReadError::Csv {
        path: path.to_owned(),
        line: e.position().map(|p| p.line()).unwrap_or(1),
        message: e.to_string(),
    };
    let headers: Vec<String> = rdr
        .headers()
        .map_err(csv_err)?
        .iter()
        .map(|h| h.to_owned())
        .collect();
    let missing: Vec<String> = DRNBENCH_COLUMNS
        .iter()
        .filter(|c| !headers.iter().any(|h| h == *c))
        .map(|c| c.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(ReadError::MissingColumns {
            path: path.to_owned(),
            missing,
            found: shown_fields(&headers),
        });
    }
    let format = if headers
        .iter()
        .any(|h| FULL_EXTRA_COLUMNS.contains(&h.as_str()) && !PROBE_COLUMNS.contains(&h.as_str()))
    {
        SourceFormat::HakaruCsv
    } else {
        SourceFormat::DrnbenchCsv
    };
    let columns: Vec<Column> = headers.iter().map(|h| classify(h)).collect();

    let mut points = Vec::new();
    let mut any_partial = false;
    for record in rdr.records() {
        let record = record.map_err(csv_err)?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        if record.iter().all(|c| c.is_empty()) {
            continue;
        }
        let mut known: BTreeMap<&'static str, f64> = BTreeMap::new();
        let mut p = Point::default();
        for (cell, col) in record.iter().zip(&columns) {
            let num = |name: &str| -> Result<Option<f64>, ReadError> {
                if cell.is_empty() {
                    return Ok(None);
                }
                cell.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map(Some)
                    .ok_or_else(|| ReadError::NotNumber {
                        path: path.to_owned(),
                        line,
                        column: name.to_owned(),
                        value: cell.to_owned(),
                    })
            };
            match col {
                Column::Known("partial") => {
                    p.partial = matches!(cell, "true" | "1" | "yes");
                }
                Column::Known(name) => {
                    if let Some(v) = num(name)? {
                        known.insert(name, v);
                    }
                }
                Column::Status(code) => {
                    if let Some(v) = num(&code.to_string())? {
                        p.statuses.insert(*code, v);
                    }
                }
                Column::Probe(name) => {
                    if let Some(v) = num(name)? {
                        p.probes.insert(name.clone(), v);
                    }
                }
                Column::Ignored => {}
            }
        }
        // hakaru leaves latency cells empty for a step without responses (a 0 would
        // read as "infinitely fast"); keep them as not-a-number, shown as "–".
        for c in &DRNBENCH_COLUMNS[3..] {
            known.entry(c).or_insert(f64::NAN);
        }
        for c in DRNBENCH_COLUMNS {
            if !known.contains_key(c) {
                let i = headers.iter().position(|h| h == c).unwrap_or(0);
                return Err(ReadError::NotNumber {
                    path: path.to_owned(),
                    line,
                    column: c.to_owned(),
                    value: record.get(i).unwrap_or("").to_owned(),
                });
            }
        }
        from_columns(&mut p, &known, path, line)?;
        p.error_share = error_share(&p.statuses, &p.ok_status);
        any_partial |= p.partial;
        points.push(p);
    }
    Ok(Series {
        label: label_of(path),
        source: path.to_owned(),
        format,
        points,
        settings: None,
        machine: None,
        command_line: Vec::new(),
        tool: None,
        started_at: None,
        targets: Vec::new(),
        // The status columns' names say a SQL run's or a store's answers.
        named: crate::result::answers::csv_named_by(&headers),
        partial: any_partial,
        state: crate::result::RunState::from_partial(any_partial),
        points_are: Default::default(),
    })
}

/// A CSV row's named numbers into its point: clients (a whole number), counts,
/// latencies, rates and the error shares by kind.
fn from_columns(
    p: &mut Point,
    known: &BTreeMap<&'static str, f64>,
    path: &Path,
    line: u64,
) -> Result<(), ReadError> {
    let n_clients = known["n_clients"];
    if n_clients < 0.0 || n_clients.fract() != 0.0 {
        return Err(ReadError::Csv {
            path: path.to_owned(),
            line,
            message: format!("n_clients {n_clients} is not a whole number of clients"),
        });
    }
    p.n_clients = n_clients as usize;
    p.total_requests = known["total_n_requests"].max(0.0) as u64;
    p.qps = known["queries_per_second"];
    p.min_s = known["min_elapsed_time"];
    p.max_s = known["max_elapsed_time"];
    p.mean_s = known["average_elapsed_time"];
    p.p50_s = known.get("p50_elapsed_time").copied();
    p.p90_s = known.get("p90_elapsed_time").copied();
    p.p99_s = known.get("p99_elapsed_time").copied();
    p.client_cpu_share = known.get("client_cpu_share").copied();
    p.rate = known
        .get("rate")
        .copied()
        .filter(|r| r.is_finite() && *r > 0.0);
    p.late = known.get("late").map_or(0, |n| n.max(0.0) as u64);
    p.dropped = known.get("dropped").map_or(0, |n| n.max(0.0) as u64);
    for kind in crate::stats::ErrorKind::ALL {
        let col = format!("errors_{}", kind.as_str());
        if let Some(n) = known.get(col.as_str()) {
            if *n > 0.0 {
                p.errors
                    .insert(kind.as_str().to_owned(), share(*n as u64, p.total_requests));
            }
        }
    }
    Ok(())
}

/// Refuses latencies that cannot be seconds: a CSV whose latency columns were written
/// in milliseconds would otherwise draw charts a thousand times off.
fn check_units(series: &Series) -> Result<(), ReadError> {
    for (i, p) in series.points.iter().enumerate() {
        let at = match series.format {
            SourceFormat::HakaruJson => format!("step {}", i + 1),
            // Header is line 1; blank lines are rare enough to ignore here.
            _ => format!("line {}", i + 2),
        };
        let err = |detail: String| ReadError::MismatchedUnits {
            path: series.source.clone(),
            at: at.clone(),
            detail,
        };
        if p.min_s > p.mean_s * 1.000_001 + 1e-12 || p.mean_s > p.max_s * 1.000_001 + 1e-12 {
            return Err(err(format!(
                "latencies out of order (min {} s, mean {} s, max {} s): are the columns swapped?",
                p.min_s, p.mean_s, p.max_s
            )));
        }
        if p.min_s > 60.0 && p.qps > 10.0 {
            return Err(err(format!(
                "min_elapsed_time is {} s while the step ran {} queries per second; \
                 latencies must be in seconds (were they written in milliseconds?)",
                p.min_s, p.qps
            )));
        }
        // Little's law: in a closed model at most n_clients requests are in flight,
        // so qps × mean latency cannot be far above n_clients. Milliseconds in a
        // seconds column break this by about a thousand times. Not in the open model:
        // its latency counts from the due time, and an overloaded server's queue (the
        // requests waiting for a connection) has no bound but the step's length.
        let in_flight = p.qps * p.mean_s;
        if p.rate.is_none()
            && p.n_clients > 0
            && p.qps > 0.0
            && in_flight > 50.0 * p.n_clients as f64
        {
            return Err(err(format!(
                "{} queries per second at a mean latency of {} s would need {:.0} requests \
                 in flight, but the step had {} client{}; latencies must be in seconds \
                 (were they written in milliseconds?)",
                p.qps,
                p.mean_s,
                in_flight,
                p.n_clients,
                if p.n_clients == 1 { "" } else { "s" }
            )));
        }
    }
    Ok(())
}

/// Reads several files; labels are their stems unless `labels` gives them.
pub fn read_results(
    paths: &[PathBuf],
    labels: Option<&[String]>,
) -> Result<Vec<Series>, ReadError> {
    let mut out = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let mut s = read_result(p)?;
        if let Some(l) = labels.and_then(|l| l.get(i)) {
            s.label = l.clone();
        }
        out.push(s);
    }
    if labels.is_none() {
        // Two files with one stem (run.json, run.csv) would share a label: fall back to
        // the file name, then to the path as given.
        for level in 0..2 {
            let names: Vec<String> = out.iter().map(|s| s.label.clone()).collect();
            for s in out.iter_mut() {
                if names.iter().filter(|n| **n == s.label).count() > 1 {
                    s.label = if level == 0 {
                        s.source
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_else(|| s.source.display().to_string())
                    } else {
                        s.source.display().to_string()
                    };
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_written_by_hakaru_reads_back_with_its_probes() {
        use crate::result::{csv::to_csv, csv::CsvFormat, fixture};
        let mut step = fixture::bare_step(4);
        step.round = 2;
        step.cache_hit_rate = Some(0.5);
        let text = to_csv(&fixture::run(vec![step]), CsvFormat::Full);
        let s = read_csv(Path::new("r.csv"), &text).unwrap();
        assert_eq!(s.format, SourceFormat::HakaruCsv);
        assert_eq!(s.probe_names(), vec!["cache_hit_rate".to_string()]);
        assert_eq!(s.points[0].probes["cache_hit_rate"], 0.5);
    }

    /// A test's file in a folder of its own, both removed when dropped (the folders
    /// were left behind, one a test run).
    struct TempFile(PathBuf);

    impl std::ops::Deref for TempFile {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for TempFile {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }

    fn write(name: &str, text: &str) -> TempFile {
        let dir = std::env::temp_dir().join(format!("hakaru-read-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        TempFile(p)
    }

    #[test]
    fn drnbench_csv_with_several_status_columns() {
        let p = write(
            "multi.csv",
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,0,200,500\n\
             1,100,10.0,0.01,0.5,0.1,1.0,98.0,1.0\n\
             2,200,20.0,0.01,0.6,0.1,,100.0,\n",
        );
        let s = read_result(&p).unwrap();
        assert_eq!(s.format, SourceFormat::DrnbenchCsv);
        assert_eq!(s.points.len(), 2);
        assert_eq!(s.points[0].statuses[&0], 1.0);
        assert_eq!(s.points[0].statuses[&500], 1.0);
        assert!((s.points[0].error_share - 2.0).abs() < 1e-9);
        assert_eq!(s.points[1].error_share, 0.0);
        assert_eq!(s.status_codes(), vec![0, 200, 500]);
    }

    #[test]
    fn unknown_named_columns_are_probes() {
        let p = write(
            "probe.csv",
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,200,p50_elapsed_time,cache_hit_rate,p75_elapsed_time\n\
             1,100,10.0,0.01,0.5,0.1,100.0,0.09,0.5,0.1\n",
        );
        let s = read_result(&p).unwrap();
        assert_eq!(s.format, SourceFormat::HakaruCsv);
        assert_eq!(s.points[0].p50_s, Some(0.09));
        assert_eq!(s.probe_names(), vec!["cache_hit_rate".to_string()]);
    }

    #[test]
    fn bulk_columns_are_not_probes() {
        let p = write(
            "bulk.csv",
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,201,p50_elapsed_time,batch_size,writers,docs_acknowledged,docs_per_s,item_errors_conflict\n\
             1,10,5.0,0.01,0.5,0.1,100.0,0.09,100,1,990,495.0,10\n",
        );
        let s = read_result(&p).unwrap();
        assert_eq!(s.points.len(), 1);
        assert!(s.probe_names().is_empty(), "{:?}", s.probe_names());
    }

    #[test]
    fn bom_and_blank_lines_are_tolerated() {
        let p = write(
            "bom.csv",
            "\u{feff}n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,200\n\
             1,100,10.0,0.01,0.5,0.1,100.0\n\n",
        );
        assert_eq!(read_result(&p).unwrap().points.len(), 1);
    }

    #[test]
    fn empty_latency_cells_of_a_step_without_responses() {
        let p = write(
            "noresp.csv",
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,0,200,p50_elapsed_time\n\
             1,100,10.0,0.01,0.5,0.1,0,100.0,0.09\n\
             2,40,0,,,,100.0,0,\n",
        );
        let s = read_result(&p).unwrap();
        assert!(s.points[1].mean_s.is_nan());
        assert_eq!(s.points[1].p50_s, None);
        assert_eq!(s.points[1].error_share, 100.0);
        let e = std::fs::write(&p, "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time\n1,100,,0.1,0.2,0.1\n");
        e.unwrap();
        let e = read_result(&p).unwrap_err().to_string();
        assert!(e.contains("queries_per_second"), "{e}");
    }

    #[test]
    fn fractional_clients_are_refused() {
        let p = write(
            "frac.csv",
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time\n\
             1.5,100,10.0,0.01,0.5,0.1\n",
        );
        let e = read_result(&p).unwrap_err().to_string();
        assert!(e.contains("frac.csv") && e.contains("line 2"), "{e}");
    }
}
