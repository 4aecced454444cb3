//! Merging a hot board's window of buckets into one list, and what a snapshot publishes of it.

use super::*;

/// The window merged from its buckets (docs/DESIGN.md, "The window merge"): each bucket's scores
/// weighted by its place in the window, then summed (counts) or the highest kept (`best`), best
/// first with Redis's order for ties (score descending, then member descending). The buckets are
/// read in slices and folded in here, so no single Redis command walks the whole window. Hit
/// scores are above 0, so a bucket without a member adds nothing under either aggregate.
///
/// Members are interned (a merge folds numbers, not strings), and the buckets that no longer
/// change are kept between merges ([`WindowMerge::keep`]): each is read from Redis and parsed
/// once, and a merge reads again only the live bucket and one that has just closed.
#[derive(Debug, Default)]
pub struct WindowMerge {
    ids: std::collections::HashMap<String, u32>,
    names: Vec<String>,
    /// Closed buckets by index, members interned.
    kept: BTreeMap<i64, Vec<(u32, f64)>>,
}

impl WindowMerge {
    /// How many member names are interned (the merge lets go of those no kept bucket holds).
    #[cfg(test)]
    pub(super) fn interned(&self) -> usize {
        self.names.len()
    }

    /// A bucket's entries with their members interned.
    pub fn intern(&mut self, entries: Vec<(String, f64)>) -> Vec<(u32, f64)> {
        entries
            .into_iter()
            .map(|(member, score)| {
                let next = self.names.len() as u32;
                let id = *self.ids.entry(member).or_insert_with_key(|member| {
                    self.names.push(member.clone());
                    next
                });
                (id, score)
            })
            .collect()
    }

    /// The entry count of kept bucket `bucket`, if it is kept.
    pub fn kept(&self, bucket: i64) -> Option<usize> {
        self.kept.get(&bucket).map(Vec::len)
    }

    /// Keeps a closed bucket for the next merges.
    pub fn keep(&mut self, bucket: i64, entries: Vec<(u32, f64)>) {
        self.kept.insert(bucket, entries);
    }

    /// Forgets a kept bucket (it changed or is gone).
    pub fn forget(&mut self, bucket: i64) {
        self.kept.remove(&bucket);
    }

    /// Forgets the buckets before `oldest` (out of the window). When most interned names are in
    /// no kept bucket any more, interns the kept ones afresh, so members that left the window do
    /// not pile up.
    pub fn forget_before(&mut self, oldest: i64) {
        self.kept = self.kept.split_off(&oldest);
        let entries: usize = self.kept.values().map(Vec::len).sum();
        if self.names.len() > 1024 && self.names.len() > 2 * entries {
            let old = std::mem::take(&mut self.names);
            self.ids.clear();
            for bucket in std::mem::take(&mut self.kept).into_iter().collect::<Vec<_>>() {
                let (index, entries) = bucket;
                let named = entries.into_iter().map(|(id, s)| (old[id as usize].clone(), s)).collect();
                let interned = self.intern(named);
                self.kept.insert(index, interned);
            }
        }
    }

    /// The best `limit` entries of the window whose newest bucket is `newest`: the kept buckets
    /// and `fresh` ones (index, interned entries), each weighted by its place in the window.
    pub fn top(
        &self,
        rules: &HotRules,
        newest: i64,
        fresh: &[(i64, Vec<(u32, f64)>)],
        limit: usize,
    ) -> Vec<(String, f64)> {
        self.top_and_heat(rules, newest, fresh, limit).0
    }

    /// [`WindowMerge::top`], and the window's total heat: the sum of every member's merged
    /// score, what each entry's `share` is a part of.
    pub fn top_and_heat(
        &self,
        rules: &HotRules,
        newest: i64,
        fresh: &[(i64, Vec<(u32, f64)>)],
        limit: usize,
    ) -> (Vec<(String, f64)>, f64) {
        let n = rules.weights.len() as i64;
        let oldest = newest - n + 1;
        let buckets = self
            .kept
            .range(oldest..=newest)
            .map(|(i, b)| (*i, b))
            .chain(fresh.iter().filter(|(i, _)| (oldest..=newest).contains(i)).map(|(i, b)| (*i, b)));
        // NaN: not in any bucket yet (scores are above 0).
        let mut merged = vec![f64::NAN; self.names.len()];
        for (index, bucket) in buckets {
            let weight = rules.weights[(index - oldest) as usize];
            for &(id, score) in bucket {
                let weighted = score * weight;
                let slot = &mut merged[id as usize];
                *slot = if slot.is_nan() {
                    weighted
                } else {
                    match rules.aggregate {
                        Aggregate::Sum => *slot + weighted,
                        Aggregate::Max => slot.max(weighted),
                    }
                };
            }
        }
        let heat: f64 = merged.iter().filter(|s| !s.is_nan()).sum();
        if limit == 0 {
            return (Vec::new(), heat);
        }
        let order = |a: &(u32, f64), b: &(u32, f64)| {
            b.1.total_cmp(&a.1).then_with(|| self.names[b.0 as usize].cmp(&self.names[a.0 as usize]))
        };
        let mut all: Vec<(u32, f64)> = merged
            .into_iter()
            .enumerate()
            .filter(|(_, s)| !s.is_nan())
            .map(|(id, s)| (id as u32, s))
            .collect();
        if all.len() > limit {
            all.select_nth_unstable_by(limit - 1, order);
            all.truncate(limit);
        }
        all.sort_unstable_by(order);
        (all.into_iter().map(|(id, s)| (self.names[id as usize].clone(), s)).collect(), heat)
    }
}

/// Gives each entry its share of the window's total `heat` (0 when the window is cold).
pub fn heat_shares(entries: &mut [HotEntry], heat: f64) {
    for e in entries {
        e.share = if heat > 0.0 { (e.score / heat).clamp(0.0, 1.0) } else { 0.0 };
    }
}

/// The list a snapshot publishes: `current` (best first) compared with the previous snapshot's
/// entries (best first), if there was one.
///
/// A list in the same order as the previous one keeps the previous one's marks: the arrows and
/// "new" badges say how the list moved when it last moved, not that nothing moved in the last
/// interval (on most boards most intervals move nothing, and a mark shown for one interval is
/// seldom seen). Once the order changes, every entry is compared with the previous list afresh.
pub fn rank_changes(previous: Option<&[HotEntry]>, current: &[(String, f64)]) -> Vec<HotEntry> {
    let unmoved = previous.is_some_and(|before| {
        before.len() == current.len()
            && before.iter().zip(current).all(|(b, (member, _))| b.member == *member)
    });
    let before: std::collections::HashMap<&str, &HotEntry> =
        previous.unwrap_or_default().iter().map(|e| (e.member.as_str(), e)).collect();
    current
        .iter()
        .enumerate()
        .map(|(i, (member, score))| {
            let rank = i + 1;
            let was = before.get(member.as_str()).copied();
            let (change, new) = match was {
                Some(e) if unmoved => (e.change, e.new),
                Some(e) => (i64::from(e.rank) - rank as i64, false),
                None => (0, previous.is_some()),
            };
            HotEntry { rank: rank as u32, member: member.clone(), score: *score, change, new, share: 0.0 }
        })
        .collect()
}
