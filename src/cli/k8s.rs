//! `hakaru k8s render --shards N -- <hakaru args>`: the Kubernetes manifests of a
//! sharded run on stdout (see [`crate::k8s`]), so nobody hand-edits YAML. Here: the
//! files read (`--patterns`; a suite's scenario, checked whole first, and the files it
//! names) and the pods' command parsed as hakaru will parse it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use crate::k8s::{render, PatternsFile, Render, ScenarioFiles, SHARD_INDEX};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: K8sCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum K8sCommand {
    /// Write a ConfigMap (the patterns file, or a suite's scenario and its files) and an
    /// Indexed Job whose pod K runs `--shard K/N` of the command after `--` (run, ramp,
    /// bulk, suite, stream send) and prints its result to its log; collect with
    /// `kubectl logs -l app.kubernetes.io/instance=NAME --tail=-1 | hakaru merge - -o result.json`.
    Render(RenderArgs),
}

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// How many load machines (pods): the Job's completions and parallelism.
    #[arg(long, value_name = "N")]
    pub shards: u32,
    /// The container image with hakaru as its entrypoint (deploy/kubernetes/Dockerfile).
    #[arg(long, value_name = "IMAGE", default_value = concat!("hakaru:", env!("CARGO_PKG_VERSION")))]
    pub image: String,
    /// The Job's name (its pods' label app.kubernetes.io/instance).
    #[arg(long, default_value = "hakaru")]
    pub name: String,
    /// The namespace to create them in (default: kubectl's current one).
    #[arg(long)]
    pub namespace: Option<String>,
    /// A patterns file to put in a ConfigMap and give the pods as --request-patterns-file.
    #[arg(long, value_name = "FILE")]
    pub patterns: Option<PathBuf>,
    /// The hakaru command every pod runs: run, ramp, bulk, suite or stream send with
    /// their flags (a suite's scenario and the files it names go into the ConfigMap).
    #[arg(last = true, value_name = "HAKARU_ARGS")]
    pub args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let K8sCommand::Render(a) = args.command;
    let patterns = match &a.patterns {
        Some(p) => Some(PatternsFile {
            path: p.display().to_string(),
            text: std::fs::read_to_string(p)
                .with_context(|| format!("cannot read --patterns {}", p.display()))?,
        }),
        None => None,
    };
    // The pods' command must parse: a typo is found here, not in N pod logs.
    let parsed = parse_pod_command(&a.args, a.shards, false)?;
    let scenario = match parsed {
        Some(super::Command::Suite(s)) => Some(scenario_files(&s)?),
        _ => None,
    };
    let r_shards = a.shards;
    let r = Render {
        name: a.name,
        namespace: a.namespace,
        shards: a.shards,
        image: a.image,
        patterns,
        scenario,
        args: a.args,
        // The render is pure: the environment's SQL passwords are read here.
        env_passwords: ["PGPASSWORD", "MYSQL_PWD"]
            .into_iter()
            .filter_map(|v| Some((v.to_owned(), std::env::var(v).ok()?)))
            .filter(|(_, value)| !value.is_empty())
            .collect(),
    };
    let out = render(&r, std::time::SystemTime::now())?;
    parse_pod_command(&out.args, r_shards, true)?;
    for note in &out.notes {
        eprintln!("Note: {note}");
    }
    for warning in &out.warnings {
        eprintln!("Warning: {warning}");
    }
    print!("{}", out.yaml);
    Ok(0)
}

