//! A weighted mix of workloads (`suite`'s `[[phase.workload]]`): each request of a
//! client comes from one of several workloads drawn by weight, and its answer goes to
//! that workload's check. The mix has phases — each its own set of workloads and
//! weights — and [`Mix::set_phase`] picks the one the next step's clients draw from.
//!
//! The parts' hosts are joined into one list (the same host once), so a client keeps
//! one connection per host whatever part a request comes from. Named
//! ([`Mix::with_names`]), each part's requests are counted under its label
//! (`workload=NAME`) in the phase's step.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::engine::{Answer, ClientId, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::Target;
use crate::result::RequestInfo;
use crate::rng::SplitMix64;
use crate::stats::{ItemCounts, LabelSet, Labels};

/// A workload behind a pointer: what the mix needs of each part.
pub trait AnyWorkload: Send + Sync {
    fn targets(&self) -> &[Target];
    fn request_infos(&self) -> Vec<RequestInfo>;
    fn boxed_client(&self, id: ClientId) -> (Box<dyn RequestSource>, Box<dyn ResponseCheck>);
    /// The workload's own labels ([`Workload::labels`]).
    fn own_labels(&self) -> Arc<Labels>;
}

impl<W: Workload> AnyWorkload for W {
    fn targets(&self) -> &[Target] {
        Workload::targets(self)
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        Workload::request_infos(self)
    }

    fn boxed_client(&self, id: ClientId) -> (Box<dyn RequestSource>, Box<dyn ResponseCheck>) {
        let (s, c) = self.client(id);
        (Box::new(s), Box::new(c))
    }

    fn own_labels(&self) -> Arc<Labels> {
        Workload::labels(self)
    }
}

/// One workload of a phase, with its weight and where its hosts and requests sit in
/// the mix's joined lists.
struct Part {
    workload: Arc<dyn AnyWorkload>,
    weight: u64,
    /// The part's target index → the mix's.
    targets: Arc<[usize]>,
    /// Added to the part's request index.
    info_offset: usize,
    /// The part's label in its phase's [`Labels`]; `None` in a phase of one
    /// workload, whose requests keep the labels their workload gave them.
    label: Option<u16>,
}

/// Where `t` (labelled `label`) already is among the mix's targets. Parts on one
/// host share its target (and each client's connection to it); a SQL target is
/// shared only when the rest is the same too: its label names the server, not the
/// database, the user or the `-M` mode, and one client's connection carries one of
/// each (two scripts of a phase in simple and prepared mode, or phases on two
/// databases of one server, each went to the first one's).
fn position(targets: &[Target], labels: &[String], t: &Target, label: &str) -> Option<usize> {
    (labels.iter().zip(targets))
        .position(|(l, o)| l == label && (!t.proto.is_sql() || o.proto == t.proto))
}

/// Phases of weighted workloads, one phase drawn from at a time.
pub struct Mix {
    targets: Vec<Target>,
    infos: Vec<RequestInfo>,
    phases: Vec<Vec<Part>>,
    /// Each phase's labels (empty until named, or for a phase of one workload).
    labels: Vec<Arc<Labels>>,
    current: AtomicUsize,
    seed: u64,
}

impl Mix {
    /// `phases[i]`: the workloads of phase `i` with their weights (each above 0).
    pub fn new(phases: Vec<Vec<(Arc<dyn AnyWorkload>, u32)>>, seed: u64) -> Mix {
        let mut targets: Vec<Target> = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        let mut infos = Vec::new();
        let phases: Vec<Vec<Part>> = phases
            .into_iter()
            .map(|parts| {
                parts
                    .into_iter()
                    .map(|(workload, weight)| {
                        let map: Vec<usize> = workload
                            .targets()
                            .iter()
                            .map(|t| {
                                let label = t.label();
                                match position(&targets, &labels, t, &label) {
                                    Some(i) => i,
                                    None => {
                                        labels.push(label);
                                        targets.push(t.clone());
                                        targets.len() - 1
                                    }
                                }
                            })
                            .collect();
                        let info_offset = infos.len();
                        infos.extend(workload.request_infos());
                        Part {
                            workload,
                            weight: u64::from(weight.max(1)),
                            targets: map.into(),
                            info_offset,
                            label: None,
                        }
                    })
                    .collect()
            })
            .collect();
        // A phase of one workload is labelled as that workload labels its requests
        // (a YCSB mix by operation); one of several, by workload ([`Mix::with_names`]).
        let labels = (phases.iter())
            .map(|parts| match &parts[..] {
                [one] => one.workload.own_labels(),
                _ => Arc::default(),
            })
            .collect();
        Mix {
            targets,
            infos,
            labels,
            phases,
            current: AtomicUsize::new(0),
            seed,
        }
    }

