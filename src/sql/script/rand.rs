//! A client's random state for `\set`'s random functions: xoshiro256** (Blackman and
//! Vigna), as pgbench's own generator is a xoshiro, seeded from `--random-seed` and
//! the client's id so a run repeats exactly. The draws follow pgbench's definitions:
//! `random` uniform and inclusive, `random_exponential` and `random_gaussian` by
//! inversion and Box–Muller cut to the range, `random_zipfian` by Devroye's rejection
//! (pgbench's `computeIterativeZipfian`).

/// One client's generator.
#[derive(Debug, Clone)]
pub struct Rand {
    s: [u64; 4],
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rand {
    /// The generator of `client` under `seed`: distinct clients, distinct streams.
    pub fn new(seed: u64, client: u64) -> Rand {
        let mut x = seed ^ splitmix(&mut client.wrapping_mul(0xD1B5_4A32_D192_ED03).clone());
        let s = [
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
            splitmix(&mut x),
        ];
        Rand { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in [0, 1).
    pub fn double(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lb..=ub` (the caller checked `lb <= ub` and that the width fits).
    pub fn uniform(&mut self, lb: i64, ub: i64) -> i64 {
        let n = (ub - lb) as u64 + 1;
        // Rejection keeps it unbiased for any width.
        let zone = u64::MAX - (u64::MAX - n + 1) % n;
        loop {
            let x = self.next_u64();
            if x <= zone {
                return lb + (x % n) as i64;
            }
        }
    }

    pub fn exponential(&mut self, lb: i64, ub: i64, param: f64) -> i64 {
        let n = (ub - lb + 1) as f64;
        let cut = (-param).exp();
        // 1 - U is in (0, 1], so the log never sees 0.
        let u = 1.0 - self.double();
        let r = -(cut + (1.0 - cut) * u).ln() / param;
        lb + ((n * r) as i64).min(ub - lb)
    }

    pub fn gaussian(&mut self, lb: i64, ub: i64, param: f64) -> i64 {
        let n = (ub - lb + 1) as f64;
        let stdev = loop {
            let r1 = 1.0 - self.double();
            let r2 = self.double();
            let z = (-2.0 * r1.ln()).sqrt() * (2.0 * std::f64::consts::PI * r2).sin();
            if z >= -param && z < param {
                break z;
            }
        };
        let r = (stdev + param) / (param * 2.0);
        lb + ((n * r) as i64).min(ub - lb)
    }

    pub fn zipfian(&mut self, lb: i64, ub: i64, s: f64) -> i64 {
        let n = (ub - lb + 1) as f64;
        let b = 2f64.powf(s - 1.0);
        loop {
            let u = 1.0 - self.double();
            let v = self.double();
            let x = u.powf(-1.0 / (s - 1.0)).floor();
            let t = (1.0 + 1.0 / x).powf(s - 1.0);
            if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n {
                return lb + x as i64 - 1;
            }
        }
    }
}

/// `permute(i, size, seed)`: a bijection of `0..size` chosen by the seed, so that
/// `permute(random(0, n-1), n)` spreads a skewed draw's hot values over the range.
/// `i` outside the range is taken modulo `size` first, as pgbench does. The mixing
/// is a keyed 4-round Feistel network over the next power of two with cycle-walking
/// back into range, not pgbench's exact sequence: the same property, another map.
pub fn permute(i: i64, size: i64, seed: u64) -> i64 {
    let size = size as u64;
    let mut v = i.rem_euclid(size as i64) as u64;
    if size <= 1 {
        return 0;
    }
    let bits = 64 - (size - 1).leading_zeros();
    let half = bits.div_ceil(2);
    let mask = (1u64 << half) - 1;
    loop {
        let (mut l, mut r) = (v >> half, v & mask);
        for round in 0..4u64 {
            let mut k = seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ r;
            let f = splitmix(&mut k) & mask;
            let nl = r;
            r = (l ^ f) & mask;
            l = nl;
        }
        v = (l << half) | r;
        if v < size {
            return v as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_inclusive_and_flat() {
        let mut r = Rand::new(1, 0);
        let mut seen = [0u32; 5];
        for _ in 0..50_000 {
            let x = r.uniform(1, 5);
            seen[(x - 1) as usize] += 1;
        }
        for c in seen {
            assert!((9_000..11_000).contains(&c), "{seen:?}");
        }
    }

    #[test]
    fn exponential_and_gaussian_stay_in_range_with_their_shapes() {
        let mut r = Rand::new(2, 0);
        let (mut low, mut mid) = (0, 0);
        for _ in 0..20_000 {
            let e = r.exponential(1, 100, 5.0);
            assert!((1..=100).contains(&e));
            if e <= 20 {
                low += 1;
            }
            let g = r.gaussian(1, 100, 2.5);
            assert!((1..=100).contains(&g));
            if (41..=60).contains(&g) {
                mid += 1;
            }
        }
        // Exponential, param 5: P(first 20%) = (1 - e^-1) / (1 - e^-5) ≈ 0.636.
        assert!((12_000..13_500).contains(&low), "{low}");
        // Gaussian, param 2.5: the middle 20% holds about 0.38 of the draws.
        assert!((7_000..8_400).contains(&mid), "{mid}");
    }

    #[test]
    fn zipfian_favours_the_first_values() {
        let mut r = Rand::new(3, 0);
        let mut counts = [0u32; 10];
        for _ in 0..20_000 {
            let z = r.zipfian(1, 10, 1.5);
            assert!((1..=10).contains(&z));
            counts[(z - 1) as usize] += 1;
        }
        // s = 1.5: P(1)/P(2) = 2^1.5 ≈ 2.83.
        let ratio = counts[0] as f64 / counts[1] as f64;
        assert!((2.5..3.2).contains(&ratio), "{counts:?}");
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    }

    #[test]
    fn permute_is_a_bijection() {
        for size in [1i64, 2, 7, 100, 1000] {
            let mut seen = vec![false; size as usize];
            for i in 0..size {
                let p = permute(i, size, 42);
                assert!(!seen[p as usize], "size {size}: {p} twice");
                seen[p as usize] = true;
            }
        }
        assert_ne!(
            (0..10).map(|i| permute(i, 1000, 1)).collect::<Vec<_>>(),
            (0..10).map(|i| permute(i, 1000, 2)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn clients_draw_apart() {
        let a: Vec<u64> = (0..4).map(|_| Rand::new(7, 0).next_u64()).collect();
        let b = Rand::new(7, 1).next_u64();
        assert!(!a.contains(&b));
    }
}
