//! What every command's `--help` ends with, and what its manual page gains: a few
//! examples and the exit codes. One table, read by the parser ([`command`]) and by
//! `hakaru man` ([`render_man`]), so the terminal and the page never disagree.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, EXIT_CODES_HELP};

/// Exit codes of the commands that read or write results without sending load.
const EXIT_CODES_READ: &str = "\
Exit codes:
  0    written
  1    a --threshold did not hold, or a file could not be written
  2    bad input: a flag or a result file was refused";

/// Exit codes of `hakaru pgbench`: the load commands' and the runs pgbench 15 aborts.
const EXIT_CODES_PGBENCH: &str = "\
Exit codes:
  0    measured: the failed transactions, if any, failed by a serialization
       failure or a deadlock (as in pgbench) or passed --timeout
  1    measured, but nothing succeeded, a --threshold did not hold, a client
       could not connect or log in, or a transaction failed with an error
       pgbench aborts on (the report comes first, then why)
  2    bad input: a flag, URL or file was refused before any load was sent
  130  interrupted (Ctrl-C, SIGTERM): what was measured is kept, marked partial";

/// Exit codes of the log-pipeline commands.
const EXIT_CODES_STREAM: &str = "\
Exit codes:
  0    measured
  1    a sender failed, nothing was sent or received, or --verify found records
       lost, duplicated or out of order
  2    bad input: a flag, URL or file was refused before anything was sent
  130  interrupted (Ctrl-C, SIGTERM): what was measured is kept";

/// Exit codes of the tools around the load (terms, patterns, the target, …).
const EXIT_CODES_TOOL: &str = "\
Exit codes:
  0    done
  1    failed: a file or socket could not be read or written
  2    bad input: a flag or file was refused";

