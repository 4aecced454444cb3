//! The audit trail (admin): every admin action and refused write, newest first, filtered by
//! board, period, member or action, in pages.

use super::auth::Admin;
use super::error::{ApiError, ApiQuery, ErrorBody};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::view::AuditEntry;
use engine::AuditFilter;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A page of the audit trail, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    /// Pass as `cursor` for older rows; null on the last page.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    board: Option<String>,
    period: Option<String>,
    member: Option<String>,
    /// `token#<id>`, `ingest`, …
    actor: Option<String>,
    /// `freeze`, `settle`, `revoke`, `correct`, `hide`, `unhide`, `write_rejected`, …
    action: Option<String>,
    /// Rows at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<jiff::Timestamp>,
    /// Rows before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<jiff::Timestamp>,
    /// Rows per page (1-500); default 50.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    cursor: Option<String>,
}

/// `GET /api/v1/audit`: newest first; `next_cursor` continues (absent on the last page).
#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "lifecycle",
    summary = "The audit trail, newest first",
    security(("admin_token" = [])),
    params(AuditQuery),
    responses(
        (status = 200, description = "A page of the audit trail", body = AuditPage),
        (status = 422, description = "invalid: a cursor this server did not make, a limit out of range", body = ErrorBody),
    )
)]
pub async fn audit(
    State(state): State<AppState>,
    _admin: Admin,
    ApiQuery(q): ApiQuery<AuditQuery>,
) -> Result<Json<AuditPage>, ApiError> {
    let before = q
        .cursor
        .as_deref()
        .map(|c| {
            // Exactly the cursors the pattern describes (next_cursor is a row id: 1, 2, …).
            let canonical = !c.is_empty()
                && c.len() <= 18
                && !c.starts_with('0')
                && c.bytes().all(|b| b.is_ascii_digit());
            canonical
                .then(|| c.parse::<i64>().ok())
                .flatten()
                .ok_or_else(|| ApiError::invalid("the cursor is not one this server made"))
        })
        .transpose()?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::invalid("limit must be between 1 and 500"));
    }
    let filter = AuditFilter {
        board: q.board,
        period: q.period,
        member: q.member,
        actor: q.actor,
        action: q.action,
        since: q.since,
        until: q.until,
    };
    let entries = state.engine.lifecycle().audit(&filter, before, limit).await?;
    let next_cursor =
        (entries.len() as u64 == limit).then(|| entries.last().map(|e| e.id.to_string())).flatten();
    Ok(Json(AuditPage { entries, next_cursor }))
}
