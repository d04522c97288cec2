//! The one way hakaru puts bytes where a user pointed, shared by the result store
//! (rewritten after every step) and `report::output` (every report, JUnit and
//! Markdown file):
//!
//! - a regular file (or nothing yet) is replaced atomically: a temporary beside it,
//!   created with `O_CREAT|O_EXCL|O_NOFOLLOW` under an unpredictable name (a symlink
//!   planted where the temporary will be is never followed), fsynced, renamed over the
//!   target, the directory fsynced;
//! - a device or a FIFO (`/dev/null`, `/dev/stdout`, a named pipe) is written through,
//!   never renamed over: replacing `/dev/null` with a regular file breaks the machine;
//! - `-` is standard output;
//! - a directory is refused.
//!
//! [`check`] asks the same questions before any load, so a path that cannot be
//! written is refused before anything is measured; [`keep`] puts bytes that could not
//! go where they were meant in the temporary directory, so a measurement is never
//! thrown away. [`hold_exit`] keeps a second signal from exiting mid-write. A missing
//! parent directory is an error unless the command was given `--create-dirs`
//! ([`create_dirs`]; curl's flag): a typo in `-o` must not become a new directory
//! tree found after an hour's run. Depends on nothing else in the crate.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// `--create-dirs`: missing parent directories of an output are created.
static CREATE_DIRS: AtomicBool = AtomicBool::new(false);

/// Whether missing parent directories of outputs are created (`--create-dirs`, set
/// once by the command line before anything is checked or written).
pub fn create_dirs(yes: bool) {
    CREATE_DIRS.store(yes, Ordering::Relaxed);
}

/// `dir` exists, or is created when `--create-dirs` asks; `Ok(true)` when created.
fn ensure_dir(dir: &Path) -> io::Result<bool> {
    if dir.is_dir() {
        return Ok(false);
    }
    if !CREATE_DIRS.load(Ordering::Relaxed) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "directory {} does not exist (create it, or add --create-dirs)",
                dir.display()
            ),
        ));
    }
    fs::create_dir_all(dir).map_err(|e| named(dir, "cannot create directory", e))?;
    Ok(true)
}

/// How bytes reach a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `-`: standard output.
    Stdout,
    /// A regular file, or nothing yet: replaced atomically.
    File,
    /// A device, FIFO or socket: opened and written through.
    Through,
}

/// An error that names its path: `"<path>: <what>: <cause>"`, keeping the kind.
fn named(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {what}: {e}", path.display()))
}

/// How `path` is written; a directory is refused.
pub fn target(path: &Path) -> io::Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("{}: is a directory, not a file", path.display()),
        )),
        Ok(m) if m.is_file() => Ok(Target::File),
        Ok(_) => Ok(Target::Through),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::File),
        Err(e) => Err(named(path, "cannot look at it", e)),
    }
}

/// True when `path` is `-` or an existing device or FIFO: written once, through, and
/// without a JSON beside it (a file beside `/dev/null` is not what anyone asked for).
pub fn is_through(path: &Path) -> bool {
    matches!(target(path), Ok(Target::Stdout | Target::Through))
}

/// Put `bytes` at `path` as [`Target`] says. Errors carry the path in their message.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match target(path)? {
        Target::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
                })
        }
        Target::Through => OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(|e| named(path, "cannot write", e)),
        Target::File => {
            let tmp = write_temp(path, bytes)?;
            commit(&tmp, path)
        }
    }
}

/// The directory `path` is in (`.` for a bare name).
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Eight unpredictable bytes as hex, from the system's generator.
fn random_hex() -> String {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 8];
    if ring::rand::SystemRandom::new().fill(&mut b).is_err() {
        // Not reached on Linux; the exclusive create still refuses anything planted.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        b = (t.as_nanos() as u64).to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The start of every temporary this process and others write beside `path`:
/// `.<name>.tmp-`, followed by the writer's pid, `-` and a random part.
fn temp_prefix(path: &Path) -> io::Result<String> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name", path.display()),
        )
    })?;
    Ok(format!(".{}.tmp-", name.to_string_lossy()))
}

/// Create a new file exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`): whatever already sits
/// at `path`, a symlink included, makes this fail instead of being written through.
fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// A new temporary in `dir` named `<prefix><pid>-<random>`, created exclusively
/// (a few names are tried should one be taken).
fn create_temp(dir: &Path, prefix: &str, mode: u32) -> io::Result<(File, PathBuf)> {
    let mut last = None;
    for _ in 0..8 {
        let tmp = dir.join(format!("{prefix}{}-{}", std::process::id(), random_hex()));
        match create_new(&tmp, mode) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(named(&tmp, "cannot create", e)),
        }
    }
    Err(named(
        dir,
        "cannot create a temporary",
        last.unwrap_or_else(|| io::Error::other("every name taken")),
    ))
}

