//! A season's openings (carry-over, migration 0030): what each member starts the season with,
//! from an earlier season's final standings. Written once, with the season board, in the
//! transaction that creates it — the board, the openings, the season's first totals (each opening
//! as a total of version 1) and the audit row `season_opened` — so a season never exists without
//! the openings it was defined with. Read back whenever the season's totals are recomputed
//! (`seasons.rs`: a total is the rule's points plus the opening, its version the weeks' plus 1).

use super::audit::{AuditRecord, record as audit};
use super::boards::insert_board_in;
use super::locks::ensure_period;
use super::sql::{INSERT_CHUNK, LOOKUP_CHUNK, member_id, multi_row_insert, padded};
use super::{Ledger, LedgerError, micros};
use domain::{Board, MemberId, TiePolicy};
use serde_json::json;
use sqlx::Row;
use std::collections::HashMap;

impl Ledger {
    /// Creates a season board with its openings (`(member, points)`, best first: under
    /// `first_reached` that is the order they reached them), in one transaction; false when the
    /// slug is taken (nothing is written).
    pub async fn create_season(
        &self,
        season: &Board,
        openings: Vec<(MemberId, i64)>,
        actor: &str,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let (ledger, season, actor) = (self.clone(), season.clone(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            ledger.lock_board_slugs(&mut w.tx).await?;
            if !insert_board_in(&mut w.tx, &season, now).await? {
                return Ok(false);
            }
            let (Some(definition), false) = (&season.season, openings.is_empty()) else {
                w.tx.commit().await?;
                return Ok(true);
            };
            let (slug, key) = (season.slug.as_str(), definition.key().to_string());
            ensure_period(&mut w.tx, slug, &key).await?;
            let first_reached = season.tie_policy() == TiePolicy::FirstReached;
            for (n, chunk) in openings.chunks(INSERT_CHUNK).enumerate() {
                let sql = multi_row_insert(
                    ledger.backend,
                    "INSERT INTO season_openings (board, member, points) VALUES ",
                    3,
                    chunk.len(),
                );
                let mut q = sqlx::query(&sql);
                for (member, points) in chunk {
                    q = q.bind(slug).bind(member.as_str()).bind(*points);
                }
                q.execute(&mut *w.tx).await?;
                let sql = multi_row_insert(
                    ledger.backend,
                    "INSERT INTO totals (board, period, member, points, version, reach_seq, hidden, updated_at) VALUES ",
                    8,
                    chunk.len(),
                );
                let mut q = sqlx::query(&sql);
                for (i, (member, points)) in chunk.iter().enumerate() {
                    let seq = if first_reached { (n * INSERT_CHUNK + i) as i64 } else { 0 };
                    q = q
                        .bind(slug)
                        .bind(&key)
                        .bind(member.as_str())
                        .bind(*points)
                        .bind(1_i64)
                        .bind(seq)
                        .bind(0_i64)
                        .bind(micros(now));
                }
                q.execute(&mut *w.tx).await?;
            }
            if first_reached {
                sqlx::query("UPDATE periods SET next_seq = $1 WHERE board = $2 AND period = $3")
                    .bind(openings.len() as i64)
                    .bind(slug)
                    .bind(&key)
                    .execute(&mut *w.tx)
                    .await?;
            }
            let carry = definition.carry_over.as_ref();
            let record = AuditRecord {
                actor: &actor,
                action: "season_opened",
                board: Some(slug),
                period: Some(&key),
                after: Some(json!({
                    "from": carry.map(|c| c.from.as_str()),
                    "revision": carry.map(|c| c.revision),
                    "share_percent": carry.map(|c| c.share_percent),
                    "floor": carry.map(|c| c.floor),
                    "members": openings.len(),
                    "points": openings.iter().map(|(_, p)| i128::from(*p)).sum::<i128>().to_string(),
                })),
                ..Default::default()
            };
            audit(&mut w.tx, &record, now).await?;
            w.tx.commit().await?;
            Ok(true)
        })
        .await
    }

    /// The openings of `members` (every opening, for None) in a season; none for a season that
    /// carries nothing over.
    pub async fn openings(
        &self,
        season: &Board,
        members: Option<&[MemberId]>,
    ) -> Result<HashMap<MemberId, i64>, LedgerError> {
        let mut conn = self.pool.acquire().await?;
        openings_in(&mut conn, season, members).await
    }
}

/// The openings of `members` (every opening, for None) of a season, on `conn`.
pub(super) async fn openings_in(
    conn: &mut sqlx::AnyConnection,
    season: &Board,
    members: Option<&[MemberId]>,
) -> Result<HashMap<MemberId, i64>, LedgerError> {
    let mut out = HashMap::new();
    if season.season.as_ref().is_none_or(|s| s.carry_over.is_none()) {
        return Ok(out);
    }
    let slug = season.slug.as_str();
    let mut add = |rows: Vec<sqlx::any::AnyRow>| -> Result<(), LedgerError> {
        for row in rows {
            out.insert(member_id(row.try_get("member")?)?, row.try_get::<i64, _>("points")?);
        }
        Ok(())
    };
    let Some(members) = members else {
        let rows = sqlx::query("SELECT member, points FROM season_openings WHERE board = $1")
            .bind(slug)
            .fetch_all(&mut *conn)
            .await?;
        add(rows)?;
        return Ok(out);
    };
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let keys: Vec<&str> = chunk.iter().map(MemberId::as_str).collect();
        let keys = padded(&keys);
        let list: Vec<String> = (0..keys.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT member, points FROM season_openings WHERE board = $1 AND member IN ({})",
            list.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(slug);
        for key in keys {
            q = q.bind(key);
        }
        add(q.fetch_all(&mut *conn).await?)?;
    }
    Ok(out)
}

/// How many members a season opened with (what its version sum holds beyond its weeks').
pub fn opened(season: &Board) -> i64 {
    season.season.as_ref().and_then(|s| s.carry_over.as_ref()).map_or(0, |c| c.members as i64)
}
