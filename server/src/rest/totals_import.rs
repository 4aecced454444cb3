//! Imports of existing totals (admin): `POST …/periods/{period}/imports`, the rows of a host
//! moving to Laurel, once per `import_id`, all or nothing (`engine::writes::totals_import` has the rules).
//! The caller is checked before the body is read.

use super::auth::Admin;
use super::body::JsonBody;
use super::error::{ApiError, ErrorBody};
use super::params::{PeriodParams, PeriodScope};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use engine::progress::Progress;
use engine::writes::totals_import::{ImportMode, TotalsImportReport, build, parse_json_rows};
use serde::Deserialize;

/// One imported total.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ImportRow)]
#[allow(dead_code, reason = "schema-only: rows are read one by one, so a refusal names the row")]
pub struct ImportRowIn {
    #[schema(value_type = domain::MemberId)]
    member: String,
    points: i64,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewTotalsImport)]
pub struct TotalsImportIn {
    /// Makes the import exactly-once: a repeat with the same rows, mode and period answers the
    /// first import (`repeated: true`) and changes nothing. Visible ASCII, 1-128 characters.
    #[schema(value_type = domain::EventId)]
    import_id: String,
    /// `nx`: only members not yet on the board in the period (live totals are kept); `replace`:
    /// the total becomes the imported points.
    mode: ImportMode,
    /// At most 1 000 000 rows (and the 2 MiB body); each member once.
    #[schema(value_type = Vec<ImportRowIn>)]
    rows: Vec<serde_json::Value>,
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/imports",
    tag = "lifecycle",
    summary = "Import existing totals",
    description = "Sets members' totals from another system as `opening` entries, all or nothing, \
        once per `import_id`. Only into an open period.",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body = TotalsImportIn,
    responses(
        (status = 200, description = "What the import did (or, for a repeat, what the first did)", body = TotalsImportReport),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "period_not_open / import_id_taken", body = ErrorBody),
        (status = 422, description = "invalid (the refused rows, by number) / invalid_body", body = ErrorBody),
    )
)]
pub async fn import(
    State(state): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
    body: JsonBody,
) -> Result<Json<TotalsImportReport>, ApiError> {
    let body: TotalsImportIn = body.parse()?;
    let import = build(&body.import_id, body.mode.as_str(), parse_json_rows(&body.rows))?;
    let progress = Progress::new();
    let report = state.engine.writes().import_totals(&scope, &import, &admin.actor, &progress).await?;
    Ok(Json(report))
}
