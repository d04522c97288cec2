//! Output paths end to end (issue 20 item 1, issue 19 item 2): every write goes
//! through `report::output`/`outfile`; these pin the bugs that made it so.

use std::path::Path;

use crate::report::{fixture, temp_dir};

/// Bug: `run -n 5 -o /dev/null URL` replaced /dev/null with a regular file (the
/// atomic rename landed over the device) and wrote /dev/null.json.
#[test]
fn regression_dev_null_is_written_through_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let t = crate::util::target();
    let url = format!("http://{}/", t.addr);
    crate::util::ok(&crate::util::run(&[
        "run",
        "-c",
        "1",
        "-n",
        "5",
        "-o",
        "/dev/null",
        &url,
    ]));
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(
        m.file_type().is_char_device(),
        "/dev/null is still a device"
    );
    assert!(
        !Path::new("/dev/null.json").exists(),
        "no JSON beside a device"
    );
}

/// Bug: `run -d 2s -o /proc/nope/r.csv URL` ran the load, then failed to write and lost
/// the measurement. Now refused before any load, with exit 2.
#[test]
fn regression_unwritable_path_is_refused_before_the_load() {
    let t = crate::util::target();
    let url = format!("http://{}/", t.addr);
    let o = crate::util::run(&["run", "-d", "2s", "-o", "/proc/nope/r.csv", &url]);
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
    assert!(
        crate::util::stderr(&o).contains("/proc/nope"),
        "{}",
        crate::util::stderr(&o)
    );
    assert_eq!(t.stats.requests(), 0, "nothing was sent");
    // A directory where the file should go, and /dev/full, are refused the same way.
    let d = temp_dir("unwritable");
    let o = crate::util::run(&["run", "-n", "5", "-o", d.to_str().unwrap(), &url]);
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
    let o = crate::util::run(&[
        "run",
        "-n",
        "5",
        "--threshold",
        "p99<1s",
        "--junit",
        "/dev/full",
        &url,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
    assert_eq!(t.stats.requests(), 0, "nothing was sent");
    // Issue 35: a missing directory is refused before any load, named, unless
    // --create-dirs asks for it; then it is created and the line says so.
    let into_new = d.join("new/r.csv");
    let o = crate::util::run(&["run", "-n", "5", "-o", into_new.to_str().unwrap(), &url]);
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
    let said = crate::util::stderr(&o);
    assert!(
        said.contains(&format!(
            "directory {} does not exist",
            d.join("new").display()
        )) && said.contains("--create-dirs"),
        "{said}"
    );
    assert!(!d.join("new").exists());
    assert_eq!(t.stats.requests(), 0, "nothing was sent");
    let o = crate::util::run(&[
        "run",
        "-n",
        "5",
        "--create-dirs",
        "-o",
        into_new.to_str().unwrap(),
        &url,
    ]);
    crate::util::ok(&o);
    assert!(
        crate::util::stderr(&o).contains("Created directory"),
        "{}",
        crate::util::stderr(&o)
    );
    assert!(d.join("new/r.json").is_file());
    let _ = std::fs::remove_dir_all(&d);
}

/// Bug: when the result could not be written at the end (a full or read-only
/// directory), hakaru removed both files and printed no summary. Now the summary is
/// printed and the result kept in a temporary file named in the message (exit 1).
#[test]
fn regression_a_failed_write_keeps_the_result_in_a_named_temporary() {
    let t = crate::util::target();
    let url = format!("http://{}/", t.addr);
    let d = temp_dir("keep");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let child = crate::util::hakaru()
        .args([
            "run",
            "-c",
            "1",
            "-d",
            "3s",
            "-o",
            out.join("r.csv").to_str().unwrap(),
            &url,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run is under way, its directory becomes a file: nothing can be
    // written there (not even by root).
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::write(&out, "not a directory").unwrap();
    let o = child.wait_with_output().unwrap();
    let (so, se) = (crate::util::stdout(&o), crate::util::stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{so}\n{se}");
    assert!(so.contains("Requests"), "the summary is printed: {so}");
    let kept = se
        .split("the result is kept in ")
        .nth(1)
        .and_then(|s| s.split(" (").next())
        .unwrap_or_else(|| panic!("names the kept file: {se}"));
    let json = crate::util::read_json(Path::new(kept));
    assert!(json["steps"][0]["responses"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_file(kept);
    let _ = std::fs::remove_dir_all(&d);
}

/// Bug: `report -o -` and `merge -o -` wrote files named `-`.
#[test]
fn regression_dash_means_stdout_for_report() {
    let d = temp_dir("dash");
    let o = crate::util::hakaru()
        .current_dir(&d)
        .args([
            "report",
            fixture("groonga-result.csv").to_str().unwrap(),
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    let so = crate::util::ok(&o);
    assert!(so.contains("<html"), "the page on stdout");
    assert!(!d.join("-").exists(), "no file named -");
    let _ = std::fs::remove_dir_all(&d);
}

/// Bug: `merge … -o -` wrote files named `-` and `-.json`; now the merged JSON result
/// goes to stdout and no file is written.
#[test]
fn regression_dash_means_stdout_for_merge() {
    let t = crate::util::target();
    let url = format!("http://{}/", t.addr);
    let d = temp_dir("merge-dash");
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let p = d.join(format!("s{k}.json"));
            let shard = format!("{k}/2");
            crate::util::ok(&crate::util::run(&[
                "run",
                "--shard",
                &shard,
                "-c",
                "2",
                "-n",
                "20",
                "-o",
                p.to_str().unwrap(),
                &url,
            ]));
            p.to_str().unwrap().to_owned()
        })
        .collect();
    let o = crate::util::hakaru()
        .current_dir(&d)
        .args(["merge", &shards[0], &shards[1], "-o", "-"])
        .output()
        .unwrap();
    let so = crate::util::ok(&o);
    let v: serde_json::Value = serde_json::from_str(&so).expect("stdout is the merged JSON");
    assert_eq!(v["steps"][0]["total_requests"].as_u64(), Some(20), "{so}");
    assert!(crate::util::stderr(&o).contains("Merged 2 of 2 shards"));
    assert!(
        !d.join("-").exists() && !d.join("-.json").exists(),
        "no file named -"
    );
    let _ = std::fs::remove_dir_all(&d);
}
