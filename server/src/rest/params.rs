//! The path parameters of the routes, as handlers extract them (`ApiPath<PeriodParams>`) and as
//! the OpenAPI document describes them. Values are checked where they are used: an impossible
//! slug or member id is a resource that does not exist (404), an impossible period is 422.

use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BoardParams {
    /// The board's slug.
    pub board: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PeriodParams {
    /// The board's slug.
    pub board: String,
    /// A period key (`2026-W34`, `2026-08-20`, `2026-08`) or `current`.
    pub period: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MemberParams {
    /// The board's slug.
    pub board: String,
    /// A period key or `current`.
    pub period: String,
    /// The member's id.
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SnapshotParams {
    /// The board's slug.
    pub board: String,
    /// A period key or `current`.
    pub period: String,
    /// The `snapshot_id` answered when the snapshot was made.
    pub snapshot: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct LateParams {
    /// The board's slug.
    pub board: String,
    /// A period key or `current`.
    pub period: String,
    /// The late write's id.
    pub id: i64,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct EventParams {
    /// The board's slug.
    pub board: String,
    /// The event's id.
    pub event_id: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ProfileParams {
    /// The member's id.
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BoardMemberParams {
    /// The board's slug.
    pub board: String,
    /// The member's id.
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KeyParams {
    /// The key's id (from the listing). Anything but an integer names no key (404).
    #[param(value_type = i64)]
    pub id: String,
}
