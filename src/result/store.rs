//! Where a run's result files go, and how they get there: rewritten atomically after
//! every step, so a kill at any moment leaves whole, consistent files.
//!
//! Two files cannot be replaced in one atomic step, so the pair is committed in two
//! phases: both temporaries are written and fsynced first (the slow part, where a kill
//! is likely), then renamed back to back, the CSV first and the JSON last, and the
//! directory fsynced once. A kill can leave the pair disagreeing only between those
//! two adjacent `rename` calls, and then in one known shape: the CSV one step ahead,
//! the JSON (which readers trust, and whose `state` says `running`) the previous whole
//! file, and the newer JSON still in its temporary. The temporaries carry the writer's
//! pid; a later run over the same files removes those whose writer is gone
//! ([`Outputs::clean_stale`]), so a kill leaves no litter behind for long.

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

    /// Rewrite both files from `run`: both temporaries first, then the CSV renamed into
    /// place and the JSON last (see the module's documentation for why).
    pub fn write(&self, run: &RunResult) -> Result<(), WriteError> {
        // A second Ctrl-C waits for both files rather than cutting them in half.
        let _hold = crate::engine::hold_exit();
        let err = |path: &Path| {
            let path = path.to_owned();
            move |source| WriteError { path, source }
        };
        let csv_tmp =
            write_temp(&self.csv, to_csv(run, self.format).as_bytes()).map_err(err(&self.csv))?;
        let json_tmp = match write_temp(&self.json, to_json(run).as_bytes()) {
            Ok(t) => t,
            Err(e) => {
                let _ = fs::remove_file(&csv_tmp);
                return Err(err(&self.json)(e));
            }
        };
        // The two renames are back to back (no fsync between them) so the window in
        // which a kill leaves the pair disagreeing is as small as two system calls.
        if let Err(e) = rename(&csv_tmp, &self.csv) {
            let _ = fs::remove_file(&json_tmp);
            return Err(err(&self.csv)(e));
        }
        rename(&json_tmp, &self.json).map_err(err(&self.json))?;
        sync_dir(&self.json);
        Ok(())
    }

    /// Remove temporaries that an earlier writer of these files left when it was killed
    /// (their pid is no longer running). Returns how many were removed.
    pub fn clean_stale(&self) -> usize {
        [&self.csv, &self.json]
            .iter()
            .map(|p| clean_stale_temps(p))
            .sum()
    }
}

/// The temporary beside `path` that this process writes: `.<name>.tmp-<pid>`.
fn temp_path(path: &Path) -> io::Result<(PathBuf, PathBuf)> {
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
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    Ok((dir.to_path_buf(), dir.join(tmp_name)))
}

/// `.<name>.tmp-<pid>` files beside `path` whose process is gone, removed.
fn clean_stale_temps(path: &Path) -> usize {
    let Ok((dir, _)) = temp_path(path) else {
        return 0;
    };
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return 0;
    };
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = fs::read_dir(&dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Write `bytes` to this process's temporary beside `path` and fsync it; returns the
/// temporary's path. Missing parent directories are created.
fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let named = |what: &str, p: &Path, e: io::Error| {
        io::Error::new(e.kind(), format!("{}: {what}: {e}", p.display()))
    };
    let (dir, tmp) = temp_path(path)?;
    fs::create_dir_all(&dir).map_err(|e| named("cannot create directory", &dir, e))?;
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(named("cannot write", &tmp, e));
    }
    Ok(tmp)
}

/// Rename a temporary over `path`; the temporary is removed if that fails.
fn rename(tmp: &Path, path: &Path) -> io::Result<()> {
    fs::rename(tmp, path).map_err(|e| {
        let _ = fs::remove_file(tmp);
        io::Error::new(e.kind(), format!("{}: cannot replace: {e}", path.display()))
    })
}

/// fsync the directory holding `path`: a rename is only durable once the directory
/// entry is. Best effort: not every filesystem allows it.
fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Rename a temporary over `path` and fsync the directory.
fn commit(tmp: &Path, path: &Path) -> io::Result<()> {
    rename(tmp, path)?;
    sync_dir(path);
    Ok(())
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
    let tmp = write_temp(path, bytes)?;
    commit(&tmp, path)
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

    #[test]
    fn stale_temporaries_of_dead_writers_are_removed() {
        let dir = std::env::temp_dir().join(format!("hakaru-store-stale-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let o = Outputs::beside(&dir.join("r.csv"), CsvFormat::Full);
        // No process has pid 0x7fff_fff0 (above Linux's pid_max); pid 1 always runs.
        fs::write(dir.join(".r.json.tmp-2147483632"), "{").unwrap();
        fs::write(dir.join(".r.csv.tmp-1"), "x").unwrap();
        fs::write(dir.join(".other.csv.tmp-2147483632"), "x").unwrap();
        assert_eq!(o.clean_stale(), 1);
        assert!(!dir.join(".r.json.tmp-2147483632").exists());
        assert!(
            dir.join(".r.csv.tmp-1").exists(),
            "a live writer's file stays"
        );
        assert!(dir.join(".other.csv.tmp-2147483632").exists(), "not ours");
        fs::remove_dir_all(&dir).unwrap();
    }
}
