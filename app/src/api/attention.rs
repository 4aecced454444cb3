//! The console's front page: what needs an admin's attention, and each board's activity. Both
//! are console reads, registered as `admin_<name>` and checked by
//! [`admin_actor`](super::admin::admin_actor) like the others in [`super::console`].

use crate::error::AppError;
use domain::view::{Attention, BoardActivity};
use leptos::prelude::*;

/// Due periods, pending late writes, undelivered rewards, projection lag and keys near their
/// limit (`engine::boards::attention`).
#[server(endpoint = "admin_attention")]
pub async fn read_attention() -> Result<Attention, AppError> {
    super::admin::admin_actor().await?;
    Ok(super::engine()?.boards().attention(jiff::Timestamp::now()).await?)
}

/// Every board with its entries per hour over the last 24 hours and its current period's state.
#[server(endpoint = "admin_activity")]
pub async fn read_activity() -> Result<Vec<BoardActivity>, AppError> {
    super::admin::admin_actor().await?;
    Ok(super::engine()?.boards().board_activity(jiff::Timestamp::now()).await?)
}
