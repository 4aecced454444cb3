//! Rank movement since the visitor's last visit: the ranks a browser last saw on a board's period
//! are kept in its `localStorage` (key `laurel.ranks.{board}.{period}`, a JSON object of member
//! to rank), read once when the page hydrates, and the table shows ↑N / ↓N beside each member
//! whose rank changed since. What the page shows is saved again as it changes (live rows, "Show
//! more"), so the next visit compares with what this one saw. Nothing is sent to the server.

use leptos::prelude::*;
use std::collections::HashMap;

/// Members' ranks as last seen: member id to rank.
pub type SeenRanks = HashMap<String, u64>;

/// At most this many members are kept per board and period (the best ranked), so the storage
/// stays small however far a reader pages.
pub const KEPT: usize = 1000;

/// How a member moved: places up (positive) or down (negative) since `seen`, when both ranks
/// are known and differ.
pub fn moved(seen: &SeenRanks, member: &str, rank: u64) -> Option<i64> {
    let was = *seen.get(member)?;
    let by = was as i64 - rank as i64;
    (by != 0).then_some(by)
}

/// `seen` with `now` written over it, the best ranked [`KEPT`] kept.
pub fn remember(mut seen: SeenRanks, now: impl IntoIterator<Item = (String, u64)>) -> SeenRanks {
    seen.extend(now);
    if seen.len() > KEPT {
        let mut all: Vec<(String, u64)> = seen.into_iter().collect();
        all.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(KEPT);
        seen = all.into_iter().collect();
    }
    seen
}

/// The ranks seen at the last visit (empty until the page hydrates, and on a first visit), and
/// from then on the ranks of `rows` saved as they change. In the browser only.
pub fn since_last_visit(
    board: String,
    period: String,
    rows: impl Fn() -> Vec<(String, u64)> + Send + Sync + 'static,
) -> ReadSignal<SeenRanks> {
    let (seen, set_seen) = signal(SeenRanks::new());
    #[cfg(feature = "hydrate")]
    {
        let key = format!("laurel.ranks.{board}.{period}");
        Effect::new(move |first: Option<()>| {
            let now = rows();
            let stored = browser::load(&key);
            if first.is_none() {
                set_seen.set(stored.clone());
            }
            browser::save(&key, &remember(stored, now));
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (board, period, rows, set_seen);
    seen
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::SeenRanks;

    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok()?
    }

    /// What the browser kept; nothing when storage is off or the value is not ours.
    pub fn load(key: &str) -> SeenRanks {
        storage()
            .and_then(|s| s.get_item(key).ok().flatten())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Keeps `seen`; a full or refused storage only means no movement next time.
    pub fn save(key: &str, seen: &SeenRanks) {
        if let (Some(storage), Ok(text)) = (storage(), serde_json::to_string(seen)) {
            let _ = storage.set_item(key, &text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_the_places_gained_and_none_when_unknown_or_unchanged() {
        let seen: SeenRanks = [("a".to_owned(), 5), ("b".to_owned(), 1)].into();
        assert_eq!(moved(&seen, "a", 2), Some(3), "5 → 2: up 3");
        assert_eq!(moved(&seen, "b", 4), Some(-3), "1 → 4: down 3");
        assert_eq!(moved(&seen, "b", 1), None, "unchanged");
        assert_eq!(moved(&seen, "c", 1), None, "not seen before");
    }

    #[test]
    fn remembering_writes_over_what_was_seen_and_keeps_the_best_ranked() {
        let seen = remember([("a".to_owned(), 5)].into(), [("a".to_owned(), 2), ("b".to_owned(), 1)]);
        assert_eq!(seen, [("a".to_owned(), 2), ("b".to_owned(), 1)].into());
        let many = remember(SeenRanks::new(), (0..KEPT as u64 + 10).map(|r| (format!("m{r}"), r + 1)));
        assert_eq!(many.len(), KEPT);
        assert!(many.contains_key("m0") && !many.contains_key(&format!("m{}", KEPT + 9)));
    }
}