/// Write `bytes` to a new temporary beside `path` and fsync it; returns the
/// temporary's path. A missing parent directory is refused, or created with
/// `--create-dirs`.
pub fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let dir = dir_of(path);
    ensure_dir(dir)?;
    let (mut f, tmp) = create_temp(dir, &temp_prefix(path)?, 0o666)?;
    if let Err(e) = f.write_all(bytes).and_then(|()| f.sync_all()) {
        let _ = fs::remove_file(&tmp);
        return Err(named(&tmp, "cannot write", e));
    }
    Ok(tmp)
}

/// Rename a temporary over `path`; the temporary is removed if that fails. Refuses
/// to rename over anything but a regular file (or nothing): it may have become a
/// device or a FIFO since the temporary was written.
pub fn rename(tmp: &Path, path: &Path) -> io::Result<()> {
    let result = match fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: it is never replaced",
        )),
        _ => fs::rename(tmp, path),
    };
    result.map_err(|e| {
        let _ = fs::remove_file(tmp);
        named(path, "cannot replace", e)
    })
}

/// fsync the directory holding `path`: a rename is only durable once the directory
/// entry is. Best effort: not every filesystem allows it.
pub fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(dir_of(path)) {
        let _ = d.sync_all();
    }
}

/// Rename a temporary over `path` and fsync the directory.
pub fn commit(tmp: &Path, path: &Path) -> io::Result<()> {
    rename(tmp, path)?;
    sync_dir(path);
    Ok(())
}

/// Remove temporaries beside `path` whose writer is gone (a killed earlier run).
/// Returns how many were removed.
pub fn clean_stale(path: &Path) -> usize {
    let Ok(prefix) = temp_prefix(path) else {
        return 0;
    };
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|p| p.split('-').next())
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

/// `/dev/full`: a device every write fails on.
fn is_dev_full(m: &fs::Metadata) -> bool {
    m.file_type().is_char_device() && m.rdev() == rustix::fs::makedev(1, 7) as u64
}

/// Before any load: can `path` be written? Its directory exists (refused when
/// missing; created with `--create-dirs`, and returned so the caller can say so), it
/// is not a directory nor `/dev/full`, and a file can be created beside it (or the
/// device opened).
pub fn check(path: &Path) -> io::Result<Option<PathBuf>> {
    match target(path)? {
        Target::Stdout => Ok(None),
        Target::Through => {
            let m = fs::metadata(path).map_err(|e| named(path, "cannot look at it", e))?;
            if is_dev_full(&m) {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    format!("{}: every write to it fails (no space)", path.display()),
                ));
            }
            rustix::fs::access(path, rustix::fs::Access::WRITE_OK)
                .map_err(|e| named(path, "cannot write", e.into()))?;
            Ok(None)
        }
        Target::File => {
            let dir = dir_of(path);
            let created = ensure_dir(dir)?.then(|| dir.to_path_buf());
            let (_, probe) = create_temp(dir, &temp_prefix(path)?, 0o600)
                .map_err(|e| named(path, "cannot write", e))?;
            let _ = fs::remove_file(probe);
            Ok(created)
        }
    }
}

/// Is `output` the very file `input` is, by identity (device and inode, links
/// followed), so that writing it would replace the input? A symlink or a hard link to
/// an input is caught, not only the same spelling. An output that does not exist yet,
/// `-`, or a device or FIFO written through, replaces nothing.
pub fn replaces(output: &Path, input: &Path) -> bool {
    if is_through(output) {
        return false;
    }
    match (fs::metadata(output), fs::metadata(input)) {
        (Ok(o), Ok(i)) => o.dev() == i.dev() && o.ino() == i.ino(),
        _ => false,
    }
}

