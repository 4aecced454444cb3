//! Segment memberships (`segment_members`, migration 0024): a member's value in each of the
//! board's dimensions, per period. The write path reads the values its writes' members hold and
//! inserts the ones a write fixes, in the write's own transaction (`writes.rs`, `decide.rs`); the
//! rest here are reads outside any write: the memberships of members whose totals changed (their
//! segment rankings are projected after the commit), a segment's totals (the ledger fallback,
//! levelling, snapshots), whether anyone holds a value (pins), the version sums the reconciler
//! compares, and a dimension's values (the list route).

use super::boards::StoredTotal;
use super::sql::{LOOKUP_CHUNK, Params, member_id, padded};
use super::{Backend, Ledger, LedgerError, Tx};
use domain::segment::Values;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;
use std::collections::HashMap;

/// A new membership: (period key, member, dimension, value).
pub(super) type NewMembership<'a> = (&'a str, &'a str, &'a str, &'a str);

/// The SQL of every tombstone of a period (`segment_moves.rs`), as (member, dimension, value,
/// version): for each member that moved out of a value and does not hold it now, the version of
/// its last move out — the version the value's ranking keeps for it.
pub(super) const TOMBSTONES: &str = "SELECT m.member, m.dimension, m.from_value AS value, MAX(m.version) AS version \
     FROM segment_moves m WHERE m.board = $1 AND m.period = $2 AND m.from_value IS NOT NULL \
     AND NOT EXISTS (SELECT 1 FROM segment_members s WHERE s.board = m.board AND s.period = m.period \
     AND s.member = m.member AND s.dimension = m.dimension AND s.value = m.from_value) \
     GROUP BY m.member, m.dimension, m.from_value";

/// The values held by `members` of period `key` (members without any are left out).
pub(super) async fn held_in(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    key: &str,
    members: &[&str],
) -> Result<HashMap<String, Values>, LedgerError> {
    let mut held: HashMap<String, Values> = HashMap::new();
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let chunk = padded(chunk);
        let mut p = Params::new(backend);
        let sql = format!(
            "SELECT member, dimension, value FROM segment_members WHERE board = {} AND period = {} \
             AND member IN ({})",
            p.list(1),
            p.list(1),
            p.list(chunk.len())
        );
        let mut query = sqlx::query(&sql).bind(slug).bind(key);
        for m in &chunk {
            query = query.bind(*m);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let member: String = row.try_get("member")?;
            held.entry(member).or_default().insert(row.try_get("dimension")?, row.try_get("value")?);
        }
    }
    Ok(held)
}

/// The segment values the profiles of `members` name (members whose profile names none are
/// left out): what their writes fix where they name no value (`decide.rs`, `Held`).
pub(super) async fn profile_values(
    tx: &mut Tx,
    backend: Backend,
    members: &[&str],
) -> Result<HashMap<String, Values>, LedgerError> {
    let mut named = HashMap::new();
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let chunk = padded(chunk);
        let mut p = Params::new(backend);
        let sql = format!(
            "SELECT member, segments FROM profiles WHERE segments IS NOT NULL AND member IN ({})",
            p.list(chunk.len())
        );
        let mut query = sqlx::query(&sql);
        for m in &chunk {
            query = query.bind(*m);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let member: String = row.try_get("member")?;
            let text: String = row.try_get("segments")?;
            let values: Values = serde_json::from_str(&text)
                .map_err(|e| LedgerError::Corrupt(format!("segments of {member}'s profile: {e}")))?;
            named.insert(member, values);
        }
    }
    Ok(named)
}

/// Every value's roster of period `key`: `(dimension, value, members)`, the members packed by
/// the server into one text separated by spaces (ids hold none), in no particular order. What a
/// settlement ranks its segments by (`domain::settlement::roster_standings`); read from the
/// by-value index alone (migration 0027), one row per value.
pub(super) async fn period_rosters(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    key: &str,
) -> Result<Vec<(String, String, String)>, LedgerError> {
    let concat = match backend {
        Backend::Sqlite => "group_concat",
        Backend::Postgres => "string_agg",
    };
    let sql = format!(
        "SELECT dimension, value, {concat}(member, ' ') AS members FROM segment_members \
         WHERE board = $1 AND period = $2 GROUP BY dimension, value"
    );
    let rows = sqlx::query(&sql).bind(slug).bind(key).fetch_all(&mut **tx).await?;
    rows.into_iter()
        .map(|row| Ok((row.try_get("dimension")?, row.try_get("value")?, row.try_get("members")?)))
        .collect()
}

