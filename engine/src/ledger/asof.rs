//! A period's entries as they stood at an instant, for the board as of that moment
//! (`domain::asof` replays them, `engine::asof` serves them).
//!
//! One read transaction (one snapshot on either backend) reads the entries recorded by the
//! instant, each member's together in ledger order, walking the index `entries_by_member`
//! (board, period, member, id) so neither backend sorts, and the members hidden now. No index of
//! its own: `recorded_at` is filtered on the rows the index walks, so writes pay nothing for this
//! read. The rows' shape differs by backend, as measured (docs/BENCHMARKS.md, as-of): on SQLite
//! members' entries come packed, 20 000 members in one row (`group_concat`), since a
//! row's own cost there (a message from SQLite's worker thread, a conversion to `AnyRow`) was
//! most of the read with one row per entry; on PostgreSQL one row per entry is the faster.

use super::public::Viewer;
use super::sql::{effect_of, entry_effect, member_id};
use super::{Backend, Ledger, LedgerError, Tx, micros};
use domain::asof::PastEntry;
use domain::write::Counted;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;
use std::collections::HashSet;
use std::sync::atomic::{AtomicI64, Ordering};

/// Members per statement, packed (SQLite).
static MEMBERS_PAGE: AtomicI64 = AtomicI64::new(20_000);
/// Entries per statement, one row each (PostgreSQL).
static ENTRIES_PAGE: AtomicI64 = AtomicI64::new(50_000);

/// Sets the members (SQLite) and entries (PostgreSQL) per statement of past reads in this
/// process, so that a test crosses statement boundaries with a small board. Results never
/// depend on it.
#[cfg(feature = "internals")]
pub fn set_past_page(rows: i64) {
    MEMBERS_PAGE.store(rows.max(1), Ordering::Relaxed);
    ENTRIES_PAGE.store(rows.max(1), Ordering::Relaxed);
}

/// What [`Ledger::past`] read.
#[derive(Debug, Default)]
pub struct Past {
    /// Each member's entries together, in ledger order.
    pub entries: Vec<PastEntry>,
    /// Members hidden in the period now: out of every view of it, as on the ranking.
    pub hidden: HashSet<MemberId>,
}

impl Ledger {
    /// The entries of a period recorded by `at` (revocations included), as `seen_by` sees them:
    /// the public sees no entry after a public freeze's watermark, read in the same statement.
    pub async fn past(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        at: jiff::Timestamp,
        seen_by: Viewer,
    ) -> Result<Past, LedgerError> {
        let (slug, key) = (board.as_str(), period.to_string());
        let mut tx = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ").execute(&mut *tx).await?;
        }
        let asked = Asked { slug, key: &key, at: micros(at), until: seen_by.last_entry_seen() };
        let mut past = Past::default();
        match self.backend {
            Backend::Sqlite => read_packed(&mut tx, &asked, &mut past.entries).await?,
            Backend::Postgres => read_rows(&mut tx, &asked, &mut past.entries).await?,
        }
        let hidden = sqlx::query("SELECT member FROM totals WHERE board = $1 AND period = $2 AND hidden = 1")
            .bind(slug)
            .bind(&key)
            .fetch_all(&mut *tx)
            .await?;
        for r in hidden {
            past.hidden.insert(member_id(r.try_get("member")?)?);
        }
        tx.commit().await?;
        Ok(past)
    }
}

/// What a read of past entries is about: a period (`slug`, `key`), the instant (`at`,
/// microseconds) and the last entry id seen, as SQL (`until`: `Viewer::last_entry_seen`).
#[derive(Clone, Copy)]
struct Asked<'a> {
    slug: &'a str,
    key: &'a str,
    at: i64,
    until: &'static str,
}

