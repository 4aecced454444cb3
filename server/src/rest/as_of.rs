//! Reads of a period's past, from the ledger: `as-of?at=` (the ranking, or a member and their
//! neighbours, replayed at an instant) and `changes?from=&to=` (who moved between two instants).
//! The public never sees past a public freeze. What each may cost is bounded
//! (docs/ARCHITECTURE.md, "What a request may cost").

use super::auth::Reader;
use super::error::{ApiError, ApiQuery, ErrorBody};
use super::params::{PeriodParams, PeriodScope, member, offset};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use jiff::Timestamp;
use serde::Deserialize;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AsOfQuery {
    /// The instant, RFC 3339 (`2026-12-04T18:00:00Z`). The public never sees past a public
    /// freeze: a later instant is answered as of the freeze's moment.
    #[param(format = DateTime)]
    at: String,
    /// The position (0-based) of the first entry; default 0. Not with `around`.
    #[param(minimum = 0, maximum = 4294967295_u32)]
    offset: Option<u64>,
    /// Entries per page; default 50. Not with `around`.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
    /// A member: answer them and `radius` neighbours on each side instead of a page.
    around: Option<String>,
    /// With `around`: entries on each side; default 2.
    #[param(minimum = 0, maximum = 50)]
    radius: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// The earlier instant, RFC 3339.
    #[param(format = DateTime)]
    from: String,
    /// The later instant, RFC 3339.
    #[param(format = DateTime)]
    to: String,
    /// The size of the top compared; default 10.
    #[param(minimum = 1, maximum = 200)]
    top: Option<u64>,
}

/// An instant of a query: RFC 3339, or 400 `invalid_query`.
fn instant(name: &str, raw: &str) -> Result<Timestamp, ApiError> {
    raw.parse::<Timestamp>().map_err(|e| {
        ApiError::new(
            domain::ErrorCode::InvalidQuery,
            format!("{name} must be an RFC 3339 instant such as 2026-12-04T18:00:00Z: {e}"),
        )
    })
}

/// The ranking exactly as the ledger had it at an instant: the entries recorded by then,
/// revocations and corrections made by then, with the board's tie policy. Any state of the
/// period. Public callers never see past a public freeze.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/as-of",
    tag = "reads",
    summary = "The ranking as of an instant (replayed from the ledger)",
    params(PeriodParams, AsOfQuery),
    responses(
        (status = 200, description = "The page, or the member and their neighbours, as of `at` (the instant answered)", body = domain::asof::AsOfPage),
        (status = 400, description = "invalid_query: `at` missing or not an RFC 3339 instant", body = ErrorBody),
        (status = 404, description = "not_found: no such board or period, or the member was not on the board then", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, or around with offset", body = ErrorBody),
    )
)]
pub async fn as_of(
    State(s): State<AppState>,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<AsOfQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<domain::asof::AsOfPage>, ApiError> {
    let at = instant("at", &q.at)?;
    let window = match q.around {
        Some(_) if q.offset.is_some() || q.limit.is_some() => {
            return Err(ApiError::invalid("use either around (with radius) or offset and limit, not both"));
        }
        Some(m) => {
            engine::reads::asof::AsOfWindow::Around { member: member(m)?, radius: q.radius.unwrap_or(2) }
        }
        None => {
            engine::reads::asof::AsOfWindow::Page { offset: offset(q.offset)?, limit: q.limit.unwrap_or(50) }
        }
    };
    Ok(Json(s.engine.reads().as_of(viewer, &scope, at, window).await?))
}

/// Who entered and left the top N between two instants, and every rank move in it: the
/// difference of the two as-of rankings. Public callers never see past a public freeze.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/changes",
    tag = "reads",
    summary = "Changes in the top N between two instants",
    params(PeriodParams, ChangesQuery),
    responses(
        (status = 200, description = "Entered, left and moves (the instants answered)", body = domain::asof::RankChanges),
        (status = 400, description = "invalid_query: `from` or `to` missing or not an RFC 3339 instant", body = ErrorBody),
        (status = 404, description = "not_found: no such board or period", body = ErrorBody),
        (status = 422, description = "invalid: top out of range, or from after to", body = ErrorBody),
    )
)]
pub async fn changes(
    State(s): State<AppState>,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<ChangesQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<domain::asof::RankChanges>, ApiError> {
    let (from, to) = (instant("from", &q.from)?, instant("to", &q.to)?);
    Ok(Json(s.engine.reads().changes_between(viewer, &scope, from, to, q.top.unwrap_or(10)).await?))
}
