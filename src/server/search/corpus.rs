//! The search target's deterministic corpus: pages with a title, a text and
//! categories, written in a made-up language whose word frequencies follow Zipf's
//! law, so that common words hit many pages and rare ones a few, as real text does.
//!
//! Everything derives from one seed through a small PRNG written here
//! (SplitMix64), so the same options give the same corpus on every machine and
//! a benchmark's terms and hit counts can be reproduced.

/// The corpus generator: the crate's SplitMix64.
pub type Rng = crate::rng::SplitMix64;

/// Draws ranks 0..n with probability proportional to 1 / (rank + 1)^s.
#[derive(Debug, Clone)]
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Self {
        let mut total = 0.0;
        let cumulative = (0..n.max(1))
            .map(|r| {
                total += 1.0 / ((r + 1) as f64).powf(s);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    pub fn sample(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let u = rng.next_f64() * total;
        self.cumulative
            .partition_point(|&c| c <= u)
            .min(self.cumulative.len() - 1)
    }
}

/// Syllables of the made-up language, in Latin letters and in katakana: some
/// words are written in katakana so that Japanese terms (and their escaping)
/// take part in every benchmark.
#[rustfmt::skip]
const SYLLABLES: &[(&str, &str)] = &[
    ("a", "ア"), ("i", "イ"), ("u", "ウ"), ("e", "エ"), ("o", "オ"),
    ("ka", "カ"), ("ki", "キ"), ("ku", "ク"), ("ke", "ケ"), ("ko", "コ"),
    ("sa", "サ"), ("shi", "シ"), ("su", "ス"), ("se", "セ"), ("so", "ソ"),
    ("ta", "タ"), ("chi", "チ"), ("tsu", "ツ"), ("te", "テ"), ("to", "ト"),
    ("na", "ナ"), ("ni", "ニ"), ("nu", "ヌ"), ("ne", "ネ"), ("no", "ノ"),
    ("ha", "ハ"), ("hi", "ヒ"), ("fu", "フ"), ("he", "ヘ"), ("ho", "ホ"),
    ("ma", "マ"), ("mi", "ミ"), ("mu", "ム"), ("me", "メ"), ("mo", "モ"),
    ("ya", "ヤ"), ("yu", "ユ"), ("yo", "ヨ"),
    ("ra", "ラ"), ("ri", "リ"), ("ru", "ル"), ("re", "レ"), ("ro", "ロ"),
    ("wa", "ワ"),
    ("ga", "ガ"), ("gi", "ギ"), ("gu", "グ"), ("ge", "ゲ"), ("go", "ゴ"),
    ("za", "ザ"), ("ji", "ジ"), ("zu", "ズ"), ("ze", "ゼ"), ("zo", "ゾ"),
    ("da", "ダ"), ("de", "デ"), ("do", "ド"),
    ("ba", "バ"), ("bi", "ビ"), ("bu", "ブ"), ("be", "ベ"), ("bo", "ボ"),
    ("pa", "パ"), ("pi", "ピ"), ("pu", "プ"), ("pe", "ペ"), ("po", "ポ"),
];
/// The moraic n, never first in a word.
const N: (&str, &str) = ("n", "ン");

/// One in this many words (by frequency rank) is written in katakana.
const KATAKANA_EVERY: usize = 7;

/// A page before it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub key: String,
    pub title: String,
    pub text: String,
    pub categories: Vec<String>,
}

/// Corpus shape; the defaults give pages of about 45 words from a 5000-word vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusOptions {
    pub documents: usize,
    pub seed: u64,
    pub vocabulary: usize,
    pub categories: usize,
}

impl Default for CorpusOptions {
    fn default() -> Self {
        CorpusOptions {
            documents: 10_000,
            seed: 0x6861_6B61_7275, // "hakaru"
            vocabulary: 5_000,
            categories: 24,
        }
    }
}

