//! `hakaru ramp`: drnbench-request-response's progressive benchmark; its flags work as they are.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

use super::args::{parse_duration, RequestArgs, SessionArgs};
use crate::console::Console;
use crate::engine::{RateProfile, StepSpec};
use crate::result::{LoadModel, Mode};
use crate::runner::{self, client_steps, RunSpec};

#[derive(Args, Debug)]
pub struct RampArgs {
    /// Clients in the first step (0 runs 1 client, as in drnbench).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub start_n_clients: usize,

    /// Clients in the last step. With --rate: the connections each step may use.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub end_n_clients: usize,

    /// Clients added at each step.
    #[arg(long, default_value_t = 1, value_name = "COUNT")]
    pub step: usize,

    /// Duration of each step (seconds, or 30s, 2m).
    #[arg(long, default_value = "30", value_parser = parse_duration)]
    pub duration: Duration,

    /// Pause between steps (seconds, or 10s).
    #[arg(long, default_value = "10", value_parser = parse_duration)]
    pub interval: Duration,

    /// Open model: one step per rate (req/s). A list (100,200,400) or a ramp START:END:STEP.
    #[arg(long, value_name = "RATES")]
    pub rate: Option<String>,

    /// Where to write the CSV result (the JSON result goes beside it).
    #[arg(short = 'o', long, default_value = "hakaru-result.csv")]
    pub output_path: PathBuf,

    #[command(flatten)]
    pub request: RequestArgs,

    #[command(flatten)]
    pub session: SessionArgs,
}

/// "100,200,400" or "100:1000:100" (and mixes of both) into a list of rates.
pub fn parse_rates(s: &str) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let nums: Vec<f64> = part
            .split(':')
            .map(|n| {
                n.trim()
                    .parse::<f64>()
                    .map_err(|_| anyhow::anyhow!("--rate: \"{n}\" in \"{part}\" is not a number"))
            })
            .collect::<Result<_>>()?;
        match nums[..] {
            [r] => out.push(r),
            [a, b, step] => {
                if step.is_nan() || step <= 0.0 || b < a {
                    bail!("--rate {part}: expected START:END:STEP with END >= START and STEP > 0");
                }
                let mut r = a;
                while r <= b + 1e-9 && out.len() < 10_000 {
                    out.push(r);
                    r += step;
                }
            }
            _ => bail!("--rate: \"{part}\" is neither a rate nor START:END:STEP"),
        }
    }
    if out.is_empty() {
        bail!("--rate: no rates given");
    }
    if let Some(bad) = out.iter().find(|r| {
        !(r.is_finite()
            && (crate::engine::pacer::MIN_RATE..=crate::engine::pacer::MAX_RATE).contains(*r))
    }) {
        bail!(
            "--rate: every rate must be between {} and {} requests per second, found {bad}",
            crate::engine::pacer::MIN_RATE,
            crate::engine::pacer::MAX_RATE
        );
    }
    Ok(out)
}

pub fn run(args: RampArgs, command_line: Vec<String>) -> Result<i32> {
    if args.step == 0 {
        bail!("--step must be at least 1");
    }
    if args.end_n_clients < args.start_n_clients {
        bail!(
            "--end-n-clients ({}) is below --start-n-clients ({})",
            args.end_n_clients,
            args.start_n_clients
        );
    }
    if args.duration.is_zero() {
        bail!("--duration must be positive");
    }
    let steps: Vec<StepSpec> = match &args.rate {
        Some(r) => parse_rates(r)?
            .into_iter()
            .map(|rate| -> Result<StepSpec> {
                Ok(StepSpec {
                    n_clients: args.end_n_clients.max(1),
                    duration: Some(args.duration),
                    n_requests: None,
                    rate: Some(Arc::new(RateProfile::constant(rate)?)),
                })
            })
            .collect::<Result<_>>()?,
        None => client_steps(args.start_n_clients, args.end_n_clients, args.step)
            .into_iter()
            .map(|n| StepSpec {
                n_clients: n,
                duration: Some(args.duration),
                n_requests: None,
                rate: None,
            })
            .collect(),
    };
    let prepared = args.request.prepare(args.end_n_clients)?;
    let mut settings = prepared.settings.clone();
    settings.duration_s = Some(args.duration.as_secs_f64());
    settings.interval_s = args.interval.as_secs_f64();
    if args.rate.is_some() {
        settings.model = LoadModel::Open;
    }
    let mut spec = RunSpec {
        mode: Mode::Ramp,
        command_line,
        steps,
        interval: args.interval,
        settings,
        outputs: args
            .request
            .outputs(Some(&args.output_path), prepared.format),
        ..RunSpec::default()
    };
    args.session
        .apply(&mut spec, &prepared.plan, args.request.default_timeout)?;
    let stop = super::ctrl_c_stop();
    let mut console = Console::new(
        true,
        args.request.n_slow_requests,
        args.request.n_fast_requests,
    );
    let run = runner::run(
        &spec,
        &prepared.workload,
        &prepared.engine,
        &stop,
        &mut console,
    )?;
    if args.rate.is_some() {
        // Steps differ by rate, not clients: the clients-axis analysis does not apply.
        println!("{}", crate::report::text::rate_table(&run));
    } else if run.steps.len() > 1 {
        let series = crate::series::Series::from_run(&run, "this run");
        println!("{}", crate::report::chart::terminal_summary(&series, 72));
    }
    print!("{}", crate::report::text::rounds_summary(&run));
    if let Some(out) = &spec.outputs {
        println!("Results: {} and {}", out.csv.display(), out.json.display());
    }
    Ok(runner::exit_code(&run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_lists_and_ramps() {
        assert_eq!(parse_rates("100,200").unwrap(), vec![100.0, 200.0]);
        assert_eq!(
            parse_rates("100:300:100").unwrap(),
            vec![100.0, 200.0, 300.0]
        );
        assert!(parse_rates("0").is_err());
        assert!(parse_rates("5:1:1").is_err());
        assert!(parse_rates("a").is_err());
        assert!(parse_rates("1e-20").is_err());
    }
}
