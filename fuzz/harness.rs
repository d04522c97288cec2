//! The stdlib fuzz harness: runs hakaru's fuzz targets ([`hakaru::fuzz`]) on random and
//! mutated inputs without cargo-fuzz or nightly, for CI's smoke runs and `bench/fuzz.sh`.
//!
//! `cargo run --example fuzz -- [TARGET|all] [RUNS] [SEED]` (`all`: fewer for the slow
//! targets, [`hakaru::fuzz::runs_for`]) prints one line per target
//! (executions, crashes, seconds), writes each crash to `fuzz/artifacts/TARGET/` and
//! exits 1 when any target crashed. `cargo run --example fuzz -- seeds TARGET DIR`
//! writes the target's seed inputs into DIR, as a corpus for cargo-fuzz.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cmd, name, dir] = &args[..] {
        if cmd == "seeds" {
            std::fs::create_dir_all(dir).expect("corpus directory");
            for (i, seed) in hakaru::fuzz::seeds(name).iter().enumerate() {
                std::fs::write(std::path::Path::new(dir).join(format!("seed-{i}")), seed)
                    .expect("seed written");
            }
            return;
        }
    }
    let which = args.first().map_or("all", String::as_str);
    let runs: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    // `all N` scales N down for the slow targets; a named target gets exactly N.
    let scaled = |name: &str| {
        if which == "all" {
            hakaru::fuzz::runs_for(name, runs)
        } else {
            runs
        }
    };
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let targets: Vec<_> = hakaru::fuzz::TARGETS
        .iter()
        .filter(|(name, _)| which == "all" || which == *name)
        .collect();
    if targets.is_empty() {
        let names: Vec<&str> = hakaru::fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "unknown fuzz target {which:?}; targets: {}",
            names.join(", ")
        );
        std::process::exit(2);
    }
    // A caught panic prints its message once per crash; the summary line says enough.
    std::panic::set_hook(Box::new(|_| {}));
    let mut crashed = false;
    for (name, target) in targets {
        let t0 = Instant::now();
        let out = hakaru::fuzz::run(*target, &hakaru::fuzz::seeds(name), scaled(name), seed);
        println!(
            "{name}: {} executions, {} crashes, {:.1} s",
            out.executions,
            out.crashes.len(),
            t0.elapsed().as_secs_f64()
        );
        for input in &out.crashes {
            crashed = true;
            let dir = std::path::Path::new("fuzz/artifacts").join(name);
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("crash-{:016x}", fnv(input)));
            let _ = std::fs::write(&path, input);
            println!("  crash: {}", path.display());
        }
    }
    std::process::exit(i32::from(crashed));
}

/// A stable name for an input.
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}
