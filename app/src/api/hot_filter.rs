//! The console's hot boards: a board's definition and its hit filter, and the form that replaces
//! the filter (audited as `hot_filter` under the signed-in admin's name). The filter's rules are
//! `domain::hot::HotFilter`'s; this module only turns the form's text into one.

use crate::error::AppError;
use domain::hot::HotRules;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What `/admin/hot/{board}` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotConsole {
    pub slug: String,
    pub title: String,
    /// The window in words.
    pub window: String,
    pub rules: HotRules,
}

#[server(endpoint = "admin_hot_board")]
pub async fn read_hot_console(board: String) -> Result<HotConsole, AppError> {
    super::admin::admin_actor().await?;
    let slug = domain::BoardSlug::parse(board).map_err(|e| AppError::Invalid(e.to_string()))?;
    let board = super::engine()?.hot().board(&slug).await?;
    Ok(HotConsole {
        slug: board.slug.to_string(),
        title: board.title.clone(),
        window: board.rules.describe(),
        rules: board.rules,
    })
}

/// Replaces a hot board's filter from the console's form: a checkbox (absent when unticked), the
/// blocked members one per line, the minimum account age in hours (blank: none).
#[server(endpoint = "admin_set_hot_filter")]
pub async fn set_hot_filter(
    board: String,
    count_only_with_results: Option<String>,
    #[server(default)] blocked_members: String,
    #[server(default)] min_actor_age_hours: String,
) -> Result<String, AppError> {
    let actor = super::admin::admin_actor().await?;
    let slug = domain::BoardSlug::parse(board).map_err(|e| AppError::Invalid(e.to_string()))?;
    let hours = super::console::optional_number("min_actor_age_hours", &min_actor_age_hours)?;
    let min_actor_age_seconds = match hours {
        None => None,
        Some(h) if (1..=87_840).contains(&h) => Some(h as u64 * 3_600),
        Some(_) => {
            return Err(AppError::Field {
                field: "min_actor_age_hours".into(),
                message: "give 1 to 87 840 hours (ten years), or leave it blank".into(),
            });
        }
    };
    let filter = domain::hot::HotFilter {
        count_only_with_results: count_only_with_results.is_some(),
        blocked_members: blocked_members
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        min_actor_age_seconds,
    };
    let board = super::engine()?.hot().set_filter(&slug, filter, &actor).await.map_err(|e| match e {
        engine::EngineError::Invalid(message) => AppError::Field { field: "blocked_members".into(), message },
        other => other.into(),
    })?;
    let blocked = board.rules.filter.blocked_members.len();
    Ok(format!("Filter saved: {blocked} blocked member(s). Other instances apply it within 5 seconds."))
}
