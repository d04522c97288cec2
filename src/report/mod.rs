//! Writers and readers of results: CSV, JSON and terminal text for a run; readers of
//! hakaru's and drnbench's files; charts, HTML, Markdown and comparisons.
//!
//! Every writer is a pure function of a [`crate::result::RunResult`] or
//! [`crate::result::StepResult`] returning a `String`; choosing a file or stdout is the
//! caller's business. [`write_atomic`] is how callers put those bytes on disk.

pub mod chart;
pub mod compare;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod png;
pub mod read;
pub mod text;

#[cfg(test)]
pub(crate) mod fixture;

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

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

/// A float the way Ruby's `Float#to_s` prints it (and so drnbench's CSV): the shortest
/// text that reads back as the same number, always with a `.` or an exponent —
/// `100.0`, `33.2`, `0.019765581680722916`, `1.0e-05`, `1.0e+15`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-5".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Ruby's `flo_to_s`: `decpt` is where the decimal point falls relative to the
    // digits. Plain notation from 1e-4 up to 1e15 (beyond, only while no zero is padded).
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt > 0 && decpt < n {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{sign}{int}.{frac}")
    } else if decpt > 0 && decpt <= 15 {
        let zeros = "0".repeat((decpt - n) as usize);
        format!("{sign}{digits}{zeros}.0")
    } else if decpt <= 0 && decpt > -4 {
        let zeros = "0".repeat((-decpt) as usize);
        format!("{sign}0.{zeros}{digits}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}.{rest}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_ruby() {
        let cases = [
            (100.0, "100.0"),
            (33.2, "33.2"),
            (0.019765581680722916, "0.019765581680722916"),
            (0.001773766, "0.001773766"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-05"),
            (0.000012, "1.2e-05"),
            (1e14, "100000000000000.0"),
            (1e15, "1.0e+15"),
            (1234567890123456.8, "1234567890123456.8"),
            (1e16, "1.0e+16"),
            (1.5e300, "1.5e+300"),
            (-2.5, "-2.5"),
            (0.0, "0.0"),
            (12345.678, "12345.678"),
            (f64::NAN, "NaN"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:?}");
            if x.is_finite() {
                assert_eq!(float_repr(x).parse::<f64>().unwrap(), x);
            }
        }
    }

    #[test]
    fn atomic_write_replaces_and_creates_dirs() {
        let dir = std::env::temp_dir().join(format!("hakaru-report-{}", std::process::id()));
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
        let dir = std::env::temp_dir().join(format!("hakaru-report-err-{}", std::process::id()));
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
