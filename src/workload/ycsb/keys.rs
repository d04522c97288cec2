//! Which record a YCSB operation touches: the request distributions of YCSB's core
//! workloads (Cooper et al., "Benchmarking Cloud Serving Systems with YCSB", SoCC
//! 2010), drawn the way YCSB's own generators draw them so that a hakaru run and a
//! YCSB run stress the same keys.
//!
//! - **uniform**: every record alike.
//! - **zipfian**: YCSB's `ScrambledZipfianGenerator` — Gray et al.'s Zipfian generator
//!   ("Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994) over 10^10
//!   items with the constant 0.99 and its precomputed ζ(10^10, 0.99), each draw then
//!   scattered by FNV-1a 64 and reduced modulo the record count: the popular records
//!   are spread over the key space, not bunched at its start.
//! - **latest**: YCSB's `SkewedLatestGenerator` — Zipfian over the records inserted so
//!   far, counted back from the newest: the newest record is the most popular.
//!
//! Every draw is arithmetic on state the chooser owns; nothing allocates. A chooser
//! for a growing record count extends ζ by the new items only.

use crate::rng::SplitMix64;

/// YCSB's `ZIPFIAN_CONSTANT`.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// YCSB's `ScrambledZipfianGenerator.ITEM_COUNT`: the scrambled generator draws over
/// this many items and reduces the draw modulo the record count.
pub const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
/// ζ(10^10, 0.99), as YCSB precomputes it (`ScrambledZipfianGenerator.ZETAN`).
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// How an operation picks its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    Zipfian,
    Latest,
}

impl Distribution {
    pub fn parse(s: &str) -> Option<Distribution> {
        match s {
            "uniform" => Some(Distribution::Uniform),
            "zipfian" => Some(Distribution::Zipfian),
            "latest" => Some(Distribution::Latest),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Zipfian => "zipfian",
            Distribution::Latest => "latest",
        }
    }
}

/// ζ(n, θ) = Σ_{i=1..n} 1/i^θ, continued from ζ(from, θ) = `sum`.
pub fn zeta(from: u64, n: u64, theta: f64, sum: f64) -> f64 {
    (from..n).fold(sum, |z, i| z + 1.0 / ((i + 1) as f64).powf(theta))
}

/// YCSB's `Utils.fnvhash64`: FNV-1a over the value's 8 bytes, least significant
/// first, made non-negative as Java's `Math.abs` does.
#[inline]
pub fn fnv_hash64(mut v: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h ^= v & 0xff;
        h = h.wrapping_mul(1_099_511_628_211);
        v >>= 8;
    }
    (h as i64).unsigned_abs()
}

/// Gray et al.'s Zipfian generator as YCSB's `ZipfianGenerator` implements it: draws
/// in `0..n`, 0 the most popular. The item count may grow between draws (the
/// `latest` distribution); ζ is then extended, never recomputed.
#[derive(Debug, Clone, Copy)]
pub struct Zipfian {
    theta: f64,
    alpha: f64,
    zeta2: f64,
    /// ζ(count, θ).
    zetan: f64,
    count: u64,
    eta: f64,
}

impl Zipfian {
    /// Over `n` items (at least 1), computing ζ(n, θ): O(n), once.
    pub fn new(n: u64, theta: f64) -> Zipfian {
        let n = n.max(1);
        Zipfian::with_zetan(n, theta, zeta(0, n, theta, 0.0))
    }

    /// Over `n` items with ζ(n, θ) already known.
    pub fn with_zetan(n: u64, theta: f64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(0, 2, theta, 0.0);
        let mut z = Zipfian {
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2,
            zetan,
            count: n.max(1),
            eta: 0.0,
        };
        z.eta = z.eta_for(z.count);
        z
    }

