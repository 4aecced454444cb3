//! The console's season form: a season board made of another board's periods (docs/SEASONS.md).
//! Every field is checked by `domain::board::SeasonDraft`, as for the REST API; a refusal names
//! the field.

#![allow(
    clippy::too_many_arguments,
    reason = "a server function behind a form takes one argument per field (`ActionForm` posts \
              them by name)"
)]

use crate::error::AppError;
use leptos::prelude::*;
#[cfg(feature = "ssr")]
use {super::console::optional_number, super::engine, crate::i18n::locale, crate::i18n::tr};

/// Creates a season from the console's form and opens its period console. `periods` (one per
/// line or comma-separated) or `from` and `to`; the rule's parameter comes from the field of its
/// kind: `k` for `best`, `weights` for `weighted`, `points` for `placement`.
#[server(endpoint = "admin_create_season")]
pub async fn create_season(
    slug: String,
    title: String,
    source: String,
    #[server(default)] periods: String,
    #[server(default)] from: String,
    #[server(default)] to: String,
    rule: String,
    #[server(default)] k: String,
    #[server(default)] weights: String,
    #[server(default)] points: String,
    tie_policy: String,
    #[server(default)] prizes: String,
    #[server(default)] carry_from: String,
    #[server(default)] carry_share: String,
    #[server(default)] carry_floor: String,
) -> Result<(), AppError> {
    use domain::season::SeasonRule;
    let actor = super::admin::admin_actor().await?;
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let numbers = |field: &str, text: &str| -> Result<Vec<i64>, AppError> {
        words(text).iter().map(|n| optional_number(field, n).map(Option::unwrap_or_default)).collect()
    };
    let rule = match rule.as_str() {
        "best" => SeasonRule::Best {
            k: optional_number("k", &k)?.and_then(|k| u32::try_from(k).ok()).ok_or_else(|| {
                AppError::Field { field: "k".into(), message: tr!(locale(), "season-give-k") }
            })?,
        },
        "weighted" => SeasonRule::Weighted { weights: numbers("weights", &weights)? },
        "placement" => SeasonRule::Placement { points: numbers("points", &points)? },
        _ => SeasonRule::Sum {},
    };
    let text = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
    let listed = words(&periods);
    let draft = domain::board::SeasonDraft {
        slug: slug.trim().to_owned(),
        title,
        source: source.trim().to_owned(),
        periods: (!listed.is_empty()).then_some(listed),
        from: text(&from),
        to: text(&to),
        rule,
        tie_policy,
        prizes: domain::board::parse_prize_lines(&prizes)?,
        carry_over: match text(&carry_from) {
            Some(from) => Some(domain::board::CarryOverDraft {
                from,
                share_percent: optional_number("carry_over", &carry_share)?.unwrap_or(0),
                floor: optional_number("carry_over", &carry_floor)?.unwrap_or(0),
            }),
            None => None,
        },
    };
    let engine = engine()?;
    let source = engine.reads().board(&draft.source()?).await.map_err(|_| AppError::Field {
        field: "source".into(),
        message: tr!(locale(), "season-no-source", source = draft.source.clone()),
    })?;
    let previous = match draft.carried_from()? {
        Some(slug) => Some(engine.reads().board(&slug).await.map_err(|_| AppError::Field {
            field: "carry_over".into(),
            message: tr!(locale(), "season-no-source", source = slug.to_string()),
        })?),
        None => None,
    };
    let season = draft.parse_carrying(&source, previous.as_ref())?;
    let created = engine.boards().create_season_board(&season, &actor).await?;
    tracing::info!(%actor, season = %created.summary.slug, "season created from the console");
    leptos_axum::redirect(&format!("/admin/b/{}/current", created.summary.slug));
    Ok(())
}

/// A season's periods with their states (the season's period console); None on other boards.
#[server(endpoint = "admin_season_weeks")]
pub async fn read_season_weeks(
    board: String,
    period: String,
) -> Result<Option<(String, Vec<domain::view::PeriodInfo>)>, AppError> {
    super::admin::admin_actor().await?;
    let scope = super::scope(board, Some(&period)).await?;
    let source = scope.board().season.as_ref().map(|s| s.source.to_string());
    Ok(engine()?.seasons().season_weeks(&scope).await?.zip(source).map(|(weeks, source)| (source, weeks)))
}