    /// Label each part's requests `workload=NAME` (`names[phase][part]`), busiest
    /// first by weight; a phase whose names do not match its parts stays unlabelled,
    /// and a phase of one workload keeps that workload's own labels.
    pub fn with_names(mut self, names: &[Vec<String>]) -> Mix {
        for (i, (parts, names)) in self.phases.iter_mut().zip(names).enumerate() {
            if parts.len() != names.len() || parts.len() < 2 {
                continue;
            }
            let mut order: Vec<usize> = (0..parts.len()).collect();
            order.sort_by_key(|j| std::cmp::Reverse(parts[*j].weight));
            let mut set = LabelSet::new();
            for j in order {
                parts[j].label = Some(set.intern("workload", &names[j]));
            }
            self.labels[i] = Arc::new(set.finish("the phase's workloads"));
        }
        self
    }

    /// The phase the next clients draw from (between steps).
    pub fn set_phase(&self, phase: usize) {
        self.current.store(
            phase.min(self.phases.len().saturating_sub(1)),
            Ordering::SeqCst,
        );
    }
}

struct SourcePart {
    source: Box<dyn RequestSource>,
    /// Cumulative weight: this part is drawn when the draw is below it.
    upto: u64,
    targets: Arc<[usize]>,
    info_offset: usize,
    label: Option<u16>,
}

/// A client of the mix: draws a part by weight, then that part's next request.
pub struct MixSource {
    parts: Vec<SourcePart>,
    total: u64,
    rng: SplitMix64,
    /// The part of the request in flight, for the check.
    chosen: Rc<Cell<usize>>,
}

impl RequestSource for MixSource {
    #[inline]
    fn next(&mut self, turn: Turn) -> Request<'_> {
        let i = if self.parts.len() == 1 {
            0
        } else {
            let x = self.rng.next_u64() % self.total;
            self.parts.iter().position(|p| x < p.upto).unwrap_or(0)
        };
        self.chosen.set(i);
        let p = &mut self.parts[i];
        let r = p.source.next(turn);
        Request {
            target: p.targets[r.target],
            info: r.info + p.info_offset,
            label: p.label.unwrap_or(r.label),
            expect: crate::engine::Expect::ANY,
            ..r
        }
    }

    /// The drawn part's conversation (a SQL transaction), when it is one.
    fn session(&mut self) -> Option<&mut dyn crate::sql::interp::Conversation> {
        self.parts[self.chosen.get()].source.session()
    }

    /// The drawn part's request as it went (a store's command with its key).
    fn sent(&self) -> Option<String> {
        self.parts[self.chosen.get()].source.sent()
    }
}

/// The checks of a client's parts; each answer goes to the part that asked.
pub struct MixCheck {
    checks: Vec<Box<dyn ResponseCheck>>,
    limit: usize,
    chosen: Rc<Cell<usize>>,
}

impl ResponseCheck for MixCheck {
    fn body_limit(&self) -> usize {
        self.limit
    }

    #[inline]
    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        self.checks[self.chosen.get()].check(answer, items);
    }
}

