//! Whether runs can be compared: the settings that change what the numbers mean
//! (load model, step duration, keep-alive, pipeline depth, the patterns sent and their order, the
//! wait between requests, the cache hit rate planned, a shard's part of the load) and
//! the targets, run by run, where they differ. Runs read from drnbench's CSV record no settings; only the load model,
//! which shows in the steps themselves, is known for them.

use crate::result::series::{PointsAre, Series};

/// One setting that differs between compared runs, with each run's value.
#[derive(Debug, Clone, PartialEq)]
pub enum SetupDifference {
    /// Steps by arrival rate (true) against steps by clients (false): the charts do not
    /// share an axis.
    OpenModel(Vec<(String, bool)>),
    /// Nominal step duration, seconds (`None`: steps ended by request count).
    StepDuration(Vec<(String, Option<f64>)>),
    KeepAlive(Vec<(String, bool)>),
    /// `--pipeline N` on a key-value target (`None`: one command at a time).
    Pipeline(Vec<(String, Option<u64>)>),
    /// `--coalesce`, µs (`None`: a wake-up per answer). Latency is the kernel's
    /// either way; a closed model's load against a fast server is not.
    Coalesce(Vec<(String, Option<u64>)>),
    /// What the connections spoke: `HTTP/1.1`, `HTTP/2`, or both.
    Protocol(Vec<(String, &'static str)>),
    /// Different request patterns (by the patterns file's SHA-256, which only runs
    /// from a file record): `"reads.txt (sha256:1a2b3c4d)"` per run.
    Patterns(Vec<(String, String)>),
    /// `random` against `sequential`: caches meet the requests differently.
    Order(Vec<(String, String)>),
    /// Per-client pause between requests, seconds.
    Wait(Vec<(String, f64)>),
    /// `--expect-cache-hit-rate`, 0..1 (`None`: not planned).
    CachePlan(Vec<(String, Option<f64>)>),
    /// `--shard K/N` as "K/N" (`None`: the whole run, or shards merged).
    Shard(Vec<(String, Option<String>)>),
    /// The hosts each run sent to: expected to differ when systems are compared, but
    /// worth seeing.
    Targets(Vec<(String, Vec<String>)>),
}

impl SetupDifference {
    /// Differences that change what the numbers mean (not just where they came from).
    pub fn is_serious(&self) -> bool {
        !matches!(self, SetupDifference::Targets(_))
    }
}

/// The settings in which `series` differ, in a fixed order.
pub fn setup_differences(series: &[Series]) -> Vec<SetupDifference> {
    fn differ<T: PartialEq>(v: &[(String, T)]) -> bool {
        v.windows(2).any(|w| w[0].1 != w[1].1)
    }
    let mut out = Vec::new();
    let models: Vec<(String, bool)> = series
        .iter()
        .map(|s| (s.label.clone(), s.is_open_model()))
        .collect();
    if differ(&models) {
        out.push(SetupDifference::OpenModel(models));
    }
    let protocols: Vec<(String, &'static str)> = series
        .iter()
        .map(|s| (s.label.clone(), protocol(s)))
        .collect();
    if differ(&protocols) {
        out.push(SetupDifference::Protocol(protocols));
    }
    let with_settings: Vec<_> = series
        .iter()
        .filter_map(|s| s.settings.as_ref().map(|st| (s, st)))
        .collect();
    if with_settings.len() < 2 {
        return out;
    }
    // A suite's phases and a search's probes have lengths of their own, not a step
    // duration: a suite beside a ramp read as "by request count".
    let durations: Vec<(String, Option<f64>)> = with_settings
        .iter()
        .filter(|(s, _)| s.points_are == PointsAre::Steps)
        .map(|(s, st)| (s.label.clone(), st.duration_s))
        .collect();
    if differ(&durations) {
        out.push(SetupDifference::StepDuration(durations));
    }
    let keep_alive: Vec<(String, bool)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.keep_alive))
        .collect();
    if differ(&keep_alive) {
        out.push(SetupDifference::KeepAlive(keep_alive));
    }
    let pipeline: Vec<(String, Option<u64>)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.pipeline.filter(|&n| n > 1)))
        .collect();
    if differ(&pipeline) {
        out.push(SetupDifference::Pipeline(pipeline));
    }
    let coalesce: Vec<(String, Option<u64>)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.coalesce_us))
        .collect();
    if differ(&coalesce) {
        out.push(SetupDifference::Coalesce(coalesce));
    }
    // Only runs from a patterns file record its hash; a URL's "patterns" is the URL,
    // which differs with the target and says nothing of the work.
    let patterns: Vec<(String, String)> = with_settings
        .iter()
        .filter_map(|(s, st)| {
            let sha = st.patterns_sha256.as_deref()?;
            let short = sha.get(..15).unwrap_or(sha);
            Some((s.label.clone(), format!("{} ({short})", st.patterns_source)))
        })
        .collect();
    let shas: Vec<Option<&String>> = with_settings
        .iter()
        .filter_map(|(_, st)| st.patterns_sha256.as_ref().map(Some))
        .collect();
    if shas.len() >= 2 && shas.windows(2).any(|w| w[0] != w[1]) {
        out.push(SetupDifference::Patterns(patterns));
    }
    let order: Vec<(String, String)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.order.to_string()))
        .collect();
    if differ(&order) {
        out.push(SetupDifference::Order(order));
    }
    let wait: Vec<(String, f64)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.wait_s))
        .collect();
    if differ(&wait) {
        out.push(SetupDifference::Wait(wait));
    }
    let cache: Vec<(String, Option<f64>)> = with_settings
        .iter()
        .map(|(s, st)| (s.label.clone(), st.planned_cache_hit_rate))
        .collect();
    if differ(&cache) {
        out.push(SetupDifference::CachePlan(cache));
    }
    let shard: Vec<(String, Option<String>)> = with_settings
        .iter()
        .map(|(s, st)| {
            (
                s.label.clone(),
                st.shard.map(|k| format!("{}/{}", k.index, k.count)),
            )
        })
        .collect();
    if differ(&shard) {
        out.push(SetupDifference::Shard(shard));
    }
    let targets: Vec<(String, Vec<String>)> = with_settings
        .iter()
        .map(|(s, _)| (s.label.clone(), s.targets.clone()))
        .collect();
    if differ(&targets) {
        out.push(SetupDifference::Targets(targets));
    }
    out
}

