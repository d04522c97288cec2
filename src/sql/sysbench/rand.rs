//! sysbench's random numbers, as its OLTP tests draw them: xoroshiro128+ (Blackman
//! and Vigna; sysbench's own generator) turned into a double in [0, 1) from its top
//! 52 bits, then `--rand-type`'s distributions over `a..=b` with sysbench's
//! definitions and defaults — uniform; gaussian, the mean of `--rand-spec-iter` (12)
//! uniform draws; special (1.0's default): `--rand-spec-res` (75) % of the draws
//! uniform within the middle `--rand-spec-pct` (1) % of the range, the rest
//! gaussian; pareto with `--rand-pareto-h` 0.2; zipfian with `--rand-zipfian-exp`
//! 0.8 by rejection-inversion (Hörmann and Derflinger, 1996) — its random strings
//! (`#` a digit, `@` a letter) and its unique sequence (a permutation of the 32-bit
//! integers by quadratic residues, Preshing's construction).

/// `--rand-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dist {
    Uniform,
    Gaussian,
    /// sysbench 1.0's default.
    #[default]
    Special,
    Pareto,
    Zipfian,
}

impl Dist {
    pub fn parse(s: &str) -> Option<Dist> {
        Some(match s {
            "uniform" => Dist::Uniform,
            "gaussian" => Dist::Gaussian,
            "special" => Dist::Special,
            "pareto" => Dist::Pareto,
            "zipfian" => Dist::Zipfian,
            _ => return None,
        })
    }
}

/// The distribution's settings, sysbench's defaults unless given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandSpec {
    pub dist: Dist,
    /// `--rand-spec-iter`: uniform draws averaged by gaussian and special.
    pub iter: u32,
    /// `--rand-spec-pct`: the share of the range that special's hot values fill, %.
    pub pct: u32,
    /// `--rand-spec-res`: the share of special's draws that fall on hot values, %.
    pub res: u32,
    /// `--rand-pareto-h`.
    pub pareto_h: f64,
    /// `--rand-zipfian-exp`.
    pub zipf_exp: f64,
}

impl Default for RandSpec {
    fn default() -> Self {
        RandSpec {
            dist: Dist::Special,
            iter: 12,
            pct: 1,
            res: 75,
            pareto_h: 0.2,
            zipf_exp: 0.8,
        }
    }
}

/// One client's generator and the distribution's precomputed constants.
#[derive(Debug, Clone)]
pub struct SbRand {
    s: [u64; 2],
    spec: RandSpec,
    pareto_power: f64,
    zipf_s: f64,
    zipf_h_x1: f64,
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SbRand {
    /// Client `client`'s generator under the run's `seed`.
    pub fn new(spec: RandSpec, seed: u64, client: u64) -> SbRand {
        let mut x = seed ^ client.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [splitmix(&mut x), splitmix(&mut x)];
        if s == [0, 0] {
            s[0] = 1;
        }
        let e = spec.zipf_exp;
        SbRand {
            s,
            spec,
            pareto_power: spec.pareto_h.ln() / (1.0 - spec.pareto_h).ln(),
            zipf_s: 2.0 - h_integral_inverse(h_integral(2.5, e) - h(2.0, e), e),
            zipf_h_x1: h_integral(1.5, e) - 1.0,
        }
    }

    fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.s;
        let r = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s[0] = s0.rotate_left(24) ^ s1 ^ (s1 << 16);
        self.s[1] = s1.rotate_left(37);
        r
    }

    /// Uniform in [0, 1), from the top 52 bits as sysbench makes it.
    pub fn double(&mut self) -> f64 {
        f64::from_bits((0x3FF << 52) | (self.next_u64() >> 12)) - 1.0
    }

    /// `sysbench.rand.uniform(a, b)`.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let n = f64::from(b - a) + 1.0;
        (f64::from(a) + self.double() * n).min(f64::from(b)) as u32
    }

    /// `sysbench.rand.default(a, b)`: `--rand-type`'s distribution.
    pub fn default(&mut self, a: u32, b: u32) -> u32 {
        match self.spec.dist {
            Dist::Uniform => self.uniform(a, b),
            Dist::Gaussian => self.gaussian(a, b),
            Dist::Special => self.special(a, b),
            Dist::Pareto => self.pareto(a, b),
            Dist::Zipfian => self.zipfian(a, b),
        }
    }

    fn gaussian(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a) + 1.0;
        let iter = self.spec.iter.max(1);
        let sum: f64 = (0..iter).map(|_| self.double() * t).sum();
        (a + (sum / f64::from(iter)) as u32).min(b)
    }

    fn special(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a);
        let res_mult = 100.0 / (100.0 - f64::from(self.spec.res.min(99)));
        let rnd = self.double();
        if rnd * t * res_mult < t {
            let iter = self.spec.iter.max(1);
            let sum: f64 = (0..iter).map(|_| self.double()).sum();
            return (f64::from(a) + sum * t / f64::from(iter)) as u32;
        }
        // The hot values: the middle pct % of the range.
        let pct = f64::from(self.spec.pct);
        let d = t * pct / 100.0;
        let res = rnd * (d + 1.0) + t / 2.0 - t * pct / 200.0;
        (a + res as u32).min(b)
    }

    fn pareto(&mut self, a: u32, b: u32) -> u32 {
        let n = f64::from(b - a) + 1.0;
        (a + (n * self.double().powf(self.pareto_power)) as u32).min(b)
    }

    fn zipfian(&mut self, a: u32, b: u32) -> u32 {
        let n = f64::from(b - a) + 1.0;
        let e = self.spec.zipf_exp;
        let h_n = h_integral(n + 0.5, e);
        loop {
            let u = h_n + self.double() * (self.zipf_h_x1 - h_n);
            let x = h_integral_inverse(u, e);
            let k = (x + 0.5).clamp(1.0, n).floor();
            if k - x <= self.zipf_s || u >= h_integral(k + 0.5, e) - h(k, e) {
                return a + k as u32 - 1;
            }
        }
    }

    /// `sysbench.rand.string(template)`: each `#` a digit, each `@` a lowercase
    /// letter, anything else as written; appended to `out`.
    pub fn string(&mut self, template: &str, out: &mut String) {
        for c in template.chars() {
            match c {
                '#' => out.push(char::from(
                    self.uniform(u32::from(b'0'), u32::from(b'9')) as u8
                )),
                '@' => out.push(char::from(
                    self.uniform(u32::from(b'a'), u32::from(b'z')) as u8
                )),
                c => out.push(c),
            }
        }
    }
}

