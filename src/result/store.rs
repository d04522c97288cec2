//! Where a run's result files go, and how they get there: rewritten atomically after
//! every step, so a kill at any moment leaves whole, consistent files.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::csv::{to_csv, CsvFormat};
use super::json::to_json;
use super::RunResult;

/// Where a run writes its result files.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub csv: PathBuf,
    pub json: PathBuf,
    pub format: CsvFormat,
}

impl Outputs {
    /// The CSV and JSON result sit side by side: `x.csv` and `x.json` from either name.
    pub fn beside(path: &Path, format: CsvFormat) -> Outputs {
        let (csv, json) = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            (path.with_extension("csv"), path.to_path_buf())
        } else {
            (path.to_path_buf(), path.with_extension("json"))
        };
        Outputs { csv, json, format }
    }

    /// Rewrite both files from `run`, the JSON first (it holds everything; the CSV is
    /// derived from it).
    pub fn write(&self, run: &RunResult) -> Result<(), WriteError> {
        let write = |path: &Path, bytes: &[u8]| {
            write_atomic(path, bytes).map_err(|source| WriteError {
                path: path.to_owned(),
                source,
            })
        };
        write(&self.json, to_json(run).as_bytes())?;
        write(&self.csv, to_csv(run, self.format).as_bytes())
    }
}

/// A result file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write result file {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: io::Error,
}

/// Replace `path` with `bytes` so that a reader (or a crash) sees either the old file
/// or the new one, never a truncated mix.
///
/// Writes `.<name>.tmp-<pid>` in the same directory, fsyncs it, renames it over the
/// target and fsyncs the directory (best effort: not every filesystem allows it).
/// Missing parent directories are created. Errors keep their [`io::ErrorKind`] and
/// carry the path in their message (`"<path>: <cause>"`), so callers can print them
/// as they are.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let named = |what: &str, p: &Path, e: io::Error| {
        io::Error::new(e.kind(), format!("{}: {what}: {e}", p.display()))
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(|e| named("cannot create directory", dir, e))?;

    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);

    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(named("cannot write", &tmp, e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(named("cannot replace", path, e));
    }
    // The rename is only durable once the directory entry is; not fatal if refused.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_sit_side_by_side() {
        let o = Outputs::beside(Path::new("out/groonga-result.csv"), CsvFormat::Full);
        assert_eq!(o.json, Path::new("out/groonga-result.json"));
        let o = Outputs::beside(Path::new("r.json"), CsvFormat::Full);
        assert_eq!(o.csv, Path::new("r.csv"));
    }

    #[test]
    fn atomic_write_replaces_and_creates_dirs() {
        let dir = std::env::temp_dir().join(format!("hakaru-store-{}", std::process::id()));
        let path = dir.join("sub/result.csv");
        write_atomic(&path, b"first\n").unwrap();
        write_atomic(&path, b"second\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second\n");
        let leftovers: Vec<_> = fs::read_dir(dir.join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("result.csv")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_write_error_names_the_path() {
        let dir = std::env::temp_dir().join(format!("hakaru-store-err-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        // A directory where the file should go: the rename must fail.
        let path = dir.join("taken");
        fs::create_dir_all(path.join("inner")).unwrap();
        let err = write_atomic(&path, b"x").unwrap_err();
        assert!(err.to_string().contains("taken"), "{err}");
        let leftovers = fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "temp file removed after failure");
        fs::remove_dir_all(&dir).unwrap();
    }
}
