//! The scheduler's queries: which periods are in a state, and since when.

use super::rows::text;
use super::{Ledger, LedgerError, Listing, instant, micros};
use domain::lifecycle::State;
use domain::{BoardSlug, PeriodKey};
use sqlx::Row;

/// A period in some state, and when it entered that state (None for a period still `open` since
/// its first write: the row was created open and never changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodInState {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub changed_at: Option<jiff::Timestamp>,
}

impl Ledger {
    /// Periods in `state` that entered it at or after `since` (every one when None) and before
    /// `before`, by board and period.
    pub async fn periods_changed(
        &self,
        state: State,
        since: Option<jiff::Timestamp>,
        before: jiff::Timestamp,
    ) -> Result<Listing<PeriodInState>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period, state_changed_at FROM periods \
             WHERE state = $1 AND COALESCE(state_changed_at, 0) >= $2 AND COALESCE(state_changed_at, 0) < $3 \
             ORDER BY board, period",
        )
        .bind(state.as_str())
        .bind(since.map(micros).unwrap_or(i64::MIN))
        .bind(micros(before))
        .fetch_all(&self.pool)
        .await?;
        Ok(Listing::read("periods", &rows, period_row_key, |r| {
            let corrupt = |e: String| LedgerError::Corrupt(e);
            Ok(PeriodInState {
                board: BoardSlug::parse(r.try_get::<String, _>("board")?)
                    .map_err(|e| corrupt(e.to_string()))?,
                period: PeriodKey::parse(&r.try_get::<String, _>("period")?)
                    .map_err(|e| corrupt(e.to_string()))?,
                changed_at: r.try_get::<Option<i64>, _>("state_changed_at")?.map(instant).transpose()?,
            })
        }))
    }
}

/// A `periods` row's key as stored: `board period`.
pub(super) fn period_row_key(r: &sqlx::any::AnyRow) -> String {
    format!("{} {}", text(r, "board"), text(r, "period"))
}
