//! A scenario's targets, phases and events, each checked against the file with its
//! line and key ([`Locator`]): what [`super::Scenario::parse`] reads after the
//! file's own settings.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use toml::Spanned;

use super::file::{FileEvent, FilePhase, FileScenario, FileWorkload};
use super::scenario::{
    pid_names, secs, Action, Event, Locator, Phase, ScenarioError, Source, TargetPid, WorkloadSpec,
    DEFAULT_EVENT_TIMEOUT, DEFAULT_OPEN_CLIENTS, DEFAULT_TOXIPROXY, MAX_EVENTS, MAX_PHASES,
};

impl Locator<'_> {
    /// `[targets]`: each a pid, a pid file or a command that prints one.
    pub(super) fn targets(
        &self,
        file: &FileScenario,
        dir: &Path,
    ) -> Result<BTreeMap<String, TargetPid>, ScenarioError> {
        let mut targets = BTreeMap::new();
        for (name, t) in &file.targets {
            let span = t.span();
            let t = t.get_ref();
            let pid = match (&t.pid, &t.pid_file, &t.pid_command) {
                (Some(p), None, None) => TargetPid::Pid(*p),
                (None, Some(f), None) => TargetPid::File(dir.join(f)),
                (None, None, Some(c)) => TargetPid::Command(c.clone()),
                _ => {
                    return Err(self.error(
                        span,
                        &format!("targets.{name}"),
                        "give exactly one of pid, pid_file and pid_command",
                    ))
                }
            };
            targets.insert(name.clone(), pid);
        }
        Ok(targets)
    }

    /// `[[phase]]`s, back to back unless a `start` says otherwise (never overlapping).
    pub(super) fn phases(
        &self,
        file: &FileScenario,
        dir: &Path,
    ) -> Result<Vec<Phase>, ScenarioError> {
        if file.phases.is_empty() {
            return Err(self.whole("no [[phase]]: a scenario needs at least one"));
        }
        if file.phases.len() > MAX_PHASES {
            return Err(self.whole(&format!("more than {MAX_PHASES} phases")));
        }
        let mut phases: Vec<Phase> = Vec::with_capacity(file.phases.len());
        for p in &file.phases {
            let phase = self.phase(p, &phases, dir)?;
            phases.push(phase);
        }
        Ok(phases)
    }

    /// One phase, after `before`.
    fn phase(
        &self,
        p: &Spanned<FilePhase>,
        before: &[Phase],
        dir: &Path,
    ) -> Result<Phase, ScenarioError> {
        let span = p.span();
        let p = p.get_ref();
        let name = p.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(self.error(p.name.span(), "name", "a phase needs a name"));
        }
        if before.iter().any(|q| q.name == name) {
            return Err(self.error(
                p.name.span(),
                "name",
                &format!("a second phase named \"{name}\""),
            ));
        }
        let duration = self.positive(&p.duration, "duration")?;
        let end = before
            .last()
            .map_or(Duration::ZERO, |q| q.start + q.duration);
        let start = match &p.start {
            Some(s) => {
                let d = self.duration(s, "start")?;
                if d < end {
                    let prev = before.last().map_or("", |q| q.name.as_str());
                    return Err(self.error(
                        s.span(),
                        "start",
                        &format!(
                            "{} overlaps phase \"{prev}\", which runs until {}",
                            secs(d),
                            secs(end)
                        ),
                    ));
                }
                d
            }
            None => end,
        };
        let (rate, clients) = self.load(p, span.clone(), duration)?;
        if p.workloads.is_empty() {
            return Err(self.error(
                span,
                "phase",
                &format!("phase \"{name}\" has no [[phase.workload]]"),
            ));
        }
        let workloads = p
            .workloads
            .iter()
            .map(|w| self.workload(w, p.workloads.len(), dir))
            .collect::<Result<Vec<_>, _>>()?;
        if start + duration > crate::engine::MAX_DURATION {
            return Err(self.error(span, "duration", "the scenario is longer than 30 days"));
        }
        let before = self.phase_before(p, &name)?;
        let before_sql = self.before_sql(p, &workloads)?;
        Ok(Phase {
            name,
            start,
            start_given: p.start.is_some(),
            duration,
            rate,
            clients,
            workloads,
            // Filled in by `connections`, once every phase is read.
            connection: Default::default(),
            pipeline: None,
            before,
            before_sql,
        })
    }

    /// A phase's `rate` (checked as the engine reads it) and its clients.
    fn load(
        &self,
        p: &FilePhase,
        span: std::ops::Range<usize>,
        duration: Duration,
    ) -> Result<(Option<String>, usize), ScenarioError> {
        let clients = match &p.clients {
            Some(c) => {
                let n = *c.get_ref();
                if n == 0 || n > crate::spec::MAX_CLIENTS {
                    return Err(self.error(
                        c.span(),
                        "clients",
                        &format!("between 1 and {}", crate::spec::MAX_CLIENTS),
                    ));
                }
                Some(n)
            }
            None => None,
        };
        let rate = match &p.rate {
            Some(r) => {
                let text = r.get_ref().text();
                crate::spec::parse_profile(&text, Some(duration))
                    .map_err(|why| self.error(r.span(), "rate", &why.to_string()))?;
                Some(text)
            }
            None => None,
        };
        let clients = match (&rate, clients) {
            (None, None) => {
                return Err(self.error(span, "phase", "give rate (open model) or clients"))
            }
            (None, Some(n)) | (Some(_), Some(n)) => n,
            (Some(_), None) => DEFAULT_OPEN_CLIENTS,
        };
        Ok((rate, clients))
    }

    /// One `[[phase.workload]]` of a phase of `of` workloads.
    fn workload(
        &self,
        w: &Spanned<FileWorkload>,
        of: usize,
        dir: &Path,
    ) -> Result<WorkloadSpec, ScenarioError> {
        let wspan = w.span();
        let w = w.get_ref();
        if let (Some(m), None) = (&w.mode, &w.script) {
            return Err(self.error(m.span(), "mode", "a mode goes with a script"));
        }
        // pgbench's -M words, refused here with the file's line rather than later
        // as the flag `-M/--query-mode`, which a scenario has not.
        if let Some(m) = w
            .mode
            .as_ref()
            .filter(|m| !["simple", "extended", "prepared"].contains(&m.get_ref().as_str()))
        {
            let why = format!("\"{}\": use simple, extended or prepared", m.get_ref());
            return Err(self.error(m.span(), "mode", &why));
        }
        if let Some(s) = &w.script {
            if !w
                .url
                .as_deref()
                .is_some_and(crate::workload::ycsb::sql::is_sql)
            {
                return Err(self.error(
                    s.span(),
                    "script",
                    "a script goes with a SQL url, postgres:// or mysql:// (its transactions)",
                ));
            }
        }
        let source = match (&w.patterns, &w.url, &w.bulk, &w.ycsb) {
            (Some(f), None, None, None) => Source::Patterns(dir.join(f)),
            (None, Some(u), None, None) if crate::workload::ycsb::sql::is_sql(u) => {
                let Some(s) = &w.script else {
                    return Err(self.error(
                        wspan,
                        "script",
                        "a SQL url (postgres://, mysql://) needs the script of its \
                         transactions: script = \"file.sql\" (pgbench's language)",
                    ));
                };
                Source::Script {
                    url: u.clone(),
                    script: dir.join(s.get_ref()),
                    mode: w.mode.as_ref().map(|m| m.get_ref().clone()),
                }
            }
            (None, Some(u), None, None) => Source::Url(u.clone()),
            (None, None, Some(b), None) => Source::Bulk(self.bulk(b)?),
            (None, None, None, Some(y)) => Source::Ycsb(self.ycsb(y)?),
            _ => {
                return Err(self.error(
                    wspan,
                    "workload",
                    "give exactly one of patterns, url, bulk and ycsb",
                ))
            }
        };
        if of > 1 {
            if let Source::Ycsb(y) = &source {
                if y.core == crate::workload::ycsb::Core::Load {
                    return Err(self.error(
                        wspan,
                        "ycsb.workload",
                        "a YCSB load must be its phase's only workload (the phase ends when its records are in)",
                    ));
                }
            }
        }
        let weight = match &w.weight {
            Some(wt) => {
                let v = *wt.get_ref();
                if !(1..=1_000_000).contains(&v) {
                    return Err(self.error(
                        wt.span(),
                        "weight",
                        &format!("must be between 1 and 1000000, found {v}"),
                    ));
                }
                v as u32
            }
            None => 1,
        };
        Ok(WorkloadSpec { source, weight })
    }

    /// `[[event]]`s before the scenario's `end`, with a removal after each toxic given
    /// `for` a while; in time order (the file's order at the same time).
    pub(super) fn events(
        &self,
        file: &FileScenario,
        targets: &BTreeMap<String, TargetPid>,
        end: Duration,
    ) -> Result<Vec<Event>, ScenarioError> {
        if file.events.len() > MAX_EVENTS {
            return Err(self.whole(&format!("more than {MAX_EVENTS} events")));
        }
        let mut events = Vec::with_capacity(file.events.len());
        let mut removals = Vec::new();
        for (i, e) in file.events.iter().enumerate() {
            let (event, removal) = self.event(file, i, e.get_ref(), targets, end)?;
            events.push(event);
            removals.extend(removal);
        }
        events.extend(removals);
        // Stable: events at the same time run in the file's order.
        events.sort_by_key(|e| e.at);
        Ok(events)
    }

    /// Event `i` (from 0), and the removal of its toxic when it has one `for` a while.
    fn event(
        &self,
        file: &FileScenario,
        i: usize,
        e: &FileEvent,
        targets: &BTreeMap<String, TargetPid>,
        end: Duration,
    ) -> Result<(Event, Option<Event>), ScenarioError> {
        let when = self.duration(&e.at, "at")?;
        if when >= end {
            return Err(self.error(
                e.at.span(),
                "at",
                &format!(
                    "{} is not before the scenario's end ({})",
                    secs(when),
                    secs(end)
                ),
            ));
        }
        let all_shards = self.choice(&e.shards, "shards", ("first", "all"))?;
        let name = e.name.clone().unwrap_or_else(|| format!("event {}", i + 1));
        let mut removal = None;
        let (run, action) = match (&e.run, &e.toxic) {
            (Some(r), None) => (self.command(e, r, targets)?, Action::Shell),
            (None, Some(t)) => {
                let api = file
                    .toxiproxy
                    .as_deref()
                    .unwrap_or(DEFAULT_TOXIPROXY)
                    .trim_end_matches('/');
                let toxic = format!("hakaru-{}", i + 1);
                let (run, action, remove) = self.toxic(t, api, &toxic)?;
                if let Some(f) = &e.for_ {
                    let d = self.positive(f, "for")?;
                    if when + d >= end {
                        return Err(self.error(
                            f.span(),
                            "for",
                            &format!(
                                "the toxic would be removed at {}, not before the scenario's end ({})",
                                secs(when + d),
                                secs(end)
                            ),
                        ));
                    }
                    removal = Some(Event {
                        name: format!("{name} ends"),
                        at: when + d,
                        run: format!("toxiproxy: remove {toxic}"),
                        action: remove,
                        timeout: DEFAULT_EVENT_TIMEOUT,
                        stop_on_failure: false,
                        measure_recovery: e.recovery.unwrap_or(true),
                        all_shards,
                    });
                }
                (run, action)
            }
            _ => return Err(self.error(e.at.span(), "event", "give exactly one of run and toxic")),
        };
        let timeout = match &e.timeout {
            Some(t) => self.positive(t, "timeout")?,
            None => DEFAULT_EVENT_TIMEOUT,
        };
        let stop_on_failure = self.choice(&e.on_failure, "on_failure", ("continue", "stop"))?;
        let event = Event {
            name,
            at: when,
            run,
            action,
            timeout,
            stop_on_failure,
            measure_recovery: e.recovery.unwrap_or(true),
            all_shards,
        };
        Ok((event, removal))
    }

    /// An event's shell command: not empty, its `{pid:NAME}`s naming targets.
    fn command(
        &self,
        e: &FileEvent,
        r: &Spanned<String>,
        targets: &BTreeMap<String, TargetPid>,
    ) -> Result<String, ScenarioError> {
        if e.for_.is_some() {
            return Err(self.error(
                r.span(),
                "for",
                "only a toxic is removed after a while; a command runs once",
            ));
        }
        let run = r.get_ref().clone();
        if run.trim().is_empty() {
            return Err(self.error(r.span(), "run", "an empty command"));
        }
        for name in pid_names(&run).map_err(|why| self.error(r.span(), "run", &why))? {
            if !targets.contains_key(name) {
                return Err(self.error(
                    r.span(),
                    "run",
                    &format!("{{pid:{name}}}: no target \"{name}\" in [targets]"),
                ));
            }
        }
        Ok(run)
    }

    /// A key of two words: false for the first (and when absent), true for the second.
    fn choice(
        &self,
        v: &Option<Spanned<String>>,
        key: &str,
        (no, yes): (&str, &str),
    ) -> Result<bool, ScenarioError> {
        let Some(s) = v else {
            return Ok(false);
        };
        match s.get_ref().as_str() {
            w if w == no => Ok(false),
            w if w == yes => Ok(true),
            other => Err(self.error(
                s.span(),
                key,
                &format!("\"{other}\": use \"{no}\" or \"{yes}\""),
            )),
        }
    }
}
