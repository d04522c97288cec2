//! `hakaru k8s render --shards N -- <hakaru args>`: the Kubernetes manifests of a
//! sharded run on stdout (see [`crate::k8s`]), so nobody hand-edits YAML.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use crate::k8s::{render, PatternsFile, Render, SHARD_INDEX};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: K8sCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum K8sCommand {
    /// Write a ConfigMap (the patterns file) and an Indexed Job whose pod K runs
    /// `--shard K/N` of the command after `--` and prints its result to its log;
    /// collect with `kubectl logs -l app.kubernetes.io/instance=NAME --tail=-1 | hakaru merge - -o result.json`.
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
    /// The hakaru command every pod runs: run, ramp or bulk with their flags.
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
    let r = Render {
        name: a.name,
        namespace: a.namespace,
        shards: a.shards,
        image: a.image,
        patterns,
        args: a.args,
    };
    let out = render(&r, std::time::SystemTime::now())?;
    // The pods' command must parse: a typo is found here, not in N pod logs.
    let argv = std::iter::once("hakaru".to_owned()).chain(out.args.iter().map(|a| {
        a.replace(SHARD_INDEX, "1")
            .replace("$(JOB_COMPLETION_INDEX)", "0")
    }));
    if let Err(e) = super::Cli::try_parse_from(argv) {
        return Err(crate::k8s::K8sError::Args(e.render().to_string()).into());
    }
    for note in &out.notes {
        eprintln!("Note: {note}");
    }
    print!("{}", out.yaml);
    Ok(0)
}