/// Every membership of period `key`, by member: what a preview ranks its segments by. Read in
/// pages of up to `page_size` members (all their rows), each packed by the server into one text of
/// `member,dimension,value` items, as a settlement reads its totals (`settle.rs`): ids hold
/// neither `,` nor spaces.
pub(super) async fn period_memberships(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    key: &str,
    page_size: i64,
) -> Result<HashMap<String, Values>, LedgerError> {
    let concat = match backend {
        Backend::Sqlite => "group_concat",
        Backend::Postgres => "string_agg",
    };
    let sql = format!(
        "SELECT {concat}(member || ',' || dimension || ',' || value, ' ') AS page, MAX(member) AS last, \
         COUNT(*) AS n FROM segment_members WHERE board = $1 AND period = $2 AND member > $3 \
         AND member <= (SELECT MAX(member) FROM (SELECT member FROM segment_members WHERE board = $1 \
         AND period = $2 AND member > $3 ORDER BY member LIMIT $4) AS m)"
    );
    let mut held: HashMap<String, Values> = HashMap::new();
    let mut after = String::new();
    loop {
        let row =
            sqlx::query(&sql).bind(slug).bind(key).bind(&after).bind(page_size).fetch_one(&mut **tx).await?;
        if row.try_get::<i64, _>("n")? == 0 {
            break;
        }
        let page: String = row.try_get("page")?;
        for item in page.split(' ') {
            let corrupt = || LedgerError::Corrupt(format!("membership {item:?} of {slug} {key}"));
            let mut parts = item.splitn(3, ',');
            let (Some(m), Some(d), Some(v)) = (parts.next(), parts.next(), parts.next()) else {
                return Err(corrupt());
            };
            held.entry(m.to_owned()).or_default().insert(d.to_owned(), v.to_owned());
        }
        after = row.try_get("last")?;
    }
    Ok(held)
}

impl Ledger {
    /// Every membership of a period, by member (`period_memberships`, outside any write): what a
    /// preview ranks the segments by, before and after its changes.
    pub async fn memberships(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
    ) -> Result<HashMap<String, Values>, LedgerError> {
        let mut tx = self.pool.begin().await?;
        let batch = super::sql::settle_batch() as i64;
        let held =
            period_memberships(&mut tx, self.backend, board.as_str(), &period.to_string(), batch).await?;
        tx.commit().await?;
        Ok(held)
    }
}

/// Inserts new memberships; answers how many were inserted. A row another transaction inserted
/// first is not (PostgreSQL): the caller's answers are then void and it retries, so that the
/// first write to commit fixes the value.
pub(super) async fn insert_memberships(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    rows: &[NewMembership<'_>],
) -> Result<u64, LedgerError> {
    let mut inserted = 0;
    for chunk in rows.chunks(super::sql::INSERT_CHUNK) {
        let mut sql = super::sql::multi_row_insert(
            backend,
            "INSERT INTO segment_members (board, period, member, dimension, value) VALUES ",
            5,
            chunk.len(),
        );
        sql.push_str(" ON CONFLICT (board, period, member, dimension) DO NOTHING");
        let mut query = sqlx::query(&sql);
        for (key, member, dim, value) in chunk {
            query = query.bind(slug).bind(*key).bind(*member).bind(*dim).bind(*value);
        }
        inserted += query.execute(&mut **tx).await?.rows_affected();
    }
    Ok(inserted)
}

/// One value of a dimension as the list route shows it: its members (hidden ones left out) and
/// its best total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentMember {
    pub value: String,
    pub total: StoredTotal,
}

impl Ledger {
    /// The values held by `members` in `period` (members without any are left out).
    pub async fn segments_of(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        members: &[&MemberId],
    ) -> Result<HashMap<MemberId, Values>, LedgerError> {
        let mut tx = self.pool.begin().await?;
        let ids: Vec<&str> = members.iter().map(|m| m.as_str()).collect();
        let held = held_in(&mut tx, self.backend, board.as_str(), &period.to_string(), &ids).await?;
        tx.commit().await?;
        held.into_iter().map(|(m, v)| Ok((member_id(m)?, v))).collect()
    }

