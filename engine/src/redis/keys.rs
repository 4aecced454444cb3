//! The single source of Redis key names. All keys of one period share the hash tag
//! `{<board>:<period>}`, so every script touches one Cluster slot while different periods and
//! boards spread over the cluster. The prefix lets deployments (and tests) share a Redis. Board
//! slugs cannot contain `{`, `}` or `:`, so no slug can reach into another's tag.
//!
//! A hot board's keys share the hash tag `{<board>}`. Its bucket, dedup and cap names depend on
//! the Redis clock, so `hot_hit.lua` and `hot_tend.lua` receive the namespace
//! `<prefix>:hot:{<board>}` as their key and derive the rest inside the script — all in that
//! tag's slot; a merge asks that slot's node for its clock (a one-line `TIME` script keyed by the
//! namespace) and names the buckets from it. Rate-limit cells (`<prefix>:rl:{k<id>}`,
//! `<prefix>:rl:{a<network>}`) each have a tag of their own, and so does each segment value's
//! ranking (`{<board>:<period>:<dim>=<value>}`, [`KeySpace::segment`]). The unit tests below hold every key
//! of a period, and of a hot board, to one slot; `engine/tests/stores.rs` checks it live against
//! the Cluster.

use crate::access::ratelimit::Cell;
use domain::segment::Segment;
use domain::{BoardSlug, PeriodKey};

/// The keys of one board period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodKeys {
    /// ZSET member -> encoded score: the live ranking.
    pub rank: String,
    /// HASH member -> ledger version last projected.
    pub ver: String,
    /// HASH `vsum` -> sum of the projected versions (compared with the ledger by the reconciler).
    pub meta: String,
    /// Where a rebuild assembles the new ranking before swapping it in.
    pub rebuild_rank: String,
    pub rebuild_ver: String,
    /// STRING: present while the period is publicly frozen (`engine::lifecycle::public`). Then `rank` holds
    /// the public (frozen) standings and writes go to `live`; its value says which view `rank`
    /// holds (`<frozen_at>.<steps>`), or that one is being put in place.
    pub public: String,
    /// ZSET member -> encoded score: the live ranking while the period is publicly frozen.
    pub live: String,
    /// Where the public view is assembled before it replaces `rank`.
    pub public_staging: String,
}

impl PeriodKeys {
    /// A ranking's keys under one hash tag: a period's, or one segment value's.
    fn under(tag: &str) -> Self {
        Self {
            rank: format!("{tag}:rank"),
            ver: format!("{tag}:ver"),
            meta: format!("{tag}:meta"),
            rebuild_rank: format!("{tag}:rebuild:rank"),
            rebuild_ver: format!("{tag}:rebuild:ver"),
            public: format!("{tag}:public"),
            live: format!("{tag}:live"),
            public_staging: format!("{tag}:public:staging"),
        }
    }

    /// Every key of the period (all in one hash slot).
    pub fn all(&self) -> [&str; 8] {
        [
            &self.rank,
            &self.ver,
            &self.meta,
            &self.rebuild_rank,
            &self.rebuild_ver,
            &self.public,
            &self.live,
            &self.public_staging,
        ]
    }
}

/// The keys of one hot board. The scripts derive the clock-dependent ones from `namespace`
/// (see `scripts/hot_hit.lua`): `<namespace>:<bucket>`, `…:dedup:…`, `…:cap:…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotKeys {
    /// `<prefix>:hot:{<board>}`: the common stem (not a key itself).
    pub namespace: String,
    /// HASH: the published list (`seq`, `list`).
    pub snapshot: String,
}

impl HotKeys {
    /// The ZSET of one time bucket (bucket = unix ms / bucket length).
    pub fn bucket(&self, bucket: i64) -> String {
        format!("{}:{bucket}", self.namespace)
    }
}

/// Builds keys under one prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpace {
    prefix: String,
}

