//! Reads from the ledger: the entries behind a member's score, and a board's periods.

use super::public::Viewer;
use super::{Ledger, LedgerError};
use domain::view::LedgerEntry;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;

impl Ledger {
    /// A member's entries in a period, newest first; `before` pages by entry id.
    pub async fn member_entries(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
        seen_by: Viewer,
    ) -> Result<Vec<LedgerEntry>, LedgerError> {
        let until = seen_by.last_entry_seen();
        let rows = sqlx::query(&format!(
            "SELECT e.id, e.kind, e.external_id, e.delta, e.value, e.set_version, e.occurred_at, \
             e.recorded_at, e.metadata, e.reason, \
             (SELECT o.external_id FROM entries o WHERE o.id = e.revokes) AS revokes, \
             CAST(CASE WHEN EXISTS (SELECT 1 FROM entries r WHERE r.revokes = e.id AND r.id <= {until}) \
             THEN 1 ELSE 0 END AS BIGINT) AS revoked \
             FROM entries e WHERE e.board = $1 AND e.period = $2 AND e.member = $3 AND e.id < $4 \
             AND e.id <= {until} ORDER BY e.id DESC LIMIT $5",
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(member.as_str())
        .bind(before.unwrap_or(i64::MAX))
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        let time =
            |us: i64| jiff::Timestamp::from_microsecond(us).map_err(|e| LedgerError::Corrupt(e.to_string()));
        rows.iter()
            .map(|r| {
                Ok(LedgerEntry {
                    id: r.try_get("id")?,
                    kind: r.try_get("kind")?,
                    external_id: r.try_get("external_id")?,
                    delta: r.try_get("delta")?,
                    value: r.try_get("value")?,
                    set_version: r.try_get("set_version")?,
                    occurred_at: time(r.try_get("occurred_at")?)?,
                    recorded_at: time(r.try_get("recorded_at")?)?,
                    // Stored as the text of a JSON value (the API writes it from one), so it parses back.
                    metadata: r
                        .try_get::<Option<String>, _>("metadata")?
                        .and_then(|m| serde_json::from_str(&m).ok()),
                    reason: r.try_get("reason")?,
                    revokes: r.try_get("revokes")?,
                    revoked: r.try_get::<i64, _>("revoked")? == 1,
                })
            })
            .collect()
    }

    /// The periods of a board that have seen writes, with their states, newest first.
    pub async fn periods(
        &self,
        board: &BoardSlug,
    ) -> Result<super::Listing<(PeriodKey, domain::lifecycle::State)>, LedgerError> {
        let rows = sqlx::query("SELECT board, period, state FROM periods WHERE board = $1")
            .bind(board.as_str())
            .fetch_all(&self.pool)
            .await?;
        let mut out = super::Listing::read("periods", &rows, super::schedule::period_row_key, |r| {
            let key: String = r.try_get("period")?;
            let key = PeriodKey::parse(&key).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            let state: String = r.try_get("state")?;
            let state = domain::lifecycle::State::parse(&state)
                .ok_or_else(|| LedgerError::Corrupt(format!("unknown period state {state:?}")))?;
            Ok((key, state))
        });
        out.rows.sort_by_key(|(period, _)| std::cmp::Reverse(*period));
        Ok(out)
    }
}