/// What a run's connections spoke, over all its steps (HTTP/1.1 for files that do not
/// say: they come from before HTTP/2).
fn protocol(s: &Series) -> &'static str {
    let h2 = s.points.iter().any(|p| p.connections_http2 > 0);
    let h1 = s
        .points
        .iter()
        .any(|p| p.connections_opened.unwrap_or(1) > p.connections_http2);
    match (h2, h1) {
        (true, true) => "HTTP/2 and HTTP/1.1",
        (true, false) => "HTTP/2",
        _ => "HTTP/1.1",
    }
}

/// One setting that differs between compared bulk writes (`hakaru bulk`): what it is
/// ("target", "document", …) and each run's value, already worded for a reader.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkDifference {
    pub what: &'static str,
    pub values: Vec<(String, String)>,
}

/// The settings in which compared bulk writes differ so that their documents per
/// second may not mean the same: the kind of target (and single inserts), the bulk
/// action, the document template (and so its size), `--verify`, and the sets of
/// writers and batch sizes stepped through. In a fixed order.
pub fn bulk_differences(runs: &[(&str, &crate::result::RunResult)]) -> Vec<BulkDifference> {
    let value = |f: &dyn Fn(&crate::result::RunResult) -> String| -> Vec<(String, String)> {
        runs.iter().map(|(l, r)| (l.to_string(), f(r))).collect()
    };
    let bulk = |r: &crate::result::RunResult| r.settings.bulk.clone().unwrap_or_default();
    let set = |r: &crate::result::RunResult, f: fn(&crate::result::BulkStepResult) -> u64| {
        let mut v: Vec<u64> = r
            .steps
            .iter()
            .filter_map(|s| s.bulk.as_ref())
            .map(f)
            .collect();
        v.sort_unstable();
        v.dedup();
        v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
    };
    let candidates: [(&'static str, Vec<(String, String)>); 5] = [
        (
            "target",
            value(&|r| {
                let b = bulk(r);
                if b.single {
                    format!("{} single inserts", b.target)
                } else {
                    b.target
                }
            }),
        ),
        (
            "action",
            value(&|r| bulk(r).action.unwrap_or_else(|| "none".into())),
        ),
        (
            "document",
            value(&|r| {
                let doc = bulk(r).doc;
                let shown: String = doc.chars().take(32).collect();
                let more = if shown.len() < doc.len() { "…" } else { "" };
                format!("{shown}{more} ({} B)", doc.len())
            }),
        ),
        (
            "verify",
            value(&|r| if r.verify.is_some() { "on" } else { "off" }.into()),
        ),
        (
            "writers × batch",
            value(&|r| {
                format!(
                    "{} × {}",
                    set(r, |b| b.writers as u64),
                    set(r, |b| b.batch_size)
                )
            }),
        ),
    ];
    candidates
        .into_iter()
        .filter(|(_, v)| v.windows(2).any(|w| w[0].1 != w[1].1))
        .map(|(what, values)| BulkDifference { what, values })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::series::{Point, SourceFormat};
    use crate::result::Settings;

    fn series(label: &str, rate: Option<f64>, keep_alive: bool, target: &str) -> Series {
        Series {
            label: label.into(),
            source: "x.json".into(),
            format: SourceFormat::HakaruJson,
            points: vec![Point {
                n_clients: 10,
                rate,
                ..Point::default()
            }],
            settings: Some(Settings {
                duration_s: Some(30.0),
                keep_alive,
                ..Settings::default()
            }),
            machine: None,
            command_line: Vec::new(),
            tool: None,
            started_at: None,
            targets: vec![target.into()],
            partial: false,
            state: Default::default(),
            named: None,
            points_are: Default::default(),
        }
    }

    #[test]
    fn names_what_differs_and_nothing_else() {
        let a = series("a", None, true, "http://node0:10041");
        let b = series("b", Some(100.0), false, "http://node0:10041");
        let d = setup_differences(&[a.clone(), b]);
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0],
            SetupDifference::OpenModel(vec![("a".into(), false), ("b".into(), true)])
        );
        assert!(matches!(&d[1], SetupDifference::KeepAlive(_)));
        let c = series("c", None, true, "http://node1:10041");
        let d = setup_differences(&[a.clone(), c]);
        assert_eq!(d.len(), 1);
        assert!(!d[0].is_serious());
        assert!(setup_differences(&[a.clone(), a]).is_empty());
    }

    #[test]
    fn runs_that_spoke_different_protocols_are_told_apart() {
        let a = series("h1", None, true, "http://a");
        let mut b = series("h2", None, true, "http://a");
        b.points[0].connections_opened = Some(10);
        b.points[0].connections_http2 = 10;
        let d = setup_differences(&[a.clone(), b.clone()]);
        assert_eq!(
            d,
            vec![SetupDifference::Protocol(vec![
                ("h1".into(), "HTTP/1.1"),
                ("h2".into(), "HTTP/2")
            ])]
        );
        assert!(d[0].is_serious());
        // Two HTTP/2 runs: nothing to say.
        assert!(setup_differences(&[b.clone(), b]).is_empty());
    }

    /// A suite compared beside a ramp was told its "step duration" differed, "by
    /// request count": a suite records no step duration, its phases have their own.
    #[test]
    fn a_suite_beside_a_ramp_has_no_step_duration_to_differ_in() {
        let ramp = series("ramp", None, true, "http://a");
        let mut suite = series("suite", None, true, "http://a");
        suite.points_are = PointsAre::Phases;
        suite.settings.as_mut().unwrap().duration_s = None;
        let d = setup_differences(&[ramp.clone(), suite]);
        assert!(
            d.iter()
                .all(|d| !matches!(d, SetupDifference::StepDuration(_))),
            "{d:?}"
        );
        let mut short = ramp.clone();
        short.settings.as_mut().unwrap().duration_s = Some(5.0);
        assert!(matches!(
            setup_differences(&[ramp, short])[0],
            SetupDifference::StepDuration(_)
        ));
    }

    /// A store measured at pipeline 16 and another at 1 differ in depth, which alone
    /// changes operations/s several times over (`settings.pipeline` was recorded but
    /// `compare` did not say it). `--pipeline 1` is the unpipelined run.
    #[test]
    fn runs_with_and_without_coalesce_are_told_apart() {
        let mut a = series("a", None, true, "http://a");
        let mut b = series("b", None, true, "http://a");
        a.settings.as_mut().unwrap().coalesce_us = Some(500);
        b.settings.as_mut().unwrap().coalesce_us = None;
        assert_eq!(
            setup_differences(&[a, b]),
            vec![SetupDifference::Coalesce(vec![
                ("a".into(), Some(500)),
                ("b".into(), None)
            ])]
        );
    }

    #[test]
    fn runs_at_different_pipeline_depths_are_told_apart() {
        let mut a = series("redis", None, true, "redis://a:6379");
        let mut b = series("memcached", None, true, "memcached://a:11211");
        a.settings.as_mut().unwrap().pipeline = Some(16);
        let d = setup_differences(&[a.clone(), b.clone()]);
        assert!(d.contains(&SetupDifference::Pipeline(vec![
            ("redis".into(), Some(16)),
            ("memcached".into(), None)
        ])));
        assert!(d.iter().all(|d| !matches!(d, SetupDifference::Protocol(_))));
        b.settings.as_mut().unwrap().pipeline = Some(1);
        a.settings.as_mut().unwrap().pipeline = None;
        let d = setup_differences(&[a, b]);
        assert!(d.iter().all(|d| !matches!(d, SetupDifference::Pipeline(_))));
    }
}