impl KeySpace {
    pub fn new(prefix: impl Into<String>) -> Self {
        Self { prefix: prefix.into() }
    }

    pub fn period(&self, board: &BoardSlug, period: &PeriodKey) -> PeriodKeys {
        PeriodKeys::under(&format!("{}:{{{}:{}}}", self.prefix, board, period))
    }

    /// The keys of one segment value's ranking in a period (`crate::segments`): the same shape
    /// as a period's, so the same scripts write, level, swap and read them, under a hash tag of
    /// their own, `{<board>:<period>:<dim>=<value>}`: the segments of one period spread over a
    /// Cluster instead of pressing on the period's node. Dimensions hold no `:` or `=` and
    /// values no `{` or `}` (`domain::segment`), so no segment's tag reaches into another's.
    pub fn segment(&self, board: &BoardSlug, period: &PeriodKey, segment: &Segment) -> PeriodKeys {
        PeriodKeys::under(&format!(
            "{}:{{{}:{}:{}={}}}",
            self.prefix, board, period, segment.dimension, segment.value
        ))
    }

    /// The live ranking of a period alone (`period(..).rank`, without building the other keys):
    /// the reads' hot path.
    pub fn rank(&self, board: &BoardSlug, period: &PeriodKey) -> String {
        format!("{}:{{{}:{}}}:rank", self.prefix, board, period)
    }

    /// The sharded pub/sub channel that says "this period changed" (`SPUBLISH`, no data; see
    /// `crate::live`). Inside the period's hash tag: on a Cluster it lives on the node of the
    /// period's keys, so channels spread by period like the keys do.
    pub fn changes(&self, board: &BoardSlug, period: &PeriodKey) -> String {
        format!("{}:{{{}:{}}}:changes", self.prefix, board, period)
    }

    /// A pinned snapshot and its info key (same hash tag): of the period's ranking (None), or of
    /// one segment value's (Some), under the segment's hash tag, so the copy lives on the slot of
    /// the ranking it copies. `id` is a server-made hex id, checked by the caller before use.
    pub fn snapshot(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        id: &str,
    ) -> (String, String) {
        let tag = match segment {
            None => format!("{}:{{{}:{}}}", self.prefix, board, period),
            Some(s) => format!("{}:{{{}:{}:{}={}}}", self.prefix, board, period, s.dimension, s.value),
        };
        (format!("{tag}:snap:{id}"), format!("{tag}:snap:{id}:info"))
    }

    /// The index of every snapshot copy by the instant (Redis's clock, ms) it may be removed
    /// (`redis/snapshots.rs`), under a hash tag of its own.
    pub fn snapshots(&self) -> String {
        format!("{}:{{snapshots}}", self.prefix)
    }

    /// The keys of a hot board, all under the hash tag `{<board>}`: one slot per board, whatever
    /// bucket the server's clock picks.
    pub fn hot(&self, board: &BoardSlug) -> HotKeys {
        let namespace = format!("{}:hot:{{{}}}", self.prefix, board);
        HotKeys { snapshot: format!("{namespace}:snapshot"), namespace }
    }

    /// A shared rate-limit cell (`rate.lua`): an ingest key's (`{k<id>}`) or an anonymous client
    /// network's (`{a<address>}`), each under a hash tag of its own: cells spread over a Cluster,
    /// and one cell's checks all go to one node.
    pub fn rate(&self, cell: &Cell) -> String {
        match cell {
            Cell::Key(id) => format!("{}:rl:{{k{id}}}", self.prefix),
            Cell::Client(net) => format!("{}:rl:{{a{net}}}", self.prefix),
        }
    }

