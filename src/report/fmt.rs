//! How the reports write numbers: latencies with a unit read at a glance, qps, shares
//! in percent that still show a small gap, and counts of clients. One place, so every
//! report prints the same figure the same way.

/// Formats seconds with a unit a person reads at a glance: "19.8 ms", "1.25 s", "850 µs".
pub fn fmt_latency(s: f64) -> String {
    if !s.is_finite() {
        return "–".into();
    }
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else {
        (s * 1e6, "µs")
    };
    format!("{} {unit}", sig3(v))
}

/// The unit a column of latencies is written in, from its largest value: one unit
/// for the whole column, so that bars and digits read against each other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyUnit {
    scale: f64,
    name: &'static str,
}

impl LatencyUnit {
    pub fn for_max(max_s: f64) -> LatencyUnit {
        let (scale, name) = if max_s >= 1.0 {
            (1.0, "s")
        } else if max_s >= 1e-3 {
            (1e3, "ms")
        } else {
            (1e6, "µs")
        };
        LatencyUnit { scale, name }
    }

    /// `s` in this unit, three significant digits: "0.120 ms" in a column of ms.
    pub fn fmt(&self, s: f64) -> String {
        if !s.is_finite() {
            return "–".into();
        }
        format!("{} {}", sig3(s * self.scale), self.name)
    }
}

/// A step's offered rate as a person typed it: a rate profile as `--rate` writes it
/// (`2s@20, 1s@1000, 4s@20`; its mean would hide the spike), else `rate` per second.
pub fn offered_rate(p: &crate::result::series::Point, rate: f64) -> String {
    match &p.profile {
        Some(x) => crate::result::profile::profile_text(&x.segments),
        None => fmt_qps(rate),
    }
}

/// Three significant digits, no trailing exponent: 151.3 → "151", 19.77 → "19.8".
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// qps with one decimal below 1000, whole numbers above: "151.3", "12040".
pub fn fmt_qps(q: f64) -> String {
    // 999.96 would round up to "1000.0" with one decimal.
    if q >= 999.95 {
        format!("{q:.0}")
    } else {
        format!("{q:.1}")
    }
}

/// Percent with enough digits that a small share, or a small gap to 100%, still
/// shows: "0.025%", "1.50%", "99.975%", "100%".
pub fn fmt_share(p: f64) -> String {
    let gap = 100.0 - p;
    if p == 0.0 {
        "0%".into()
    } else if p == 100.0 {
        "100%".into()
    } else if p < 0.1 || (gap > 0.0 && gap < 0.1) {
        format!("{p:.3}%")
    } else if p < 10.0 || (gap > 0.0 && gap < 1.0) {
        format!("{p:.2}%")
    } else {
        format!("{p:.1}%")
    }
}

/// "2.4×", "1.30×", "0.94×": two decimals below 2 so small differences still show.
pub fn fmt_ratio(r: f64) -> String {
    if !r.is_finite() {
        "–".into()
    } else if r >= 10.0 {
        format!("{r:.0}×")
    } else if r >= 2.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

/// Bytes in decimal units with three significant digits: "512 B", "48.2 kB",
/// "1.25 MB", "3.40 GB".
pub fn fmt_bytes(b: f64) -> String {
    if !b.is_finite() {
        return "–".into();
    }
    let (v, unit) = if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else if b >= 1e3 {
        (b / 1e3, "kB")
    } else {
        return format!("{b:.0} B");
    };
    format!("{} {unit}", sig3(v))
}

/// A ratio with its spread as hyperfine writes it: "1.18 ± 0.05×"; without a
/// spread, [`fmt_ratio`].
pub fn fmt_ratio_spread(r: f64, sd: Option<f64>) -> String {
    let Some(sd) = sd.filter(|s| s.is_finite()) else {
        return fmt_ratio(r);
    };
    let digits = if r >= 10.0 {
        0
    } else if r >= 2.0 {
        1
    } else {
        2
    };
    format!("{r:.digits$} ± {sd:.digits$}×")
}

/// A mean and its standard deviation to the precision the deviation allows (two
/// significant digits of it): "7018 ± 820", "151.3 ± 3.2".
pub fn fmt_spread(mean: f64, sd: f64) -> String {
    if !(sd.is_finite() && sd > 0.0) {
        return format!("{} ± 0", fmt_qps(mean));
    }
    let digits = (1.0 - sd.log10().floor()).max(0.0) as usize;
    format!("{mean:.digits$} ± {sd:.digits$}")
}

/// `s` with its first letter a capital: a phrase opening a sentence.
pub fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// "1 client", "8 clients".
pub fn clients(n: usize) -> String {
    format!("{n} client{}", if n == 1 { "" } else { "s" })
}

/// What a step is called in a table or on a bar: its rate ("500/s") when it ran
/// open-model, its clients otherwise.
pub(crate) fn step_label(p: &crate::result::series::Point) -> String {
    match p.rate {
        // Rates are asked for in whole numbers mostly: "500/s", not "500.0/s".
        Some(r) if r.fract() == 0.0 => format!("{r:.0}/s"),
        Some(r) => format!("{}/s", fmt_qps(r)),
        None => p.n_clients.to_string(),
    }
}

/// The heading over [`step_label`]s: "rate", "clients", or "step" when both kinds ran.
pub(crate) fn step_heading(s: &crate::result::series::Series) -> &'static str {
    let open = s.points.iter().filter(|p| p.rate.is_some()).count();
    match open {
        0 => "clients",
        n if n == s.points.len() => "rate",
        _ => "step",
    }
}

/// `s` cut to at most `n` characters, the last one an ellipsis when cut (a name in a
/// fixed-width column).
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(n - 1).collect();
        c.push('…');
        c
    }
}

// What the targets answer, the numbers their answers are counted under and what a
// run's unit of work is called are the result's vocabulary (the CSV names its status
// columns by them too; a run's name and why a ramp ended are written in it).
pub use crate::result::answers::{
    all_sql, all_stores, sql_status_name, status_name, Work, STORE_EXISTS, STORE_MISS,
    STORE_NO_TOKEN, STORE_VALUE,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_latency(0.019765), "19.8 ms");
        assert_eq!(fmt_latency(1.5), "1.50 s");
        assert_eq!(fmt_latency(0.00085), "850 µs");
        assert_eq!(fmt_qps(151.333), "151.3");
        assert_eq!(fmt_qps(999.96), "1000");
        assert_eq!(fmt_ratio_spread(1.1789, Some(0.0512)), "1.18 ± 0.05×");
        assert_eq!(fmt_ratio_spread(2.4, None), "2.4×");
        assert_eq!(fmt_spread(7018.2, 820.1), "7018 ± 820");
        assert_eq!(fmt_spread(151.33, 3.21), "151.3 ± 3.2");
        assert_eq!(fmt_bytes(512.0), "512 B");
        assert_eq!(fmt_bytes(48_231.0), "48.2 kB");
        assert_eq!(fmt_bytes(1_254_000.0), "1.25 MB");
    }
}