/// [`MEMBERS_PAGE`] members per statement, in one row: `members` (how many), `last` (the
/// greatest member, where the next statement starts) and `page`, each member as `member packed`,
/// joined by '|' (member ids never hold ' ', '|', ';' or ','). `packed` is the member's entries,
/// each `id,kind,delta,value,set_version,reach_seq,revokes,recorded_at` (NULL as empty), joined by
/// ';'. One row per statement because each row costs a hand-over from SQLite's worker thread;
/// one `printf` per entry because text conversions were most of SQLite's own time; no order
/// inside the aggregates (an aggregate's `ORDER BY` sorts each group): the index walk gives each
/// member's entries in id order, and a member's that did not are sorted here.
async fn read_packed(
    tx: &mut Tx,
    asked: &Asked<'_>,
    entries: &mut Vec<PastEntry>,
) -> Result<(), LedgerError> {
    let Asked { slug, key, at, until } = *asked;
    let sql = format!(
        "SELECT count(*) AS members, max(member) AS last, group_concat(member || ' ' || packed, '|') AS page \
         FROM (SELECT e.member AS member, group_concat(printf('%d,%s,%s,%s,%s,%s,%s,%d', e.id, e.kind, \
         e.delta, e.value, e.set_version, e.reach_seq, e.revokes, e.recorded_at), ';') AS packed \
         FROM entries e WHERE e.board = $1 AND e.period = $2 AND e.member > $3 AND e.recorded_at <= $4 \
         AND e.id <= {until} GROUP BY e.member ORDER BY e.member LIMIT $5)"
    );
    let page_size = MEMBERS_PAGE.load(Ordering::Relaxed);
    let mut after = String::new();
    loop {
        let row = sqlx::query(&sql)
            .bind(slug)
            .bind(key)
            .bind(&after)
            .bind(at)
            .bind(page_size)
            .fetch_one(&mut **tx)
            .await?;
        let members: i64 = row.try_get("members")?;
        let page: Option<String> = row.try_get("page")?;
        for packed in page.iter().flat_map(|p| p.split('|')) {
            let (member, packed) = packed
                .split_once(' ')
                .ok_or_else(|| LedgerError::Corrupt(format!("packed member {packed:?}")))?;
            let member = member_id(member.to_owned())?;
            let from = entries.len();
            for entry in packed.split(';') {
                entries.push(unpack(&member, entry)?);
            }
            // The replay needs each member's entries in ledger order; SQL promised no order.
            let run = &mut entries[from..];
            if !run.is_sorted_by_key(|e| e.id) {
                run.sort_unstable_by_key(|e| e.id);
            }
        }
        if members < page_size {
            return Ok(());
        }
        after = row.try_get("last")?;
    }
}

/// One entry of a packed row (see [`read_packed`]).
fn unpack(member: &MemberId, entry: &str) -> Result<PastEntry, LedgerError> {
    let corrupt = || LedgerError::Corrupt(format!("packed entry {entry:?} of {member}"));
    let mut fields = entry.split(',');
    let mut next = || fields.next().ok_or_else(corrupt);
    let (id, kind) = (next()?, next()?);
    let mut number = || -> Result<Option<i64>, LedgerError> {
        match next()? {
            "" => Ok(None),
            n => n.parse().map(Some).map_err(|_| corrupt()),
        }
    };
    let (delta, value, set_version, reach_seq, revokes) =
        (number()?, number()?, number()?, number()?, number()?);
    let recorded_at = number()?.ok_or_else(corrupt)?;
    let counted = effect_of(kind, delta, value, set_version)?.map(|effect| Counted { effect, reach_seq });
    let id = id.parse().map_err(|_| corrupt())?;
    Ok(PastEntry { id, member: member.clone(), counted, revokes, recorded_at })
}

/// One row per entry, [`ENTRIES_PAGE`] per statement, paged by the row value (member, id).
async fn read_rows(tx: &mut Tx, asked: &Asked<'_>, entries: &mut Vec<PastEntry>) -> Result<(), LedgerError> {
    let Asked { slug, key, at, until } = *asked;
    let sql = format!(
        "SELECT e.id, e.member, e.kind, e.delta, e.value, e.set_version, e.reach_seq, e.revokes, \
         e.recorded_at FROM entries e WHERE e.board = $1 AND e.period = $2 AND (e.member, e.id) > ($3, $4) \
         AND e.recorded_at <= $5 AND e.id <= {until} ORDER BY e.member, e.id LIMIT $6"
    );
    let page_size = ENTRIES_PAGE.load(Ordering::Relaxed);
    let (mut after_member, mut after_id) = (String::new(), 0i64);
    loop {
        let rows = sqlx::query(&sql)
            .bind(slug)
            .bind(key)
            .bind(&after_member)
            .bind(after_id)
            .bind(at)
            .bind(page_size)
            .fetch_all(&mut **tx)
            .await?;
        for r in &rows {
            let member: String = r.try_get("member")?;
            // A member's entries come together: parse their id once.
            let member = match entries.last() {
                Some(last) if last.member.as_str() == member => last.member.clone(),
                _ => member_id(member)?,
            };
            let reach_seq = r.try_get("reach_seq")?;
            let counted = entry_effect(r)?.map(|effect| Counted { effect, reach_seq });
            entries.push(PastEntry {
                id: r.try_get("id")?,
                member,
                counted,
                revokes: r.try_get("revokes")?,
                recorded_at: r.try_get("recorded_at")?,
            });
        }
        match entries.last() {
            Some(last) if rows.len() as i64 == page_size => {
                (after_member, after_id) = (last.member.as_str().to_owned(), last.id)
            }
            _ => return Ok(()),
        }
    }
}
