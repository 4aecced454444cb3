//! The SQL of members' totals, for the write paths: reading them for change (`lock_total`,
//! `read_totals`, a batch's `read_wanted`), adding a batch's deltas to them in one upsert that
//! also locks them (`add_deltas`, `Locking::Last`), and storing them (`store_total`,
//! `store_totals`). One module, so that every path that changes a total — a batch, late review,
//! a correction or revocation — reads and stores the row the same way (hiding a member reads it
//! here too, and flips only its flag, `moderation.rs`).

use super::decide::Decided;
use super::entries::Seen;
use super::sql::{INSERT_CHUNK, LOOKUP_CHUNK, Params, multi_row_insert, padded};
use super::write_rows::{LockedTotal, StoredState};
use super::{Backend, LedgerError, Tx, micros};
use domain::MemberId;
use domain::write::{Change, Current, Write};
use sqlx::Row;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Reads a member's total for change. SQLite holds its one write lock; on PostgreSQL the row was
/// locked up front (`lock_in_order` / `lock_member`).
pub(super) async fn lock_total(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    member: &MemberId,
) -> Result<LockedTotal, LedgerError> {
    let mut found = read_totals(tx, backend, board, period, &[member.as_str()]).await?;
    Ok(found.pop().map_or(LockedTotal::NONE, |(_, locked)| locked))
}

/// Reads the totals of `members` in a period that have a row, as [`lock_total`] does, with one
/// statement per `LOOKUP_CHUNK` members.
///
/// One point lookup per member by the whole key, joined with UNION ALL, rather than
/// `member IN (…)`: PostgreSQL may run such a list as a filter over the scan of every total of
/// the period, and chooses that whenever it believes the period small, as it does of every period
/// its statistics do not know yet (a new week, a new ledger). The filter then read all the
/// period's totals at every batch, with the batch's rows locked (docs/BENCHMARKS.md, ingest).
pub(super) async fn read_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    members: &[&str],
) -> Result<Vec<(String, LockedTotal)>, LedgerError> {
    let mut found = Vec::with_capacity(members.len());
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let chunk = &padded(chunk);
        let mut p = Params::new(backend);
        let lookups: Vec<String> = chunk
            .iter()
            .map(|_| {
                format!(
                    "SELECT member, points, version, set_version, reach_seq, hidden FROM totals \
                     WHERE board = {} AND period = {} AND member = {}",
                    p.list(1),
                    p.list(1),
                    p.list(1)
                )
            })
            .collect();
        let sql = lookups.join(" UNION ALL ");
        let mut query = sqlx::query(&sql);
        for member in chunk {
            query = query.bind(board).bind(period).bind(*member);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let locked = LockedTotal {
                current: Current {
                    points: row.try_get("points")?,
                    version: row.try_get("version")?,
                    set_version: row.try_get("set_version")?,
                },
                reach_seq: row.try_get("reach_seq")?,
                hidden: row.try_get::<i64, _>("hidden")? != 0,
            };
            found.push((row.try_get("member")?, locked));
        }
    }
    Ok(found)
}

/// The (period, member) totals the writes that may apply will start from, per period, each
/// list sorted and without repeats.
pub(super) fn wanted_totals<'a>(
    writes: &'a [Write],
    keys: &'a [String],
    seen: &Seen,
) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut wanted: HashMap<&str, Vec<&str>> = HashMap::new();
    for (write, key) in writes.iter().zip(keys) {
        let id = write.change.external_id().map(|id| id.as_str());
        if id.is_none_or(|id| !seen.applied.contains(id) && !seen.kept.contains(id)) {
            wanted.entry(key.as_str()).or_default().push(write.member.as_str());
        }
    }
    let mut wanted: Vec<_> = wanted.into_iter().collect();
    wanted.sort_unstable();
    for (_, members) in &mut wanted {
        members.sort_unstable();
        members.dedup();
    }
    wanted
}

/// Reads the `wanted` totals that have a row: one statement per period and `LOOKUP_CHUNK`
/// members.
pub(super) async fn read_wanted<'a>(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    wanted: &[(&'a str, Vec<&'a str>)],
) -> Result<HashMap<(&'a str, &'a str), LockedTotal>, LedgerError> {
    let mut totals = HashMap::new();
    for (key, members) in wanted {
        for (member, locked) in read_totals(tx, backend, slug, key, members).await? {
            let member = members[members.binary_search(&member.as_str()).map_err(|_| {
                LedgerError::Corrupt(format!("total of {member} in {slug} {key} was not asked for"))
            })?];
            totals.insert((*key, member), locked);
        }
    }
    Ok(totals)
}