    /// Every total of one segment value of a period (hidden members' too), by member.
    pub async fn segment_totals(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        dimension: &str,
        value: &str,
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        let rows = sqlx::query(
            // Driven by the value's members (its index), each total then found by its key: as a
            // join, SQLite walked the period's every total for each value (190 ms per value at
            // 100 000 members; docs/BENCHMARKS.md, settle and rebuild).
            "SELECT t.member, t.points, t.version, t.reach_seq, t.hidden FROM totals t \
             WHERE t.board = $1 AND t.period = $2 AND t.version > 0 AND t.member IN (SELECT s.member \
             FROM segment_members s WHERE s.board = $1 AND s.period = $2 AND s.dimension = $3 AND s.value = $4) \
             ORDER BY t.member",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(dimension)
        .bind(value)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(stored_total).collect()
    }

    /// Whether any member of a period holds one segment value (one row of the value's index): a
    /// pin of a value nobody holds writes nothing to Redis.
    pub async fn segment_held(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        dimension: &str,
        value: &str,
    ) -> Result<bool, LedgerError> {
        let row = sqlx::query(
            "SELECT 1 AS held FROM segment_members WHERE board = $1 AND period = $2 AND dimension = $3 \
             AND value = $4 LIMIT 1",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(dimension)
        .bind(value)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }

    /// The sum of the total versions of each segment value of a period, tombstones included
    /// (`segment_moves.rs`), as the reconciler compares them with each segment ranking's `vsum`:
    /// (dimension, value, sum). A value every member left is listed by its tombstones.
    pub async fn segment_version_sums(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<(String, String, i64)>, LedgerError> {
        let rows = sqlx::query(&format!(
            "SELECT dimension, value, CAST(SUM(version) AS BIGINT) AS vsum FROM (\
             SELECT s.dimension, s.value, t.version FROM segment_members s \
             JOIN totals t ON t.board = s.board AND t.period = s.period AND t.member = s.member \
             WHERE s.board = $1 AND s.period = $2 \
             UNION ALL SELECT dimension, value, version FROM ({}) AS g) AS v GROUP BY dimension, value",
            TOMBSTONES
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("dimension")?, r.try_get("value")?, r.try_get::<i64, _>("vsum")?)))
            .collect()
    }

    /// Every member of a dimension in a period with its value and total (the list route reads
    /// them at most once per 2 s per process).
    pub async fn dimension_members(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        dimension: &str,
    ) -> Result<Vec<SegmentMember>, LedgerError> {
        let rows = sqlx::query(
            "SELECT s.value, t.member, t.points, t.version, t.reach_seq, t.hidden FROM segment_members s \
             JOIN totals t ON t.board = s.board AND t.period = s.period AND t.member = s.member \
             WHERE s.board = $1 AND s.period = $2 AND s.dimension = $3 AND t.version > 0",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(dimension)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok(SegmentMember { value: r.try_get("value")?, total: stored_total(r)? }))
            .collect()
    }

    /// Every segment value a period has, by dimension (rebuilds, unlinking).
    pub async fn segment_values(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<(String, String)>, LedgerError> {
        // With the values members only moved out of: their rankings hold tombstones.
        let rows = sqlx::query(
            "SELECT dimension, value FROM segment_members WHERE board = $1 AND period = $2 UNION \
             SELECT dimension, from_value AS value FROM segment_moves WHERE board = $1 AND period = $2 \
             AND from_value IS NOT NULL ORDER BY dimension, value",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok((r.try_get("dimension")?, r.try_get("value")?))).collect()
    }
}

fn stored_total(row: &sqlx::any::AnyRow) -> Result<StoredTotal, LedgerError> {
    Ok(StoredTotal {
        member: member_id(row.try_get("member")?)?,
        points: row.try_get("points")?,
        version: row.try_get("version")?,
        reach_seq: row.try_get("reach_seq")?,
        hidden: row.try_get::<i64, _>("hidden")? != 0,
    })
}
