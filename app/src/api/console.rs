//! The console's server functions: boards, the period console (transitions, late writes, the
//! settlement and its rewards; its leaders a page at a time), the member drill-down (revoke,
//! correct) and the audit trail.
//!
//! Every one is registered as `admin_<name>`: the server lets only a signed-in admin reach that
//! prefix, and each function asks [`admin_actor`](super::admin::admin_actor) again for the name
//! the audit trail records. Each calls one engine use case, like the public ones in [`super`].
//! Without JavaScript a form post lands here and the browser is sent back to the page it came
//! from; with it, pages refetch after each action.

#![allow(
    clippy::too_many_arguments,
    reason = "a server function takes one argument per form field (the names a plain HTML form \
              posts), and the `#[server]` macro does not pass an `allow` on to the functions it \
              generates"
)]

use crate::error::AppError;
use domain::board::Prize;
use domain::view::{
    AuditEntry, BoardSummary, LateEntry, MemberAdminView, PeriodInfo, RankingPage, RewardView, Settlement,
    SettlementSummary,
};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Standings shown on the period console (the API pages through all of them).
pub const STANDINGS_SHOWN: u64 = 100;
/// Members per page of the period console's Leaders.
pub const LEADERS_PAGE: u64 = 20;
/// The furthest position Leaders reads from, as the REST API's bound on `offset`
/// (`server/src/rest/params.rs`): past the end of any ranking (a sorted set holds at most
/// 2^32 - 1 members), and a number the window script still reads exactly. A page asked for
/// further is read from here: empty, like any page past the end.
#[cfg(feature = "ssr")]
const LEADERS_LAST_OFFSET: u64 = u32::MAX as u64;
/// Audit rows per page of the viewer.
pub const AUDIT_PAGE: u64 = 50;

/// Everything the period console shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeriodConsole {
    pub board: BoardSummary,
    pub prizes: Vec<Prize>,
    pub freeze_grace_seconds: i64,
    pub public_freeze_seconds: i64,
    pub info: PeriodInfo,
    /// When the scheduler freezes the period: its end plus the board's grace.
    pub freezes_at: jiff::Timestamp,
    /// The board's periods, newest first, for switching.
    pub periods: Vec<PeriodInfo>,
    /// When the public view was taken, while the period is publicly frozen (contest mode).
    pub public_frozen_at: Option<jiff::Timestamp>,
    /// What "Reveal next" would make public now, in words (while publicly frozen).
    pub next_reveal: Option<String>,
    pub late: Vec<LateEntry>,
    pub settlement: Option<Settlement>,
    /// Every settlement revision, oldest first (empty before settlement).
    pub revisions: Vec<SettlementSummary>,
    pub rewards: Vec<RewardView>,
    /// Whether the server that answered delivers rewards (it has `--rewards-webhook`).
    pub delivers_rewards: bool,
    /// Display names of the members the standings and rewards show, by member id (absent: no
    /// profile), so they read as Leaders does.
    pub names: std::collections::BTreeMap<String, String>,
    /// A bounded board's limit (the live ranking keeps this many members); None: unbounded.
    pub keep_top: Option<u64>,
    /// Days a settled period's Redis keys live after its settlement.
    pub ranking_ttl_days: i64,
    /// The board's segment dimensions: a correction may move a member between their values.
    pub segments: Vec<String>,
    /// Their prize tables (the board settings edit them).
    pub segment_prizes: domain::board::SegmentPrizes,
}

/// The latest long job of a period (a settlement, a rebuild) in the instance that answered, for
/// the console's progress bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobProgress {
    /// `settle`, `rebuild`, `export` or `import`.
    pub kind: String,
    /// Each phase so far with its latest numbers, the current one last.
    pub phases: Vec<PhaseProgress>,
    /// Still running (else it ended, `done` or failed).
    pub running: bool,
    pub done: bool,
    /// Milliseconds since it ended (none while it runs).
    pub ended_ms_ago: Option<u64>,
}

/// One phase of a job: `reading totals`, 40 000 of 120 000 `members` (its words in the reader's
/// language).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseProgress {
    pub phase: String,
    pub unit: String,
    pub processed: u64,
    /// None for a phase that cannot be counted up front.
    pub total: Option<u64>,
}

/// A page of the audit trail and the cursor of the next one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditPage {
    pub rows: Vec<AuditEntry>,
    pub next: Option<i64>,
}

#[cfg(feature = "ssr")]
use super::{board_slug, engine, member_id, scope};
#[cfg(feature = "ssr")]
use crate::i18n::{locale, tr};