    /// A SCAN pattern matching every key under this prefix (tests clean up with it).
    pub fn pattern(&self) -> String {
        format!("{}:*", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::redis::cluster_routing::Slot;

    #[test]
    fn all_keys_of_one_period_hash_to_one_cluster_slot() {
        let keys = KeySpace::new("laurel")
            .period(&BoardSlug::parse("weekly-study").unwrap(), &PeriodKey::parse("2026-W34").unwrap());
        assert_eq!(keys.rank, "laurel:{weekly-study:2026-W34}:rank");
        let board = BoardSlug::parse("weekly-study").unwrap();
        assert_eq!(KeySpace::new("laurel").rank(&board, &PeriodKey::parse("2026-W34").unwrap()), keys.rank);
        for key in keys.all() {
            assert_eq!(Slot::for_key(key), Slot::for_key(&keys.rank), "{key}");
        }
        let board = BoardSlug::parse("weekly-study").unwrap();
        let (copy, info) =
            KeySpace::new("laurel").snapshot(&board, &PeriodKey::parse("2026-W34").unwrap(), None, "ab12");
        assert_eq!(Slot::for_key(&copy), Slot::for_key(&keys.rank));
        assert_eq!(Slot::for_key(&info), Slot::for_key(&keys.rank));
        let changes = KeySpace::new("laurel").changes(&board, &PeriodKey::parse("2026-W34").unwrap());
        assert_eq!(changes, "laurel:{weekly-study:2026-W34}:changes");
        assert_eq!(Slot::for_key(&changes), Slot::for_key(&keys.rank), "the channel shares the slot");
        assert_eq!(Slot::for_key(&keys.rank), Slot::for_key("{weekly-study:2026-W34}"));
    }

    #[test]
    fn all_keys_of_one_hot_board_hash_to_one_cluster_slot() {
        let hot = KeySpace::new("laurel").hot(&BoardSlug::parse("trending").unwrap());
        assert_eq!(hot.namespace, "laurel:hot:{trending}");
        let slot = Slot::for_key("{trending}");
        // What the scripts derive from the namespace, whatever the bucket, actor or member.
        for key in [
            hot.bucket(29_480_000),
            hot.snapshot.clone(),
            format!("{}:dedup:7:u1|洗地机", hot.namespace),
            format!("{}:cap:7:u1", hot.namespace),
        ] {
            assert_eq!(Slot::for_key(&key), slot, "{key}");
        }
    }

    #[test]
    fn segment_keys_have_a_slot_of_their_own_per_value() {
        let space = KeySpace::new("laurel");
        let board = BoardSlug::parse("weekly-study").unwrap();
        let period = PeriodKey::parse("2026-W34").unwrap();
        let segment = |dim: &str, value: &str| Segment { dimension: dim.into(), value: value.into() };
        let zj = space.segment(&board, &period, &segment("province", "zj"));
        assert_eq!(zj.rank, "laurel:{weekly-study:2026-W34:province=zj}:rank");
        let (copy, info) = space.snapshot(&board, &period, Some(&segment("province", "zj")), "ab12");
        assert_eq!(copy, "laurel:{weekly-study:2026-W34:province=zj}:snap:ab12");
        for key in zj.all().into_iter().chain([copy.as_str(), info.as_str()]) {
            assert_eq!(Slot::for_key(key), Slot::for_key(&zj.rank), "{key}");
        }
        let mut slots: std::collections::HashSet<Slot> = ["zj", "js", "gd", "sc", "hb", "hn", "bj", "sh"]
            .iter()
            .map(|v| Slot::for_key(&space.segment(&board, &period, &segment("province", v)).rank))
            .collect();
        slots.insert(Slot::for_key(space.rank(&board, &period)));
        assert!(slots.len() >= 8, "segments and the board's ranking spread over slots: {slots:?}");
    }

    #[test]
    fn different_periods_use_different_tags() {
        let space = KeySpace::new("laurel");
        let board = BoardSlug::parse("b").unwrap();
        let a = space.period(&board, &PeriodKey::parse("2026-W34").unwrap());
        let b = space.period(&board, &PeriodKey::parse("2026-W35").unwrap());
        assert_ne!(a.rank, b.rank);
    }
}
