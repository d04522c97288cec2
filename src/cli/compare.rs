//! `hakaru compare A B C …`: several results side by side — peak, plateau, latency,
//! each as a ratio to the first run where the runs support one — as text on the
//! terminal and an HTML page with overlaid charts (beside the first result unless
//! `-o` says where), and optionally SVG/PNG charts and Markdown.

use std::path::PathBuf;

use crate::report::dispatch::run_compare;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results to compare; the first is the baseline the ratios refer to.
    #[arg(value_name = "RESULT", required = true, num_args = 1..)]
    pub results: Vec<PathBuf>,
    /// Names of the runs, comma-separated, one per file [default: the file names without
    /// extension]. Files in a row with the same name are repetitions of one setup: their
    /// peak is a mean with a spread ("1.18 ± 0.05×"), as are a --rounds run's warm rounds.
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub label: Option<Vec<String>>,
    /// HTML page with the overlaid charts [default: compare-A-B.html beside the first
    /// result, from the runs' names]; `-` prints the page on stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// --svg and --png write the overlaid charts next to the HTML, or as compare-*.svg/png.
    #[command(flatten)]
    pub charts: super::report::ChartFlags,
}

/// The page's place without `-o`, as `report` writes RESULT.html beside its result:
/// `compare-A-B.html` beside the first result, A and B the runs' names (the labels, or
/// the files' stems; repetitions of one name once; past four, how many more).
pub fn default_page(results: &[PathBuf], labels: Option<&[String]>) -> PathBuf {
    let mut names: Vec<String> = Vec::new();
    for (i, p) in results.iter().enumerate() {
        let name = match labels.and_then(|l| l.get(i)) {
            Some(l) => l.clone(),
            None => p
                .file_stem()
                .map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned()),
        };
        // A name fit for a file: nothing that would start a directory or hide it.
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let name = match name.trim_start_matches('.') {
            "" => "run".to_owned(),
            n => n.to_owned(),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut stem = String::from("compare");
    for n in names.iter().take(4) {
        stem.push('-');
        stem.push_str(n);
    }
    if names.len() > 4 {
        stem.push_str(&format!("-and-{}-more", names.len() - 4));
    }
    let dir = results
        .first()
        .and_then(|p| p.parent())
        .unwrap_or(std::path::Path::new(""));
    dir.join(format!("{stem}.html"))
}

pub fn run(mut args: Args) -> anyhow::Result<i32> {
    if args.output.is_none() {
        args.output = Some(default_page(&args.results, args.label.as_deref()));
    }
    let md = args
        .charts
        .markdown
        .as_deref()
        .filter(|p| p.as_os_str() != "-");
    let paths: Vec<(&'static str, &std::path::Path)> =
        [("-o", args.output.as_deref()), ("--markdown", md)]
            .into_iter()
            .filter_map(|(f, p)| Some((f, p?)))
            .collect();
    let inputs: Vec<(&str, &std::path::Path)> = (args.results.iter())
        .map(|p| ("the result", p.as_path()))
        .collect();
    crate::report::output::refuse_inputs(paths.iter().copied(), &inputs)?;
    crate::report::output::check(paths)?;
    let plan = args.charts.plan(args.output);
    // Log pipelines (watch, stream send, stream run) side by side; never mixed with
    // request-response results.
    if let Some(stream) = crate::report::stream::compare::classify(&args.results)? {
        let labels = crate::report::stream::compare::labels(&args.results, args.label.as_deref())?;
        let written = crate::report::stream::compare::compare(&labels, &stream, &plan)?.write()?;
        super::report::tell(&written);
        return Ok(0);
    }
    let written = run_compare(&args.results, args.label.as_deref(), &plan)?;
    super::report::tell(&written);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_goes_beside_the_first_result_named_by_the_runs() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert_eq!(
            default_page(&p(&["out/nginx.json", "b/caddy.json"]), None),
            PathBuf::from("out/compare-nginx-caddy.html")
        );
        let labels: Vec<String> = ["a", "a", "b/../x", "b/../x"].map(String::from).to_vec();
        assert_eq!(
            default_page(&p(&["1.json", "2.json", "3.json", "4.json"]), Some(&labels)),
            PathBuf::from("compare-a-b_.._x.html")
        );
        let many = p(&["a.json", "b.json", "c.json", "d.json", "e.json", "f.json"]);
        assert_eq!(
            default_page(&many, None),
            PathBuf::from("compare-a-b-c-d-and-2-more.html")
        );
    }
}