/// The pods' command as hakaru parses it, as the last pod runs it (the smallest share
/// of the load); None when the command is not one that spreads over pods (the render
/// says why).
fn parse_pod_command(
    args: &[String],
    shards: u32,
    check: bool,
) -> anyhow::Result<Option<super::Command>> {
    if crate::k8s::sharded(args).is_err() {
        return Ok(None);
    }
    let argv = std::iter::once("hakaru".to_owned()).chain(args.iter().map(|a| {
        a.replace(SHARD_INDEX, &shards.to_string()).replace(
            "$(JOB_COMPLETION_INDEX)",
            &(shards.saturating_sub(1)).to_string(),
        )
    }));
    let command = match super::Cli::try_parse_from(argv) {
        Ok(cli) => cli.command,
        Err(e) => return Err(crate::k8s::K8sError::Args(e.render().to_string()).into()),
    };
    // The checks that need nothing from outside, the last shard's share among them: a
    // load the pods cannot share (`-c 2` over 3 pods) is refused here, not in N pod logs.
    let options = match &command {
        super::Command::Run(a) if check => Some(a.options(Vec::new())),
        super::Command::Ramp(a) if check => Some(a.options(Vec::new())),
        _ => None,
    };
    if let Some(Err(e)) = options.map(|o| o.check()) {
        return Err(crate::k8s::K8sError::Args(e.to_string()).into());
    }
    Ok(Some(command))
}

/// A suite's scenario, checked whole (errors with its own file and line), and the
/// files it names, read relative to its directory as `hakaru suite` reads them.
fn scenario_files(s: &super::suite::SuiteArgs) -> anyhow::Result<ScenarioFiles> {
    use crate::suite::{profiles, Scenario, ScenarioError};
    let (shown, text, dir) = match (&s.scenario, &s.profile) {
        (_, Some(name)) => {
            let text = profiles::profile(name).ok_or_else(|| ScenarioError::Whole {
                path: format!("--profile {name}"),
                why: format!(
                    "no such profile; the built-in ones are {}",
                    profiles::names()
                ),
            })?;
            (format!("profile:{name}"), text.to_owned(), PathBuf::new())
        }
        (Some(path), None) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read scenario {}", path.display()))?;
            let dir = path.parent().map(PathBuf::from).unwrap_or_default();
            (path.display().to_string(), text, dir)
        }
        (None, None) => return Err(crate::k8s::K8sError::NoScenario.into()),
    };
    Scenario::parse(&text, &PathBuf::from(&shown))?;
    let named =
        crate::k8s::scenario::named_files(&text).map_err(|why| crate::k8s::K8sError::Scenario {
            path: shown.clone(),
            why,
        })?;
    let mut files = Vec::new();
    for written in named {
        let at = dir.join(&written);
        let text = std::fs::read_to_string(&at)
            .with_context(|| format!("{shown}: cannot read its patterns file {}", at.display()))?;
        // Refused as `hakaru suite` refuses it, in words that quote none of it: a
        // ConfigMap took `../../../etc/passwd` whole.
        if let Err(e) = crate::pattern::parse(&text, &written) {
            let why = crate::spec::SpecError::Patterns(e)
                .patterns_problem()
                .unwrap_or_else(|| "not a patterns file".into());
            return Err(crate::k8s::K8sError::Scenario {
                path: shown,
                why: format!("patterns \"{written}\": {why} (`hakaru suite` refuses it too)"),
            }
            .into());
        }
        files.push(PatternsFile {
            path: written,
            text,
        });
    }
    Ok(ScenarioFiles {
        path: shown,
        text,
        files,
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command that takes `--shard` (now, or added by a later issue) spreads over
    /// pods: the render knows how its pods print a result, so it refuses nothing that
    /// shards. A new sharded command fails here until `k8s::Sharded` names it.
    #[test]
    fn k8s_render_accepts_every_command_that_takes_shard() {
        let cli = super::super::Cli::command();
        let mut sharded = Vec::new();
        let mut walk = vec![(Vec::<String>::new(), &cli)];
        while let Some((words, c)) = walk.pop() {
            if c.get_arguments().any(|a| a.get_long() == Some("shard")) {
                sharded.push(words.clone());
            }
            for sub in c.get_subcommands() {
                let mut w = words.clone();
                w.push(sub.get_name().to_owned());
                walk.push((w, sub));
            }
        }
        assert!(sharded.len() >= 5, "{sharded:?}");
        for words in sharded {
            assert!(
                crate::k8s::sharded(&words).is_ok(),
                "`{}` takes --shard but `hakaru k8s render` refuses it: add it to k8s::Sharded",
                words.join(" ")
            );
        }
    }
}