/// H(x), the integral of h: (x^(1-e) - 1) / (1-e), or ln x when e is 1.
fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    helper2((1.0 - e) * log_x) * log_x
}

/// h(x) = x^-e.
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

fn h_integral_inverse(x: f64, e: f64) -> f64 {
    // Numerical error can take t below -1, where log1p is undefined.
    let t = (x * (1.0 - e)).max(-1.0);
    (helper1(t) * x).exp()
}

/// ln(1 + x) / x, by its series near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x - 1) / x, by its series near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// sysbench's unique sequence: distinct 32-bit values for distinct indices.
#[derive(Debug, Clone, Copy)]
pub struct Unique {
    offset: u32,
}

const PRIME: u32 = 4_294_967_291;

/// A bijection of the 32-bit integers: quadratic residues modulo the largest prime
/// below 2^32 (a prime p ≡ 3 mod 4), the five values past it left in place.
fn permute(x: u32) -> u32 {
    if x >= PRIME {
        return x;
    }
    let residue = ((u64::from(x) * u64::from(x)) % u64::from(PRIME)) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

impl Unique {
    pub fn new(seed: u64) -> Unique {
        Unique {
            offset: permute(permute(seed as u32).wrapping_add(0x4679_0905)),
        }
    }

    /// The `index`th value of the sequence.
    pub fn get(self, index: u32) -> u32 {
        permute(permute(index).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(dist: Dist) -> SbRand {
        SbRand::new(
            RandSpec {
                dist,
                ..RandSpec::default()
            },
            7,
            3,
        )
    }

    #[test]
    fn every_distribution_stays_in_its_range() {
        for dist in [
            Dist::Uniform,
            Dist::Gaussian,
            Dist::Special,
            Dist::Pareto,
            Dist::Zipfian,
        ] {
            let mut r = with(dist);
            for _ in 0..20_000 {
                let v = r.default(1, 1000);
                assert!((1..=1000).contains(&v), "{dist:?}: {v}");
                assert_eq!(r.default(5, 5), 5, "{dist:?}");
            }
        }
    }

    #[test]
    fn uniform_reaches_both_ends_and_special_crowds_the_middle() {
        let mut r = with(Dist::Uniform);
        let v: Vec<u32> = (0..10_000).map(|_| r.uniform(1, 10)).collect();
        assert!(v.contains(&1) && v.contains(&10));
        // Special: 75 % of the draws within the middle 1 % (495..=505 of 1..=1000).
        let mut r = with(Dist::Special);
        let hot = (0..10_000)
            .filter(|_| (495..=506).contains(&r.default(1, 1000)))
            .count();
        assert!((7_000..8_200).contains(&hot), "{hot}");
        // Zipfian: 1 is the most drawn value by far.
        let mut r = with(Dist::Zipfian);
        let ones = (0..10_000).filter(|_| r.default(1, 1000) == 1).count();
        assert!(ones > 500, "{ones}");
        // Pareto with h 0.2: 80 % of the draws in the first 20 %.
        let mut r = with(Dist::Pareto);
        let low = (0..10_000).filter(|_| r.default(1, 1000) <= 200).count();
        assert!((7_500..8_500).contains(&low), "{low}");
    }

    #[test]
    fn strings_follow_sysbenchs_templates() {
        let mut r = with(Dist::Uniform);
        let mut s = String::new();
        r.string("###-@@", &mut s);
        let b = s.as_bytes();
        assert_eq!(b.len(), 6);
        assert!(b[..3].iter().all(u8::is_ascii_digit) && b[3] == b'-');
        assert!(b[4..].iter().all(u8::is_ascii_lowercase), "{s}");
    }

    #[test]
    fn the_unique_sequence_repeats_no_value() {
        let u = Unique::new(42);
        let mut seen: Vec<u32> = (0..100_000).map(|i| u.get(i)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 100_000);
    }
}
