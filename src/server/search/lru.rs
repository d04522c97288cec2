//! The search target's result cache: a small least-recently-used map, like
//! Groonga's query cache (100 entries by default).
//!
//! Lookups are O(1); an insert into a full cache scans for the oldest entry,
//! O(capacity), which for Groonga-sized caches (100) costs less than hashing the
//! key. Entries carry the data generation they were computed from, so a result
//! computed before a `load` is never stored after it.

use std::collections::HashMap;

#[derive(Debug)]
pub struct Lru<V> {
    capacity: usize,
    tick: u64,
    map: HashMap<String, (V, u64)>,
}

impl<V: Clone> Lru<V> {
    pub fn new(capacity: usize) -> Self {
        Lru {
            capacity,
            tick: 0,
            map: HashMap::with_capacity(capacity.min(1 << 16) + 1),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value for `key`, marking it most recently used.
    pub fn get(&mut self, key: &str) -> Option<V> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|(v, used)| {
            *used = tick;
            v.clone()
        })
    }

    /// Stores `value`, evicting the least recently used entry when full.
    pub fn put(&mut self, key: String, value: V) {
        if self.capacity == 0 {
            return;
        }
        self.tick += 1;
        if !self.map.contains_key(&key) {
            while self.map.len() >= self.capacity {
                self.evict_oldest();
            }
        }
        self.map.insert(key, (value, self.tick));
    }

    fn evict_oldest(&mut self) {
        let oldest = self
            .map
            .iter()
            .min_by_key(|(_, (_, used))| *used)
            .map(|(k, _)| k.clone());
        if let Some(k) = oldest {
            self.map.remove(&k);
        }
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Changes the capacity, evicting the oldest entries that no longer fit.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        while self.map.len() > capacity {
            self.evict_oldest();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut c = Lru::new(2);
        c.put("a".into(), 1);
        c.put("b".into(), 2);
        assert_eq!(c.get("a"), Some(1)); // a is now newer than b
        c.put("c".into(), 3);
        assert_eq!(c.get("b"), None);
        assert_eq!(c.get("a"), Some(1));
        assert_eq!(c.get("c"), Some(3));
        c.put("c".into(), 4); // replacing does not evict
        assert_eq!(c.len(), 2);
        assert_eq!(c.get("c"), Some(4));
        c.set_capacity(1);
        assert_eq!(c.len(), 1);
        assert_eq!(c.get("c"), Some(4));
        c.clear();
        assert!(c.is_empty());
        let mut z = Lru::new(0);
        z.put("a".into(), 1);
        assert_eq!(z.get("a"), None);
    }

    #[test]
    fn uniform_draws_hit_about_capacity_over_n() {
        // The planning rule of `patterngen`: N distinct keys drawn uniformly at
        // random with a C-entry LRU hit about C / N of the time once warm.
        let mut rng = super::super::corpus::Rng::new(11);
        let mut c = Lru::new(100);
        let (mut hits, mut total) = (0u32, 0u32);
        for i in 0..40_000 {
            let key = (rng.next_u64() % 200).to_string();
            let hit = c.get(&key).is_some();
            if !hit {
                c.put(key, ());
            }
            if i >= 2_000 {
                total += 1;
                hits += hit as u32;
            }
        }
        let rate = f64::from(hits) / f64::from(total);
        assert!((0.47..0.53).contains(&rate), "{rate}");
    }
}