/// Per command: examples (one command a line, `#` lines say what the next does) and
/// its exit codes.
const HELP: [(&str, &str, &str); 19] = [
    (
        "demo",
        "# the search benchmark end to end against the embedded target\n\
         hakaru demo\n\
         # write throughput instead, into the embedded document store\n\
         hakaru demo --bulk",
        EXIT_CODES_HELP,
    ),
    (
        "run",
        "# 100 clients, 100,000 requests in all, ab-style\n\
         hakaru run -c 100 -n 100k -k http://127.0.0.1:8080/\n\
         # an open model: 2,000 requests/s for 30 s, latency from each due time\n\
         hakaru run -c 100 -d 30s --rate 2000 http://127.0.0.1:8080/\n\
         # a 404 is the right answer here; fail CI when p99 passes 200 ms\n\
         hakaru run --ok-status 200,404 --threshold 'p99<200ms' -o result.csv http://127.0.0.1:8080/\n\
         # PostgreSQL: each request one transaction of a pgbench script\n\
         PGPASSWORD=secret hakaru run -c 8 -d 60s -f tx.sql -M prepared postgres://bench@127.0.0.1/bench\n\
         # MySQL/MariaDB: the same script language, ? parameters on the wire\n\
         MYSQL_PWD=secret hakaru run -c 8 -d 60s -f tx.sql -M prepared mysql://bench@127.0.0.1:3306/bench",
        EXIT_CODES_HELP,
    ),
    (
        "pgbench",
        "# pgbench's tables at scale 10, then its command line as it is\n\
         PGPASSWORD=secret hakaru pgbench -i -s 10 -h 127.0.0.1 -U bench bench\n\
         PGPASSWORD=secret hakaru pgbench -c 8 -j 2 -T 60 -h 127.0.0.1 -U bench bench",
        EXIT_CODES_PGBENCH,
    ),
    (
        "sysbench",
        "# sysbench's command line as it is: MySQL or MariaDB (sysbench's default driver)\n\
         hakaru sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-user=sbtest \\\n    \
         --mysql-password=secret --threads=16 --time=60 run\n\
         # on PostgreSQL\n\
         hakaru sysbench oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=sbtest \\\n    \
         --pgsql-password=secret --tables=4 --table-size=100000 prepare\n\
         hakaru sysbench oltp_read_write --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=sbtest \\\n    \
         --pgsql-password=secret --tables=4 --table-size=100000 --threads=16 --time=60 run\n\
         # hakaru's own: the result files and a threshold that fails CI\n\
         hakaru sysbench oltp_point_select --db-driver=pgsql --threads=8 --time=30 \\\n    \
         -o sb.csv --threshold 'p99<5ms' run\n\
         hakaru sysbench oltp_read_write --db-driver=pgsql --tables=4 cleanup",
        EXIT_CODES_HELP,
    ),
    (
        "ab",
        "hakaru ab -c 100 -n 100000 -k http://127.0.0.1:8080/\n\
         # ab's gnuplot file, and hakaru's own result beside it\n\
         hakaru ab -n 10000 -g out.tsv -o result.csv http://127.0.0.1:8080/",
        EXIT_CODES_HELP,
    ),
    (
        "ramp",
        "# drnbench's flags as they are\n\
         hakaru ramp --start-n-clients=0 --end-n-clients=20 --step=2 --duration=30 --interval=10 \\\n    \
         --request-patterns-file=patterns.txt --default-hosts=node0 --default-port=10041 -o result.csv\n\
         # until throughput stops rising\n\
         hakaru ramp --until-saturated --duration 5s http://127.0.0.1:8080/\n\
         # one open-model step per rate, then the highest rate that meets an SLO\n\
         hakaru ramp --rate 100:2000:100 --duration 10s http://127.0.0.1:8080/\n\
         hakaru ramp --find-max --slo 'p99<100ms' http://127.0.0.1:8080/",
        EXIT_CODES_HELP,
    ),
    (
        "terms",
        "hakaru terms --escape < select.json > terms.txt",
        EXIT_CODES_TOOL,
    ),
    (
        "patterns",
        "hakaru terms --escape < select.json \\\n    \
         | hakaru patterns --template '/d/select?table=Docs&query={term}' > patterns.txt",
        EXIT_CODES_TOOL,
    ),
    (
        "report",
        "hakaru report hakaru-result.json\n\
         hakaru report hakaru-result.json --threshold 'p99<200ms' --markdown summary.md",
        EXIT_CODES_READ,
    ),
    (
        "compare",
        "hakaru compare before.json after.json -o compare.html",
        EXIT_CODES_READ,
    ),
    (
        "merge",
        "hakaru merge shard-1.json shard-2.json -o merged.csv",
        EXIT_CODES_READ,
    ),
    (
        "k8s",
        "hakaru k8s render --shards 4 -- run -c 100 -d 60s http://search:10041/d/status",
        EXIT_CODES_TOOL,
    ),
    (
        "bulk",
        "hakaru bulk --target couchdb http://127.0.0.1:5984/db --batch-sizes 100,1000 --writers 1,10\n\
         hakaru bulk --target groonga http://127.0.0.1:10041 --table Docs -n 10k --json -q",
        EXIT_CODES_HELP,
    ),
    (
        "suite",
        "hakaru suite scenario.toml --threshold 'p99<200ms' -o suite.csv\n\
         # a built-in scenario, printed to copy and adapt\n\
         hakaru suite --profile read-heavy --print > scenario.toml\n\
         # YCSB A over PostgreSQL, its server's own counts read around each phase\n\
         hakaru suite --profile ycsb-a --target postgres://bench@127.0.0.1/bench --probe postgres",
        EXIT_CODES_HELP,
    ),
    (
        "serve",
        "hakaru serve --bind 127.0.0.1:8080\n\
         hakaru serve --bind 127.0.0.1:0 --search",
        EXIT_CODES_TOOL,
    ),
    (
        "stream",
        "hakaru stream send --to tcp://127.0.0.1:5140 -c 4 -n 100k\n\
         hakaru stream gen -n 1M > records.log",
        EXIT_CODES_STREAM,
    ),
    (
        "watch",
        "hakaru watch file:/var/log/app.log --verify --window 60s",
        EXIT_CODES_STREAM,
    ),
    (
        "completions",
        "hakaru completions bash > ~/.local/share/bash-completion/completions/hakaru",
        EXIT_CODES_TOOL,
    ),
    (
        "man",
        "hakaru man --dir ~/.local/share/man/man1",
        EXIT_CODES_TOOL,
    ),
];

/// The top level's examples: the quick start.
const TOP_EXAMPLES: &str = "\
hakaru demo
hakaru run -c 100 -n 100k -k http://127.0.0.1:8080/
hakaru ramp --until-saturated http://127.0.0.1:8080/
hakaru report hakaru-result.json";

/// `Examples:` then `Exit codes:`, as `--help` ends.
fn after_help(examples: &str, exit: &str) -> String {
    let lines: Vec<String> = examples.lines().map(|l| format!("  {l}")).collect();
    format!("Examples:\n{}\n\n{exit}", lines.join("\n"))
}