/// `n` distinct words; index = frequency rank.
pub fn vocabulary(n: usize, rng: &mut Rng) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut words = Vec::with_capacity(n);
    // Short words first, as in natural language: the common ranks get 1–2 syllables.
    let mut attempts = 0usize;
    while words.len() < n && attempts < n * 50 + 1000 {
        attempts += 1;
        let rank = words.len();
        let max_syllables = match rank {
            0..=40 => 2,
            41..=600 => 3,
            _ => 4,
        };
        let n_syllables = rng.range(1.max(max_syllables - 2), max_syllables);
        let katakana = rank % KATAKANA_EVERY == KATAKANA_EVERY - 1;
        let mut word = String::new();
        for i in 0..n_syllables {
            let (latin, kana) = if i > 0 && rng.next_u64().is_multiple_of(9) {
                N
            } else {
                SYLLABLES[(rng.next_u64() % SYLLABLES.len() as u64) as usize]
            };
            word.push_str(if katakana { kana } else { latin });
        }
        if word.chars().count() < 2 {
            continue;
        }
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Generates the pages. Deterministic for given options.
pub fn generate(opts: &CorpusOptions) -> Vec<Page> {
    let mut rng = Rng::new(opts.seed);
    let words = vocabulary(opts.vocabulary.max(10), &mut rng);
    let category_names: Vec<String> = vocabulary(opts.categories.max(1) + 600, &mut rng)
        .into_iter()
        .skip(600) // longer, rarer-looking words make better category names
        .map(|w| capitalize(&w))
        .collect();
    let text_words = Zipf::new(words.len(), 1.0);
    // Titles draw from a flatter distribution so they rarely repeat: they are the
    // benchmark's search terms, and the cache plan needs distinct ones.
    let title_words = Zipf::new(words.len(), 0.6);
    let category_dist = Zipf::new(category_names.len(), 1.0);
    let mut pages = Vec::with_capacity(opts.documents);
    for i in 0..opts.documents {
        let n_title = rng.range(2, 3);
        let mut title_parts: Vec<usize> = Vec::with_capacity(n_title);
        let mut guard = 0;
        while title_parts.len() < n_title && guard < 20 {
            guard += 1;
            let w = title_words.sample(&mut rng);
            if !title_parts.contains(&w) {
                title_parts.push(w);
            }
        }
        let title = title_parts
            .iter()
            .enumerate()
            .map(|(j, &w)| {
                if j == 0 {
                    capitalize(&words[w])
                } else {
                    words[w].clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let n_words = rng.range(20, 70);
        let mut text = String::with_capacity(n_words * 7);
        let mut sentence_left = 0usize;
        for j in 0..n_words {
            if sentence_left == 0 {
                if j > 0 {
                    text.push_str(". ");
                }
                sentence_left = rng.range(5, 12);
                text.push_str(&capitalize(&words[text_words.sample(&mut rng)]));
            } else {
                text.push(' ');
                text.push_str(&words[text_words.sample(&mut rng)]);
            }
            sentence_left -= 1;
        }
        text.push('.');
        // Mention the title now and then, as encyclopedia pages do.
        if rng.next_u64().is_multiple_of(2) {
            text.push(' ');
            text.push_str(&title);
            text.push('.');
        }
        let n_categories = rng.range(1, 3);
        let mut categories: Vec<String> = Vec::with_capacity(n_categories);
        for _ in 0..n_categories {
            let c = &category_names[category_dist.sample(&mut rng)];
            if !categories.contains(c) {
                categories.push(c.clone());
            }
        }
        pages.push(Page {
            key: format!("page-{:06}", i + 1),
            title,
            text,
            categories,
        });
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        let opts = CorpusOptions {
            documents: 50,
            ..CorpusOptions::default()
        };
        assert_eq!(generate(&opts), generate(&opts));
        let other = CorpusOptions {
            seed: 1,
            ..opts.clone()
        };
        assert_ne!(generate(&opts), generate(&other));
    }

    #[test]
    fn vocabulary_is_distinct_and_mixed() {
        let words = vocabulary(2000, &mut Rng::new(7));
        assert_eq!(words.len(), 2000);
        let distinct: std::collections::HashSet<_> = words.iter().collect();
        assert_eq!(distinct.len(), 2000);
        assert!(words.iter().any(|w| !w.is_ascii()), "some katakana words");
        assert!(words.iter().filter(|w| w.is_ascii()).count() > 1500);
    }

    #[test]
    fn zipf_prefers_low_ranks() {
        let z = Zipf::new(1000, 1.0);
        let mut rng = Rng::new(3);
        let mut counts = vec![0usize; 1000];
        for _ in 0..20_000 {
            counts[z.sample(&mut rng)] += 1;
        }
        assert!(counts[0] > counts[9] * 4, "{} vs {}", counts[0], counts[9]);
        assert!(counts[0] > 1500);
    }

    #[test]
    fn pages_look_right() {
        let pages = generate(&CorpusOptions {
            documents: 300,
            ..CorpusOptions::default()
        });
        assert_eq!(pages.len(), 300);
        assert_eq!(pages[0].key, "page-000001");
        assert_eq!(pages[299].key, "page-000300");
        for p in &pages {
            let n = p.title.split(' ').count();
            assert!((2..=3).contains(&n), "{}", p.title);
            assert!(!p.categories.is_empty() && p.categories.len() <= 3);
            assert!(p.text.split(' ').count() >= 20);
        }
        let titles: std::collections::HashSet<_> =
            pages.iter().map(|p| p.title.to_lowercase()).collect();
        assert!(
            titles.len() >= 295,
            "titles mostly distinct: {}",
            titles.len()
        );
    }
}