/// Keep `bytes` that could not go where they were meant: a new file in the temporary
/// directory (`$TMPDIR`, else `/tmp`) named `hakaru-<random>-<name>`, readable by its
/// owner only. Returns its path, for the message that names it.
pub fn keep(name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    let dir = std::env::temp_dir();
    let (mut f, path) = create_temp(&dir, "hakaru-", 0o600)?;
    f.write_all(bytes).and_then(|()| f.sync_all())?;
    drop(f);
    // The random part first (created exclusively above), the meaningful name last.
    let named_path = dir.join(format!(
        "{}-{name}",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    match create_new(&named_path, 0o600) {
        Ok(_) => {
            fs::rename(&path, &named_path)?;
            Ok(named_path)
        }
        Err(_) => Ok(path),
    }
}

/// Held while result files are written; a second signal waits for it before exiting,
/// so no write is cut in half (a stray temporary, no result).
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds off a second signal's exit until the guard drops: taken around the writing
/// of a run's files.
pub fn hold_exit() -> std::sync::MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hakaru-outfile-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn dev_null_is_written_through_not_replaced() {
        write(Path::new("/dev/null"), b"x").unwrap();
        let m = fs::metadata("/dev/null").unwrap();
        assert!(
            m.file_type().is_char_device(),
            "/dev/null is still a device"
        );
        assert_eq!(target(Path::new("/dev/null")).unwrap(), Target::Through);
        assert!(is_through(Path::new("-")));
    }

    /// Bug (issue 20): the temporary `.NAME.tmp-PID` was created with `File::create`, so
    /// `ln -s victim .x.csv.tmp-$PID` during a run made hakaru overwrite `victim`.
    #[test]
    fn regression_a_symlinked_temporary_is_not_followed() {
        let d = scratch("symlink");
        let victim = d.join("victim");
        fs::write(&victim, "keep me").unwrap();
        // Whatever name the temporary takes, an exclusive create refuses a symlink.
        let planted = d.join(".r.csv.tmp-planted");
        symlink(&victim, &planted).unwrap();
        assert!(create_new(&planted, 0o600).is_err());
        write(&d.join("r.csv"), b"result").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(fs::read_to_string(d.join("r.csv")).unwrap(), "result");
        // The temporary's name is not the pid alone: nobody can plant it in advance.
        let (_, a) = create_temp(&d, ".r.csv.tmp-", 0o600).unwrap();
        let (_, b) = create_temp(&d, ".r.csv.tmp-", 0o600).unwrap();
        assert_ne!(a, b);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unwritable_paths_are_refused_by_the_check() {
        assert!(check(Path::new("/proc/nope/r.csv")).is_err());
        assert!(check(Path::new("/dev/full")).is_err());
        let d = scratch("check");
        assert!(check(&d).is_err(), "a directory");
        fs::create_dir_all(d.join("new/sub")).unwrap();
        assert_eq!(check(&d.join("new/sub/r.csv")).unwrap(), None);
        assert_eq!(
            fs::read_dir(d.join("new/sub")).unwrap().count(),
            0,
            "no probe left"
        );
        assert_eq!(check(Path::new("/dev/null")).unwrap(), None);
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 35: `-o typo/r.csv` made the directory `typo` silently. A missing
    /// directory is refused, naming it, unless `--create-dirs` asks for it. (One test:
    /// the flag is process-wide.)
    #[test]
    fn o_does_not_create_missing_directories_unless_asked() {
        let d = scratch("mkdir");
        let path = d.join("new/sub/r.csv");
        let e = check(&path).unwrap_err();
        let said = e.to_string();
        assert!(
            said.contains(&format!(
                "directory {} does not exist",
                d.join("new/sub").display()
            )),
            "{said}"
        );
        assert!(said.contains("--create-dirs"), "{said}");
        assert!(write(&path, b"x").is_err());
        assert!(!d.join("new").exists(), "nothing made");
        create_dirs(true);
        let created = check(&path);
        let written = write(&d.join("other/r.csv"), b"x");
        create_dirs(false);
        assert_eq!(created.unwrap(), Some(d.join("new/sub")));
        written.unwrap();
        assert_eq!(fs::read_to_string(d.join("other/r.csv")).unwrap(), "x");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn kept_bytes_are_named() {
        let p = keep("r.json", b"{}").unwrap();
        assert!(
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .ends_with("-r.json"),
            "{p:?}"
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), "{}");
        fs::remove_file(p).unwrap();
    }

    #[test]
    fn stale_temporaries_are_found_by_pid() {
        let d = scratch("stale");
        fs::write(d.join(".r.json.tmp-2147483632-00ff"), "{").unwrap();
        fs::write(d.join(".r.json.tmp-2147483632"), "{").unwrap();
        fs::write(d.join(".r.json.tmp-1-abcd"), "{").unwrap();
        assert_eq!(clean_stale(&d.join("r.json")), 2);
        assert!(d.join(".r.json.tmp-1-abcd").exists());
        fs::remove_dir_all(&d).unwrap();
    }
}