/// An optional number typed into a form: blank is None; anything else must be an integer.
#[cfg(feature = "ssr")]
pub(super) fn optional_number(field: &str, text: &str) -> Result<Option<i64>, AppError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| AppError::Field {
        field: field.into(),
        message: tr!(locale(), "period-not-a-number", text = format!("{text:?}")),
    })
}

/// Segment dimensions typed into a form: names separated by commas or spaces (blank: none).
#[cfg(feature = "ssr")]
fn dimension_list(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace()).filter(|d| !d.is_empty()).map(str::to_owned).collect()
}

/// A reason typed into a form: required, as the audit trail needs one.
#[cfg(feature = "ssr")]
pub(super) fn reason(text: &str) -> Result<&str, AppError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::Field { field: "reason".into(), message: tr!(locale(), "period-give-reason") });
    }
    Ok(text)
}

/// Creates a board from the console's form and opens its period console. Every field is checked
/// by `domain::board::BoardDraft`, as for the REST API; a refusal names the field.
#[server(endpoint = "admin_create_board")]
pub async fn create_board(
    slug: String,
    title: String,
    cadence: String,
    time_zone: String,
    operator: String,
    tie_policy: String,
    max_points: String,
    min_points: String,
    tie_base: String,
    freeze_grace_seconds: String,
    prizes: String,
    // Optional so a form without them creates a board as before: descending, plain points.
    sort: Option<String>,
    unit: Option<String>,
    #[server(default)] keep_top: String,
    // Segment dimensions, comma- or space-separated (`province, class`), and their prize tables.
    #[server(default)] segments: String,
    #[server(default)] segment_prizes: String,
) -> Result<(), AppError> {
    let actor = super::admin::admin_actor().await?;
    let max_points = optional_number("max_points", &max_points)?.ok_or_else(|| AppError::Field {
        field: "max_points".into(),
        message: tr!(locale(), "period-give-max-points"),
    })?;
    let draft = domain::board::BoardDraft {
        slug: slug.trim().to_owned(),
        title,
        cadence,
        time_zone,
        operator,
        tie_policy,
        max_points,
        min_points: optional_number("min_points", &min_points)?,
        tie_base: optional_number("tie_base", &tie_base)?,
        freeze_grace_seconds: optional_number("freeze_grace_seconds", &freeze_grace_seconds)?,
        // Set later in the board's settings, beside the grace.
        public_freeze_seconds: None,
        prizes: domain::board::parse_prize_lines(&prizes)?,
        sort,
        unit,
        keep_top: optional_number("keep_top", &keep_top)?,
        // Set later in the board's settings, beside the grace.
        ranking_ttl_days: None,
        segments: Some(dimension_list(&segments)),
        segment_prizes: Some(domain::board::parse_segment_prize_lines(&segment_prizes)?),
    };
    let board = draft.parse()?;
    let created = engine()?.boards().create_board(&board).await?;
    tracing::info!(%actor, board = %created.summary.slug, "board created from the console");
    leptos_axum::redirect(&format!("/admin/b/{}/current", created.summary.slug));
    Ok(())
}

/// Changes a board's title, freeze grace, scheduled public freeze, prize tables (its own and, on
/// a board with segments, each dimension's: `segment_prizes`, one `dimension ranks: prize` per
/// line) and the life of settled periods' Redis keys (the rest is fixed at creation). Checked by
/// `domain::board::BoardSettings`; a refusal names the field.
#[server(endpoint = "admin_edit_board")]
pub async fn edit_board(
    board: String,
    title: String,
    freeze_grace_seconds: String,
    #[server(default)] public_freeze_seconds: String,
    prizes: String,
    #[server(default)] ranking_ttl_days: String,
    #[server(default)] segment_prizes: Option<String>,
) -> Result<String, AppError> {
    let actor = super::admin::admin_actor().await?;
    let mut settings = domain::board::BoardSettings::check(
        &title,
        optional_number("freeze_grace_seconds", &freeze_grace_seconds)?,
        optional_number("public_freeze_seconds", &public_freeze_seconds)?,
        domain::board::parse_prize_lines(&prizes)?,
        optional_number("ranking_ttl_days", &ranking_ttl_days)?,
    )?;
    // Only a board with segments has the field; without it the tables stay as they are.
    if let Some(text) = segment_prizes {
        let scope = super::scope(board.clone(), None).await?;
        let tables = domain::board::parse_segment_prize_lines(&text)?;
        settings = settings.with_segment_prizes(&scope.board().segments, tables)?;
    }
    let edited = engine()?.boards().edit_board(&board_slug(board)?, &settings, &actor).await?;
    Ok(tr!(locale(), "period-saved", title = edited.summary.title))
}

