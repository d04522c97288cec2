//! What counts as a success: the one definition of an "ok" HTTP status
//! (`--ok-status`, 2xx and 3xx unless told otherwise). The engine's live counter, the
//! per-second timelines, the step's non-success count, the thresholds on errors, the
//! reports and the exit code all ask [`OkStatus::contains`], so they never disagree.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of HTTP status codes (100..=999) that count as success. A bit per code, so
/// the per-request question costs a shift and a mask, and the type is `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OkStatus {
    bits: [u64; 16],
}

/// The default: every 2xx and 3xx, as ab, wrk and k6 count them.
pub const DEFAULT_OK: &str = "200-399";

impl Default for OkStatus {
    fn default() -> Self {
        OkStatus::range(200, 399)
    }
}

impl OkStatus {
    fn empty() -> Self {
        OkStatus { bits: [0; 16] }
    }

    fn range(lo: u16, hi: u16) -> Self {
        let mut s = OkStatus::empty();
        for c in lo..=hi {
            s.bits[usize::from(c) / 64] |= 1 << (c % 64);
        }
        s
    }

    /// Is a response with this status a success? (0, no response, never is.)
    #[inline]
    pub fn contains(&self, code: u16) -> bool {
        let c = usize::from(code);
        c < 1024 && self.bits[c / 64] & (1 << (c % 64)) != 0
    }

    pub fn is_default(&self) -> bool {
        *self == OkStatus::default()
    }

    /// `200,404`, `200-299,404`, `2xx,3xx`: codes, inclusive ranges, or a class.
    /// The one grammar of `--ok-status` and of a result's `ok_status`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut s = OkStatus::empty();
        for part in text.split(',').map(str::trim) {
            let (lo, hi) = parse_part(part)?;
            let one = OkStatus::range(lo, hi);
            for (a, b) in s.bits.iter_mut().zip(one.bits) {
                *a |= b;
            }
        }
        Ok(s)
    }

    /// The set as maximal ranges of consecutive codes.
    pub fn ranges(&self) -> Vec<(u16, u16)> {
        let mut out: Vec<(u16, u16)> = Vec::new();
        for c in 100..=999u16 {
            if !self.contains(c) {
                continue;
            }
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == c => *hi = c,
                _ => out.push((c, c)),
            }
        }
        out
    }
}

fn parse_part(part: &str) -> Result<(u16, u16), String> {
    let code = |t: &str| -> Result<u16, String> {
        match t.trim().parse::<u16>() {
            Ok(c) if (100..=999).contains(&c) => Ok(c),
            _ => Err(format!(
                "`{t}` is not an HTTP status (100 to 999; e.g. 200,404 or 200-299 or 2xx)"
            )),
        }
    };
    if part.is_empty() {
        return Err("an empty status in the list (e.g. 200,404)".into());
    }
    if let Some(class) = part.strip_suffix("xx").or_else(|| part.strip_suffix("XX")) {
        let d = code(&format!("{class}00"))?;
        return Ok((d, d + 99));
    }
    match part.split_once('-') {
        Some((a, b)) => {
            let (lo, hi) = (code(a)?, code(b)?);
            if lo > hi {
                return Err(format!("`{part}`: the range runs backwards"));
            }
            Ok((lo, hi))
        }
        None => code(part).map(|c| (c, c)),
    }
}

impl fmt::Display for OkStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .ranges()
            .iter()
            .map(|&(lo, hi)| match hi - lo {
                0 => lo.to_string(),
                _ => format!("{lo}-{hi}"),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

impl fmt::Debug for OkStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OkStatus({self})")
    }
}

impl Serialize for OkStatus {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OkStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        OkStatus::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for OkStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OkStatus".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "HTTP statuses that count as success: codes and inclusive ranges, e.g. \"200-399\" or \"200,404\"",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_2xx_and_3xx() {
        let ok = OkStatus::default();
        assert!(ok.contains(200) && ok.contains(399) && ok.contains(304));
        assert!(!ok.contains(199) && !ok.contains(400) && !ok.contains(0));
        assert_eq!(ok.to_string(), DEFAULT_OK);
        assert_eq!(OkStatus::parse(DEFAULT_OK).unwrap(), ok);
    }

    #[test]
    fn lists_ranges_and_classes() {
        let ok = OkStatus::parse("200-299, 404").unwrap();
        assert!(ok.contains(250) && ok.contains(404) && !ok.contains(301));
        assert_eq!(ok.to_string(), "200-299,404");
        assert_eq!(OkStatus::parse("2xx,404").unwrap(), ok);
        assert_eq!(OkStatus::parse("200,404").unwrap().to_string(), "200,404");
    }

    #[test]
    fn bad_lists_say_what_is_wrong() {
        assert!(OkStatus::parse("20").unwrap_err().contains("`20`"));
        assert!(OkStatus::parse("299-200")
            .unwrap_err()
            .contains("backwards"));
        assert!(OkStatus::parse("200,").unwrap_err().contains("empty"));
        assert!(OkStatus::parse("abc").unwrap_err().contains("`abc`"));
    }
}