    fn eta_for(&self, n: u64) -> f64 {
        (1.0 - (2.0 / n as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// The items it draws over.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// A draw in `0..n`. A larger `n` than the last extends ζ by the new items; a
    /// smaller one (never asked by hakaru) is computed afresh.
    #[inline]
    pub fn next(&mut self, rng: &mut SplitMix64, n: u64) -> u64 {
        let n = n.max(1);
        if n != self.count {
            self.zetan = if n > self.count {
                zeta(self.count, n, self.theta, self.zetan)
            } else {
                zeta(0, n, self.theta, 0.0)
            };
            self.count = n;
            self.eta = self.eta_for(n);
        }
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(n - 1);
        }
        let v = (n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(n - 1)
    }
}

/// One client's key chooser for one distribution.
#[derive(Debug, Clone, Copy)]
pub struct KeyChooser {
    dist: Distribution,
    /// `zipfian`: over [`SCRAMBLED_ITEMS`]; `latest`: over the records so far.
    zipf: Zipfian,
}

impl KeyChooser {
    /// For `records` records at the start. `latest` computes ζ(records) here: build one
    /// per workload and copy it into each client.
    pub fn new(dist: Distribution, records: u64) -> KeyChooser {
        let zipf = match dist {
            Distribution::Zipfian => {
                Zipfian::with_zetan(SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN)
            }
            Distribution::Latest => Zipfian::new(records, ZIPFIAN_CONSTANT),
            // Not drawn from.
            Distribution::Uniform => Zipfian::with_zetan(2, ZIPFIAN_CONSTANT, 1.0),
        };
        KeyChooser { dist, zipf }
    }

    pub fn distribution(&self) -> Distribution {
        self.dist
    }

    /// A record in `0..n` (n ≥ 1): position `n - 1` is the newest.
    #[inline]
    pub fn next(&mut self, rng: &mut SplitMix64, n: u64) -> u64 {
        let n = n.max(1);
        match self.dist {
            Distribution::Uniform => rng.next_u64() % n,
            Distribution::Zipfian => {
                let z = self.zipf.next(rng, SCRAMBLED_ITEMS);
                fnv_hash64(z) % n
            }
            Distribution::Latest => n - 1 - self.zipf.next(rng, n),
        }
    }
}

// A draw cannot allocate: the chooser owns nothing on the heap (no drop glue).
const _: () = assert!(!std::mem::needs_drop::<KeyChooser>());

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(mut c: KeyChooser, n: u64, draws: usize, seed: u64) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        let mut out = vec![0u64; n as usize];
        for _ in 0..draws {
            let k = c.next(&mut rng, n);
            assert!(k < n);
            out[k as usize] += 1;
        }
        out
    }

    #[test]
    fn fnv_matches_ycsb() {
        // FNV-1a of one zero byte is FNV's published 0xaf63bd4c8601b7df; of eight,
        // seven more rounds of the prime.
        let h0 = {
            let mut h: u64 = 0xCBF2_9CE4_8422_2325;
            for _ in 0..8 {
                h = h.wrapping_mul(1_099_511_628_211);
            }
            (h as i64).unsigned_abs()
        };
        assert_eq!(fnv_hash64(0), h0);
        let one = 0xCBF2_9CE4_8422_2325_u64.wrapping_mul(1_099_511_628_211);
        assert_eq!(one, 0xaf63_bd4c_8601_b7df);
        assert_ne!(fnv_hash64(1), fnv_hash64(256));
    }

    #[test]
    fn zeta_extends_exactly() {
        let whole = zeta(0, 1000, ZIPFIAN_CONSTANT, 0.0);
        let split = zeta(
            400,
            1000,
            ZIPFIAN_CONSTANT,
            zeta(0, 400, ZIPFIAN_CONSTANT, 0.0),
        );
        assert!((whole - split).abs() < 1e-9);
        // ζ(n, 0.99) grows like ln n; YCSB's constant for 10^10 is in that family.
        assert!(whole > 7.0 && whole < 8.0, "{whole}");
        let big = zeta(0, 10_000_000, ZIPFIAN_CONSTANT, 0.0);
        assert!(
            big < SCRAMBLED_ZETAN && big > SCRAMBLED_ZETAN * 0.6,
            "{big}"
        );
    }

    #[test]
    fn zipfian_follows_the_law() {
        // Over 1,000 items the first is drawn 1/ζ(1000) of the time (≈ 13%), the
        // second 1/(2^θ ζ), and popularity falls with rank.
        let n = 1000;
        let z = Zipfian::new(n, ZIPFIAN_CONSTANT);
        let mut rng = SplitMix64::new(42);
        let mut c = vec![0u64; n as usize];
        let mut zz = z;
        let draws = 200_000;
        for _ in 0..draws {
            c[zz.next(&mut rng, n) as usize] += 1;
        }
        let zetan = zeta(0, n, ZIPFIAN_CONSTANT, 0.0);
        let p0 = c[0] as f64 / draws as f64;
        assert!((p0 - 1.0 / zetan).abs() < 0.01, "{p0}");
        let p1 = c[1] as f64 / draws as f64;
        assert!(
            (p1 - 1.0 / (2f64.powf(ZIPFIAN_CONSTANT) * zetan)).abs() < 0.01,
            "{p1}"
        );
        assert!(c[0] > c[1] && c[1] > c[10] && c[10] > c[100] && c[100] > c[900]);
        // The top 1% of items take about 40% of the draws (Σ_{1..10} / ζ(1000)).
        let top: u64 = c[..10].iter().sum();
        let expect = zeta(0, 10, ZIPFIAN_CONSTANT, 0.0) / zetan;
        assert!(((top as f64 / draws as f64) - expect).abs() < 0.03, "{top}");
    }

    #[test]
    fn scrambled_zipfian_spreads_its_hot_keys() {
        let n = 1000;
        let c = counts(KeyChooser::new(Distribution::Zipfian, n), n, 200_000, 7);
        let mut sorted = c.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        // Skewed: the hottest key is drawn far more than the uniform 0.1%.
        let hottest = sorted[0] as f64 / 200_000.0;
        assert!(hottest > 0.02, "{hottest}");
        let top10: u64 = sorted[..10].iter().sum();
        assert!(top10 as f64 / 200_000.0 > 0.1, "{top10}");
        // …but the hot keys are not the first ones: scattered by the hash.
        let hot = c.iter().position(|&x| x == sorted[0]).unwrap();
        let first_ten: u64 = c[..10].iter().sum();
        assert!(first_ten < top10 / 2, "{hot} {first_ten} {top10}");
        // Nearly every key is drawn at least once (a long tail, not a cut-off).
        assert!(c.iter().filter(|&&x| x > 0).count() > 900);
    }

    #[test]
    fn uniform_is_flat() {
        let n = 100;
        let c = counts(KeyChooser::new(Distribution::Uniform, n), n, 100_000, 3);
        for (k, x) in c.iter().enumerate() {
            assert!((800..1200).contains(x), "key {k}: {x}");
        }
    }

    #[test]
    fn latest_favours_the_newest_and_follows_inserts() {
        let mut chooser = KeyChooser::new(Distribution::Latest, 1000);
        let c = counts(chooser, 1000, 100_000, 11);
        assert!(c[999] > c[998] && c[998] > c[990] && c[990] > c[900]);
        let p = c[999] as f64 / 100_000.0;
        let zetan = zeta(0, 1000, ZIPFIAN_CONSTANT, 0.0);
        assert!((p - 1.0 / zetan).abs() < 0.01, "{p}");
        // As records are inserted the popular ones move with the newest, and ζ grows
        // by the new items only.
        let mut rng = SplitMix64::new(5);
        let mut newest = 0;
        for n in 1001..=2000u64 {
            if chooser.next(&mut rng, n) == n - 1 {
                newest += 1;
            }
        }
        assert!(newest > 50, "{newest}");
        let grown = Zipfian::new(2000, ZIPFIAN_CONSTANT);
        assert!((chooser.zipf.zetan - grown.zetan).abs() < 1e-9);
        assert_eq!(chooser.zipf.count(), 2000);
    }

    #[test]
    fn one_record_is_always_record_zero() {
        let mut rng = SplitMix64::new(1);
        for d in [
            Distribution::Uniform,
            Distribution::Zipfian,
            Distribution::Latest,
        ] {
            let mut c = KeyChooser::new(d, 1);
            for _ in 0..100 {
                assert_eq!(c.next(&mut rng, 1), 0, "{d:?}");
            }
        }
    }
}
