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

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::outfile::{self, Target};

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
        let _hold = crate::outfile::hold_exit();
        let err = |path: &Path| {
            let path = path.to_owned();
            move |source| WriteError { path, source }
        };
        let csv = to_csv(run, self.format);
        // A device, FIFO or `-` is written through, never renamed over
        // (`-o /dev/null` must leave /dev/null a device).
        if outfile::target(&self.csv).map_err(err(&self.csv))? != Target::File {
            return outfile::write(&self.csv, csv.as_bytes()).map_err(err(&self.csv));
        }
        let csv_tmp = outfile::write_temp(&self.csv, csv.as_bytes()).map_err(err(&self.csv))?;
        let json_tmp = match outfile::write_temp(&self.json, to_json(run).as_bytes()) {
            Ok(t) => t,
            Err(e) => {
                let _ = fs::remove_file(&csv_tmp);
                return Err(err(&self.json)(e));
            }
        };
        // The two renames are back to back (no fsync between them) so the window in
        // which a kill leaves the pair disagreeing is as small as two system calls.
        if let Err(e) = outfile::rename(&csv_tmp, &self.csv) {
            let _ = fs::remove_file(&json_tmp);
            return Err(err(&self.csv)(e));
        }
        outfile::rename(&json_tmp, &self.json).map_err(err(&self.json))?;
        outfile::sync_dir(&self.json);
        Ok(())
    }

    /// Remove temporaries that an earlier writer of these files left when it was killed
    /// (their pid is no longer running). Returns how many were removed.
    pub fn clean_stale(&self) -> usize {
        [&self.csv, &self.json]
            .iter()
            .map(|p| outfile::clean_stale(p))
            .sum()
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
/// or the new one, never a truncated mix; a device, FIFO or `-` is written through
/// ([`crate::outfile::write`], which says how). Missing parent directories are
/// created. Errors keep their [`io::ErrorKind`] and carry the path in their message
/// (`"<path>: <cause>"`), so callers can print them as they are.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    outfile::write(path, bytes)
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
    fn atomic_write_replaces_and_leaves_nothing_beside() {
        let dir = std::env::temp_dir().join(format!("hakaru-store-{}", std::process::id()));
        let path = dir.join("sub/result.csv");
        // Its directory exists: a missing one is `--create-dirs`' (outfile's tests).
        fs::create_dir_all(dir.join("sub")).unwrap();
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
        fs::write(dir.join(".r.json.tmp-2147483632-00"), "{").unwrap();
        fs::write(dir.join(".r.csv.tmp-1"), "x").unwrap();
        fs::write(dir.join(".other.csv.tmp-2147483632"), "x").unwrap();
        assert_eq!(o.clean_stale(), 1);
        assert!(!dir.join(".r.json.tmp-2147483632-00").exists());
        assert!(
            dir.join(".r.csv.tmp-1").exists(),
            "a live writer's file stays"
        );
        assert!(dir.join(".other.csv.tmp-2147483632").exists(), "not ours");
        fs::remove_dir_all(&dir).unwrap();
    }
}