/// Under `Locking::Last` on PostgreSQL: adds the deltas of the writes `decided` records to the
/// `wanted` totals (creating missing rows; a total without a recorded write gets zero, which
/// locks it all the same), one multi-row upsert per `INSERT_CHUNK` rows in (period, member)
/// order — the order every batch locks totals in. Answers the totals as they were before.
pub(super) async fn add_deltas<'a>(
    tx: &mut Tx,
    slug: &str,
    writes: &[Write],
    keys: &[String],
    wanted: &[(&'a str, Vec<&'a str>)],
    decided: &Decided<'_>,
    now: jiff::Timestamp,
) -> Result<HashMap<(&'a str, &'a str), LockedTotal>, LedgerError> {
    // (period, member) -> (sum of deltas, number of writes)
    let mut added: HashMap<(&str, &str), (i64, i64)> = HashMap::new();
    for &(i, _) in &decided.recorded {
        let delta = match writes[i].change {
            Change::Point { delta, .. } | Change::Correction { delta, .. } => delta,
            _ => return Err(LedgerError::Corrupt("only point events and corrections add deltas".into())),
        };
        let sum = added.entry((keys[i].as_str(), writes[i].member.as_str())).or_default();
        *sum = (sum.0 + delta, sum.1 + 1);
    }
    let rows: Vec<(&'a str, &'a str)> =
        wanted.iter().flat_map(|(key, members)| members.iter().map(move |m| (*key, *m))).collect();
    let mut before = HashMap::with_capacity(rows.len());
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = String::from(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) \
             VALUES ",
        );
        for i in 0..chunk.len() {
            let sep = if i == 0 { "" } else { ", " };
            let n = 4 * i + 3;
            let _ = write!(sql, "{sep}($1, ${n}, ${}, ${}, ${}, 0, 0, $2)", n + 1, n + 2, n + 3);
        }
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET points = totals.points + excluded.points, \
             version = totals.version + excluded.version, updated_at = excluded.updated_at \
             RETURNING period, member, points, version, set_version, reach_seq, hidden",
        );
        let mut query = sqlx::query(&sql).bind(slug).bind(micros(now));
        for &(key, member) in chunk {
            let (delta, count) = added.get(&(key, member)).copied().unwrap_or_default();
            query = query.bind(key).bind(member).bind(delta).bind(count);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let (period, member): (String, String) = (row.try_get("period")?, row.try_get("member")?);
            let at = chunk[chunk.binary_search(&(period.as_str(), member.as_str())).map_err(|_| {
                LedgerError::Corrupt(format!("total of {member} in {slug} {period} was not asked for"))
            })?];
            let (delta, count) = added.get(&at).copied().unwrap_or_default();
            let locked = LockedTotal {
                current: Current {
                    points: row.try_get::<i64, _>("points")? - delta,
                    version: row.try_get::<i64, _>("version")? - count,
                    set_version: row.try_get("set_version")?,
                },
                reach_seq: row.try_get("reach_seq")?,
                hidden: row.try_get::<i64, _>("hidden")? != 0,
            };
            before.insert(at, locked);
        }
    }
    Ok(before)
}

/// Writes a member's total (creating the row on its first change). `hidden` is left as it is:
/// only `Ledger::set_hidden` changes it.
pub(super) async fn store_total(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    member: &MemberId,
    state: StoredState,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    store_totals(tx, backend, board, &[((period, member.as_str()), state)], now).await
}

/// Writes members' totals as [`store_total`] does, `INSERT_CHUNK` rows per statement (each
/// (period, member) at most once).
pub(super) async fn store_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    totals: &[((&str, &str), StoredState)],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    for chunk in totals.chunks(INSERT_CHUNK) {
        let mut sql = multi_row_insert(
            backend,
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) VALUES ",
            8,
            chunk.len(),
        );
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET \
             points = excluded.points, version = excluded.version, reach_seq = excluded.reach_seq, \
             set_version = excluded.set_version, updated_at = excluded.updated_at",
        );
        let mut query = sqlx::query(&sql);
        for ((period, member), state) in chunk {
            query = query
                .bind(board)
                .bind(*period)
                .bind(*member)
                .bind(state.points)
                .bind(state.version)
                .bind(state.reach_seq)
                .bind(state.set_version)
                .bind(micros(now));
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}