/// The command line as parsed: [`Cli`] with every command's help ending in its
/// examples and exit codes.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command().after_help(after_help(TOP_EXAMPLES, EXIT_CODES_HELP));
    for (name, examples, exit) in HELP {
        cmd = cmd.mut_subcommand(name, |c| with_help(c, examples, exit));
    }
    cmd
}

/// `c` and its own subcommands (`stream send`, `k8s render`) ending with the
/// examples and exit codes of the command they belong to.
fn with_help(c: clap::Command, examples: &str, exit: &str) -> clap::Command {
    let names: Vec<String> = c
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut c = c.after_help(after_help(examples, exit));
    for n in names {
        c = c.mut_subcommand(n, |s| with_help(s, examples, exit));
    }
    c
}

/// The examples and exit codes of a command named `name` (`hakaru` for the top).
fn examples_of(name: &str) -> Option<(&'static str, &'static str)> {
    if name == "hakaru" {
        return Some((TOP_EXAMPLES, EXIT_CODES_HELP));
    }
    let sub = name.strip_prefix("hakaru-")?;
    let top = sub.split('-').next()?;
    HELP.iter()
        .find(|(n, ..)| *n == top)
        .map(|(_, e, x)| (*e, *x))
}

/// roff for plain text lines: no line may start a request, and `\` and `-` are
/// escaped.
fn roff_lines(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace('\\', "\\e").replace('-', "\\-");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// One manual page: clap_mangen's sections, then EXAMPLES and EXIT STATUS from the
/// table (instead of the help's "Examples:" and "Exit codes:" text under EXTRA).
pub fn render_man(cmd: &clap::Command, w: &mut dyn Write) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(w)?;
    }
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    if let Some((examples, exit)) = examples_of(name) {
        let examples: String = examples
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        write!(w, ".SH EXAMPLES\n.nf\n{}.fi\n", roff_lines(&examples))?;
        let codes = exit.strip_prefix("Exit codes:\n").unwrap_or(exit);
        write!(w, ".SH \"EXIT STATUS\"\n.nf\n{}.fi\n", roff_lines(codes))?;
    }
    if cmd.get_version().is_some() {
        man.render_version_section(w)?;
    }
    Ok(())
}

/// A page per command, as `clap_mangen::generate_to` lays them out.
pub fn man_pages(dir: &std::path::Path) -> std::io::Result<()> {
    fn each(cmd: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            each(sub, dir)?;
        }
        let file = clap_mangen::Man::new(cmd.clone()).get_filename();
        let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join(file))?);
        render_man(cmd, &mut out)?;
        out.flush()
    }
    let mut cmd = command().disable_help_subcommand(true);
    cmd.build();
    each(&cmd, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_examples_and_exit_codes() {
        fn each(c: &clap::Command) {
            for sub in c.get_subcommands() {
                let help = sub
                    .get_after_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                assert!(help.contains("Examples:\n  "), "{}: {help}", sub.get_name());
                let last = help.trim_end().rsplit("\n\n").next().unwrap();
                assert!(last.starts_with("Exit codes:"), "{}", sub.get_name());
                each(sub);
            }
        }
        each(&command());
    }

    #[test]
    fn the_examples_name_flags_the_commands_have() {
        // Every example parses (a wrong flag in an example would teach a wrong habit).
        for (name, examples, _) in HELP {
            let text = examples.replace("\\\n    ", "");
            for line in text.lines().filter(|l| l.starts_with("hakaru ")) {
                let words = shell_words(line.split(" | ").next().unwrap());
                let words: Vec<&str> = words
                    .iter()
                    .map(String::as_str)
                    .take_while(|w| !w.starts_with('<') && !w.starts_with('>'))
                    .collect();
                if name == "k8s" || name == "stream" && words.contains(&"gen") {
                    continue;
                }
                if let Err(e) = command().try_get_matches_from(&words) {
                    panic!("{name}: {line}: {e}");
                }
            }
        }
    }

    /// Words of a line with '…' quoting, enough for the examples above.
    fn shell_words(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    #[test]
    fn man_pages_gain_examples_and_exit_status() {
        let mut cmd = command().disable_help_subcommand(true);
        cmd.build();
        let run = cmd.find_subcommand("run").unwrap();
        let mut out = Vec::new();
        render_man(run, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains(".SH EXAMPLES"), "{page}");
        assert!(page.contains("hakaru run \\-c 100"), "{page}");
        assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
        assert!(!page.contains("EXTRA"), "{page}");
    }
}
