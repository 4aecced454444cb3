//! The console's hot boards: the form that creates one, a board's definition and its hit filter,
//! and the form that replaces the filter (audited as `hot_filter` under the signed-in admin's
//! name). The rules are `domain::hot`'s; this module only turns the forms' text into them.

use crate::error::AppError;
use domain::hot::HotRules;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What `/admin/hot/{board}` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotConsole {
    pub slug: String,
    pub title: String,
    pub rules: HotRules,
}

#[server(endpoint = "admin_hot_board")]
pub async fn read_hot_console(board: String) -> Result<HotConsole, AppError> {
    super::admin::admin_actor().await?;
    let slug = domain::BoardSlug::parse(board).map_err(|e| AppError::Invalid(e.to_string()))?;
    let board = super::engine()?.hot().board(&slug).await?;
    Ok(HotConsole { slug: board.slug.to_string(), title: board.title.clone(), rules: board.rules })
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
    use crate::i18n::{Say, tr};
    let actor = super::admin::admin_actor().await?;
    let l = crate::i18n::locale();
    let slug = domain::BoardSlug::parse(board).map_err(|e| AppError::Invalid(e.to_string()))?;
    let hours = super::console::optional_number("min_actor_age_hours", &min_actor_age_hours)?;
    let min_actor_age_seconds = match hours {
        None => None,
        Some(h) if (1..=87_840).contains(&h) => Some(h as u64 * 3_600),
        Some(_) => {
            return Err(AppError::Field {
                field: "min_actor_age_hours".into(),
                message: tr!(l, "hotc-min-age-invalid", max = l.number(87_840)),
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
    let blocked = i64::try_from(board.rules.filter.blocked_members.len()).unwrap_or(i64::MAX);
    Ok(tr!(l, "hotc-saved", blocked = l.number(blocked), seconds = l.number(5)))
}

/// Creates a hot board from the console's form: the bucket length and the number of buckets make
/// the window; the key TTL is 1.5 × the window (the least `domain::hot::HotRules::new` accepts);
/// action weights one per line (`search: 1`). Then opens the board's console page.
#[server(endpoint = "admin_create_hot_board")]
pub async fn create_hot_board(
    slug: String,
    title: String,
    bucket_seconds: String,
    window_buckets: String,
    write_mode: String,
    #[server(default)] actor_cap: String,
    #[server(default)] action_weights: String,
) -> Result<(), AppError> {
    use super::console::optional_number;
    use crate::i18n::tr;
    let actor = super::admin::admin_actor().await?;
    let l = crate::i18n::locale();
    let slug = domain::BoardSlug::parse(slug.trim())
        .map_err(|e| AppError::Field { field: "hot_slug".into(), message: e.to_string() })?;
    let title = title.trim().to_owned();
    if title.is_empty() || title.chars().count() > 200 {
        return Err(AppError::Field {
            field: "hot_title".into(),
            message: tr!(l, "hotc-title-invalid", min = 1, max = 200),
        });
    }
    let whole = |field: &str, text: &str| -> Result<Option<u64>, AppError> {
        optional_number(field, text)?
            .map(|n| {
                u64::try_from(n).map_err(|_| AppError::Field {
                    field: field.into(),
                    message: tr!(l, "hotc-below-zero", number = n.to_string()),
                })
            })
            .transpose()
    };
    let bucket_seconds = whole("bucket_seconds", &bucket_seconds)?.unwrap_or(3_600);
    let window_buckets = whole("window_buckets", &window_buckets)?.unwrap_or(24);
    let mut weights = std::collections::BTreeMap::new();
    for line in action_weights.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let parsed = line.split_once(':').and_then(|(a, w)| Some((a.trim(), w.trim().parse::<f64>().ok()?)));
        let Some((action, weight)) = parsed else {
            return Err(AppError::Field {
                field: "action_weights".into(),
                message: tr!(l, "hotc-weight-invalid", line = format!("{line:?}")),
            });
        };
        weights.insert(action.to_owned(), weight);
    }
    let spec = domain::hot::HotSpec {
        bucket_seconds,
        window_buckets,
        ttl_seconds: (3 * bucket_seconds.saturating_mul(window_buckets)).div_ceil(2),
        write_mode: Some(write_mode.parse().map_err(AppError::Invalid)?),
        actor_cap: whole("actor_cap", &actor_cap)?,
        action_weights: (!weights.is_empty()).then_some(weights),
        ..domain::hot::HotSpec::default()
    };
    let rules = HotRules::new(spec).map_err(AppError::Invalid)?;
    let board = domain::hot::HotBoard { slug, title, rules };
    super::engine()?.hot().create_board(&board).await?;
    tracing::info!(%actor, board = %board.slug, "hot board created from the console");
    leptos_axum::redirect(&format!("/admin/hot/{}", board.slug));
    Ok(())
}