impl Workload for Mix {
    type Source = MixSource;
    type Check = MixCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        self.infos.clone()
    }

    fn labels(&self) -> Arc<Labels> {
        self.labels[self.current.load(Ordering::SeqCst)].clone()
    }

    fn client(&self, id: ClientId) -> (MixSource, MixCheck) {
        let phase = &self.phases[self.current.load(Ordering::SeqCst)];
        let chosen = Rc::new(Cell::new(0));
        let mut upto = 0;
        let mut parts = Vec::with_capacity(phase.len());
        let mut checks = Vec::with_capacity(phase.len());
        for p in phase {
            let (source, check) = p.workload.boxed_client(id);
            upto += p.weight;
            parts.push(SourcePart {
                source,
                upto,
                targets: p.targets.clone(),
                info_offset: p.info_offset,
                label: p.label,
            });
            checks.push(check);
        }
        let limit = checks.iter().map(|c| c.body_limit()).max().unwrap_or(0);
        let seed = crate::rng::derive(id.seed(self.seed), id.index as u64);
        (
            MixSource {
                parts,
                total: upto.max(1),
                rng: SplitMix64::new(seed),
                chosen: chosen.clone(),
            },
            MixCheck {
                checks,
                limit,
                chosen,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Defaults, Order, Plan};
    use crate::workload::PlanWorkload;

    fn plan(url: &str) -> Arc<dyn AnyWorkload> {
        let set = crate::pattern::from_url(url).expect("a URL");
        let plan = Plan::build(&set, &Defaults::default()).expect("a plan");
        Arc::new(PlanWorkload {
            plan: Arc::new(plan),
            order: Order::Random,
            seed: 1,
        })
    }

    #[test]
    fn draws_by_weight_and_joins_the_hosts() {
        let a = plan("http://127.0.0.1:1/a");
        let b = plan("http://127.0.0.1:2/b");
        let c = plan("http://127.0.0.1:1/c");
        let mix = Mix::new(vec![vec![(a, 95), (b, 5)], vec![(c, 1)]], 7);
        assert_eq!(mix.targets.len(), 2);
        assert_eq!(mix.infos.len(), 3);
        let (mut s, _) = mix.client(0.into());
        let mut counts = [0u32; 2];
        for n in 0..10_000 {
            let r = s.next(Turn {
                client: 0,
                n,
                index: None,
            });
            counts[r.target] += 1;
            assert_eq!(r.info, r.target, "a's request is info 0, b's info 1");
        }
        assert!((9300..9700).contains(&counts[0]), "{counts:?}");
        mix.set_phase(1);
        let (mut s, _) = mix.client(3.into());
        let r = s.next(Turn {
            client: 3,
            n: 0,
            index: None,
        });
        assert_eq!((r.target, r.info), (0, 2), "c's host is a's");
        assert_eq!(mix.infos[2].url, "http://127.0.0.1:1/c");
    }

    /// A phase is a step of the suite's run: each phase draws its parts anew, and a
    /// part's own requests too, rather than replaying the phase before.
    #[test]
    fn each_draw_picks_its_own_parts() {
        let mix = Mix::new(
            vec![vec![
                (plan("http://127.0.0.1:1/a"), 1),
                (plan("http://127.0.0.1:2/b"), 1),
            ]],
            7,
        );
        let picks = |draw| {
            let (mut s, _) = mix.client(ClientId::new(2, draw));
            (0..200)
                .map(|n| {
                    s.next(Turn {
                        client: 2,
                        n,
                        index: None,
                    })
                    .target
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(1), picks(1));
        // Two fair coins agree about 100 times in 200; a replay 200 times.
        let same = (picks(0).iter().zip(&picks(1)))
            .filter(|(a, b)| a == b)
            .count();
        assert!(same < 150, "{same} of 200 parts as in draw 0");
    }

    #[test]
    fn named_parts_are_labels_of_their_phase() {
        let (a, b, c) = (
            plan("http://127.0.0.1:1/a"),
            plan("http://127.0.0.1:2/b"),
            plan("http://127.0.0.1:1/c"),
        );
        let names = [vec!["a".to_string(), "b".into()], vec!["c".to_string()]];
        let mix = Mix::new(vec![vec![(a, 5), (b, 95)], vec![(c, 1)]], 7).with_names(&names);
        let values: Vec<String> = mix.labels().list.iter().map(|l| l.value.clone()).collect();
        assert_eq!(values, ["b", "a"]);
        let (mut s, _) = mix.client(0.into());
        for n in 0..100 {
            let r = s.next(Turn {
                client: 0,
                n,
                index: None,
            });
            // b (label 0) is on the second host, a (label 1) on the first.
            assert_eq!(usize::from(r.label), 1 - r.target);
        }
        mix.set_phase(1);
        assert!(mix.labels().is_empty(), "one workload: no breakdown");
    }
}