/// The period console's data.
#[server(endpoint = "admin_period")]
pub async fn read_period(board: String, period: String) -> Result<PeriodConsole, AppError> {
    super::admin::admin_actor().await?;
    let engine = engine()?;
    let scope = scope(board, Some(&period)).await?;
    let (slug, board, key) = (scope.slug().clone(), scope.board().clone(), scope.period());
    let info = engine.reads().period_info(&board, key).await?;
    let settlement = match engine.lifecycle().settlement_page(&scope, 0, STANDINGS_SHOWN).await {
        Ok(s) => Some(s),
        Err(engine::EngineError::NotFound { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let (revisions, rewards) = match settlement {
        Some(_) => (engine.lifecycle().settlements(&scope).await?, engine.rewards().of(&scope).await?),
        None => (Vec::new(), Vec::new()),
    };
    let shown: Vec<domain::MemberId> = settlement
        .iter()
        .flat_map(|s| s.standings.iter().map(|st| st.member.clone()))
        .chain(rewards.iter().map(|r| r.member.clone()))
        .collect();
    let names =
        engine.reads().display_names(&shown).await?.into_iter().map(|(m, n)| (m.to_string(), n)).collect();
    Ok(PeriodConsole {
        board: engine::reads::summary(&board, jiff::Timestamp::now()),
        prizes: board.prizes.clone(),
        freeze_grace_seconds: board.freeze_grace_seconds,
        public_freeze_seconds: board.public_freeze_seconds,
        freezes_at: info.ends_at + jiff::SignedDuration::from_secs(board.freeze_grace_seconds),
        info,
        periods: engine.reads().periods(&slug).await?,
        public_frozen_at: engine.reads().public_frozen_at(&slug, key).await?,
        next_reveal: engine.lifecycle().reveal_plan(&scope).await?.map(|plan| next_reveal_words(&plan)),
        late: engine.lifecycle().late_entries(&scope, None).await?,
        settlement,
        revisions,
        rewards,
        delivers_rewards: engine.rewards().delivers(),
        names,
        keep_top: board.keep_top,
        ranking_ttl_days: board.ranking_ttl_days,
        segments: board.segments.clone(),
        segment_prizes: board.segment_prizes.clone(),
    })
}

/// A page of the period's leaders, [`LEADERS_PAGE`] members from `offset` (a 0-based position):
/// live — during a public freeze too —, or from the standings once archived. Its own function, so
/// that paging through Leaders reads only them, not the whole console again. A page past the end
/// is empty, not an error.
#[server(endpoint = "admin_leaders")]
pub async fn read_leaders(board: String, period: String, offset: u64) -> Result<RankingPage, AppError> {
    super::admin::admin_actor().await?;
    let scope = scope(board, Some(&period)).await?;
    let offset = offset.min(LEADERS_LAST_OFFSET);
    Ok(engine()?.reads().ranking_page_as(engine::Viewer::Admin, &scope, offset, LEADERS_PAGE).await?)
}

/// What the next reveal step makes public, in the reader's language: "Next: Bob (bob), now #4 on
/// the frozen board; 3 members still to reveal, winners last."
#[cfg(feature = "ssr")]
fn next_reveal_words(plan: &engine::lifecycle::public::NextReveal) -> String {
    let l = locale();
    let Some(next) = &plan.next else {
        return tr!(l, "period-reveal-nothing-left");
    };
    let who = match &next.display_name {
        Some(name) => tr!(l, "period-member-named", name = name.clone(), member = next.member.to_string()),
        None => next.member.to_string(),
    };
    let place = match next.place {
        Some(place) => tr!(l, "period-reveal-place", place = place.to_string()),
        None => tr!(l, "period-reveal-unplaced"),
    };
    let left = match plan.pending {
        1 => tr!(l, "period-reveal-last"),
        n => tr!(l, "period-reveal-left", count = n.to_string()),
    };
    tr!(l, "period-reveal-next-words", who = who, place = place, left = left)
}

/// Freezes, reopens, settles, archives or rebuilds a period, as the signed-in admin.
#[server(endpoint = "admin_transition")]
pub async fn transition(
    board: String,
    period: String,
    step: String,
    reason: String,
) -> Result<String, AppError> {
    use domain::lifecycle::Transition;
    let l = locale();
    let actor = super::admin::admin_actor().await?;
    let engine = engine()?;
    let scope = scope(board, Some(&period)).await?;
    let reason = Some(reason.trim()).filter(|r| !r.is_empty());
    let transition = match step.as_str() {
        "rebuild" => {
            let report = engine.jobs().rebuild(&scope, &actor).await?;
            return Ok(tr!(
                l,
                "period-rebuilt",
                members = report.members.to_string(),
                ms = report.took_ms.to_string(),
            ));
        }
        "public-freeze" => {
            let done = engine.lifecycle().public_freeze(&scope, &actor, reason).await?;
            return Ok(match done.changed {
                true => tr!(l, "period-publicly-frozen"),
                false => tr!(l, "period-already-publicly-frozen"),
            });
        }
        "reveal-next" | "reveal-all" => {
            use engine::lifecycle::public::RevealMode;
            let mode = if step == "reveal-next" { RevealMode::Next } else { RevealMode::All };
            let done = engine.lifecycle().reveal(&scope, mode, &actor, reason).await?;
            let names: Vec<String> = done.revealed.iter().map(ToString::to_string).collect();
            return Ok(match (done.changed, done.frozen_at) {
                (false, _) => tr!(l, "period-not-publicly-frozen"),
                (true, None) => tr!(l, "period-revealed-all"),
                (true, Some(_)) => tr!(
                    l,
                    "period-revealed",
                    names = names.join(&tr!(l, "period-list-separator")),
                    pending = done.pending.to_string(),
                ),
            });
        }
        "freeze" => Transition::Freeze,
        "reopen" => Transition::Reopen,
        "settle" => Transition::Settle,
        "archive" => Transition::Archive,
        other => return Err(AppError::Invalid(tr!(l, "period-not-a-step", step = format!("{other:?}")))),
    };
    if transition == Transition::Reopen && reason.is_none() {
        return Err(AppError::Field { field: "reason".into(), message: tr!(l, "period-reopen-why") });
    }
    let info = engine.lifecycle().transition(&scope, transition, &actor, reason).await?;
    let state = crate::i18n::Say::state(l, info.state);
    Ok(tr!(l, "period-now", period = info.period.to_string(), state = state))
}

/// How far the running (or just ended) settlement or rebuild of a period is, as this instance
/// knows it: the registry of jobs is per process (`engine::progress`), so behind several
/// instances a poll that reaches another one answers None, and the console keeps a bar without
/// numbers.
#[server(endpoint = "admin_progress")]
pub async fn read_progress(board: String, period: String) -> Result<Option<JobProgress>, AppError> {
    super::admin::admin_actor().await?;
    let l = locale();
    let scope = scope(board, Some(&period)).await?;
    Ok(engine::progress::latest(scope.slug(), &scope.period()).map(|job| JobProgress {
        kind: job.kind.into(),
        phases: job
            .phases
            .iter()
            .map(|r| PhaseProgress {
                phase: phase_words(l, r.phase),
                unit: unit_words(l, r.unit),
                processed: r.processed,
                total: r.total,
            })
            .collect(),
        running: job.ended_ago.is_none(),
        done: job.report.done,
        ended_ms_ago: job.ended_ago.map(|ago| ago.as_millis() as u64),
    }))
}

/// A job's phase (`engine::progress`, in English) in the reader's language; one this list does
/// not know as it is.
#[cfg(feature = "ssr")]
fn phase_words(l: crate::i18n::Locale, phase: &str) -> String {
    match phase {
        "reading totals" => tr!(l, "period-phase-reading-totals"),
        "writing standings" => tr!(l, "period-phase-writing-standings"),
        "writing the member directory" => tr!(l, "period-phase-writing-member-directory"),
        "writing rewards" => tr!(l, "period-phase-writing-rewards"),
        "projecting" => tr!(l, "period-phase-projecting"),
        "checking the projection" => tr!(l, "period-phase-checking-projection"),
        "checking rows" => tr!(l, "period-phase-checking-rows"),
        "writing opening entries" => tr!(l, "period-phase-writing-opening-entries"),
        "writing totals" => tr!(l, "period-phase-writing-totals"),
        "inserting entries" => tr!(l, "period-phase-inserting-entries"),
        "inserting late writes" => tr!(l, "period-phase-inserting-late-writes"),
        "replaying totals" => tr!(l, "period-phase-replaying-totals"),
        "inserting totals" => tr!(l, "period-phase-inserting-totals"),
        "writing" => tr!(l, "period-phase-writing"),
        "reading the period" => tr!(l, "period-phase-reading-period"),
        other => other.to_owned(),
    }
}

/// What a phase counts (`members`, `rows`…) in the reader's language; another as it is.
#[cfg(feature = "ssr")]
fn unit_words(l: crate::i18n::Locale, unit: &str) -> String {
    match unit {
        "members" => tr!(l, "period-unit-members"),
        "rewards" => tr!(l, "period-unit-rewards"),
        "rows" => tr!(l, "period-unit-rows"),
        "entries" => tr!(l, "period-unit-entries"),
        "late writes" => tr!(l, "period-unit-late-writes"),
        "keys" => tr!(l, "period-unit-keys"),
        other => other.to_owned(),
    }
}

/// A member's standing, ledger total, hidden state and every ledger entry behind it, for the
/// drill-down (a hidden member included).
#[server(endpoint = "admin_member")]
pub async fn read_member(
    board: String,
    period: String,
    member: String,
    before: Option<i64>,
) -> Result<MemberAdminView, AppError> {
    super::admin::admin_actor().await?;
    Ok(engine()?
        .lifecycle()
        .member_view_admin(&scope(board, Some(&period)).await?, &member_id(member)?, before, 50)
        .await?)
}

/// A page of the audit trail, newest first. Filters are optional; `since` and `until` take a date
/// (`2026-11-30`, midnight UTC) or an RFC 3339 instant.
#[server(endpoint = "admin_audit")]
pub async fn read_audit(
    board: String,
    period: String,
    member: String,
    actor: String,
    action: String,
    since: String,
    until: String,
    before: Option<i64>,
) -> Result<AuditPage, AppError> {
    super::admin::admin_actor().await?;
    let some = |s: String| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let instant = |field: &str, s: String| -> Result<Option<jiff::Timestamp>, AppError> {
        let Some(s) = some(s) else { return Ok(None) };
        s.parse::<jiff::Timestamp>()
            .or_else(|_| {
                s.parse::<jiff::civil::Date>()
                    .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC))
                    .map(|z| z.timestamp())
            })
            .map(Some)
            .map_err(|_| AppError::Field {
                field: field.into(),
                message: tr!(locale(), "period-not-an-instant", text = format!("{s:?}")),
            })
    };
    let filter = engine::AuditFilter {
        since: instant("since", since)?,
        until: instant("until", until)?,
        board: some(board),
        period: some(period),
        member: some(member),
        actor: some(actor),
        action: some(action),
    };
    let rows = engine()?.lifecycle().audit(&filter, before, AUDIT_PAGE).await?;
    let next = (rows.len() as u64 == AUDIT_PAGE).then(|| rows.last().map(|r| r.id)).flatten();
    Ok(AuditPage { rows, next })
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::next_reveal_words;
    use crate::i18n::{Locale, tr};
    use engine::lifecycle::public::{NextReveal, RevealNext};

    fn plan(name: Option<&str>, place: Option<u64>, pending: u64) -> NextReveal {
        NextReveal {
            next: Some(RevealNext {
                member: domain::MemberId::parse("dee").unwrap(),
                display_name: name.map(Into::into),
                place,
            }),
            pending,
        }
    }

    #[test]
    fn the_next_reveal_is_said_as_the_console_always_said_it() {
        assert_eq!(
            next_reveal_words(&plan(None, Some(4), 2)),
            "Next: dee, now #4 on the frozen board; 2 members still to reveal, winners last."
        );
        assert_eq!(
            next_reveal_words(&plan(Some("Dee Dee"), None, 1)),
            "Next: Dee Dee (dee), not on the frozen board (points only after the freeze); the last member to reveal."
        );
        assert_eq!(
            next_reveal_words(&NextReveal { next: None, pending: 0 }),
            "Nothing is left to reveal: the next step ends the public freeze."
        );
    }

    #[test]
    fn step_outcomes_read_in_chinese() {
        let l = Locale::ZhCn;
        let left = tr!(l, "period-reveal-left", count = "3");
        let place = tr!(l, "period-reveal-place", place = "4");
        assert_eq!(
            tr!(l, "period-reveal-next-words", who = "dee", place = place, left = left),
            "下一位：dee，目前在封榜榜单上排第 4 名；还有 3 名成员待揭晓，获胜者最后揭晓。"
        );
        assert_eq!(
            tr!(
                l,
                "period-now",
                period = "2026-W49",
                state = crate::i18n::Say::state(l, domain::lifecycle::State::Frozen)
            ),
            "2026-W49 现在的状态是「已冻结」。"
        );
        assert_eq!(tr!(Locale::En, "period-list-separator"), ", ");
    }
}
