//! `hakaru suite SCENARIO.toml`: a scenario's phases, events and recovery (see
//! [`crate::suite`]). Flags to options; the scenario file says the rest.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::args::{Human, OutputArgs};
use crate::console::Console;
use crate::suite::{profiles, Scenario, ScenarioError};

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The scenario: phases, workloads with weights, targets, events (TOML).
    #[arg(required_unless_present = "profile", conflicts_with = "profile")]
    pub scenario: Option<PathBuf>,

    /// A built-in scenario: read-heavy, write-heavy or fault-tolerance (files it names
    /// are read from the current directory).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// With --profile: write the scenario on stdout, to copy and adapt, and run nothing.
    #[arg(long, requires = "profile")]
    pub print: bool,

    /// Write the CSV result here, the JSON result and the HTML timeline beside it.
    #[arg(short = 'o', long)]
    pub output_path: Option<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: SuiteArgs, command_line: Vec<String>) -> Result<i32> {
    let scenario = match (&args.scenario, &args.profile) {
        (_, Some(name)) => {
            let text = profiles::profile(name).ok_or_else(|| ScenarioError::Whole {
                path: format!("--profile {name}"),
                why: format!(
                    "no such profile; the built-in ones are {}",
                    profiles::names()
                ),
            })?;
            if args.print {
                print!("{text}");
                return Ok(crate::runner::exit::MEASURED);
            }
            Scenario::parse(text, &PathBuf::from(format!("profile:{name}")))?
        }
        (Some(path), None) => Scenario::load(path)?,
        (None, None) => anyhow::bail!("give a scenario file or --profile NAME"),
    };
    let stop = super::ctrl_c_stop();
    let ready = crate::suite::build(
        scenario,
        args.output_path.clone(),
        command_line,
        stop.clone(),
    )?;
    let human = Human::new(&args.output, false)?;
    let mut console = Console::new(!human.machine(), ready.engine.n_slow, ready.engine.n_fast)
        .quiet(args.output.quiet)
        .verbose(args.output.verbose);
    let run = crate::suite::run::run(&ready, &stop, &mut console).map_err(|e| match e {
        crate::suite::run::RunError::Suite(s) => anyhow::Error::from(s),
        crate::suite::run::RunError::Ramp(r) => anyhow::Error::from(r),
    })?;
    human.print(&format!("\n{}", crate::report::suite::text(&run)));
    if args.output.json {
        println!("{}", crate::result::json::to_json(&run));
    }
    if let Some(out) = &ready.run.outputs {
        let html = out.json.with_extension("html");
        std::fs::write(&html, crate::report::suite::html(&run))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", html.display()))?;
        human.print(&format!(
            "Results: {} and {}; timeline: {}\n",
            out.csv.display(),
            out.json.display(),
            html.display()
        ));
    }
    Ok(crate::runner::exit_code(&run))
}
