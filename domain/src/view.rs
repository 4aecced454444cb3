//! Read models: what the REST API returns and what the server functions send to the UI. They are
//! plain data built by the engine; field names follow the HTTP API contract.

use crate::ids::{BoardSlug, MemberId};
use crate::kinds::{Cadence, Operator, TiePolicy};
use crate::lifecycle::State;
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A board as readers see it, with the period that is current at the time of the read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardSummary {
    pub slug: BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    pub time_zone: String,
    pub operator: Operator,
    pub tie_policy: TiePolicy,
    pub current_period: PeriodKey,
}

/// Members of a period found by the start of their display name ("Find me" by name), best
/// ranked first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameMatches {
    pub entries: Vec<Entry>,
    /// Other members may match past those read: a longer prefix narrows them.
    pub more: bool,
}

/// One ranked member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Entry {
    /// Follows the board's tie policy (`shared`: 1, 2, 2, 4).
    pub rank: u64,
    pub member: MemberId,
    pub points: i64,
    /// Untrusted text from the member's profile; absent when there is no profile.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub display_name: Option<String>,
    /// True when another member has the same rank (only possible under `shared`).
    #[serde(default)]
    pub tied: bool,
}

impl Entry {
    /// The name to show: the profile's display name, else the member id.
    pub fn name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(self.member.as_str())
    }
}

/// Where a ranking read came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReadSource {
    /// The live projection.
    #[default]
    Redis,
    /// The ledger's totals, because the projection could not be read: the same order and ranks,
    /// possibly a moment behind a write that is still committing.
    Ledger,
    /// An archived period's settled standings.
    Standings,
}

/// A run of entries of one period, read live (it may shift between reads while writes continue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankingPage {
    pub board: BoardSummary,
    pub period: PeriodKey,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub ends_at: Timestamp,
    /// The period's end in the board's zone, for display ("Mon 2026-12-07 00:00").
    pub ends_local: String,
    /// Number of members on the period's board.
    pub total: u64,
    /// Position (0-based) of the first entry.
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// True when entries exist after this page.
    pub has_more: bool,
    /// Where the page was read from.
    #[serde(default)]
    pub source: ReadSource,
    /// The period's state, read with the page (so a page never shows a state it did not read).
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::period_state))]
    pub state: crate::lifecycle::State,
    /// While the period is publicly frozen (public reads): when the standings shown were taken.
    /// Writes made since count, but are not shown until the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
}

/// One ledger entry behind a member's score ("why this score").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LedgerEntry {
    pub id: i64,
    /// `point` (incr), `total` (set), `submission` (best), or an admin's `correction` or
    /// `revocation`.
    pub kind: String,
    /// The event or submission id (absent for `set` writes).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub external_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub delta: Option<i64>,
    /// The total (set) or score (best) the entry carried.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub set_version: Option<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub occurred_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub recorded_at: Timestamp,
    /// The JSON the write carried; null when it carried none.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub metadata: Option<serde_json::Value>,
    /// Why an admin made this entry (corrections, revocations, accepted late writes).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// On a revocation: the event or submission id it cancels.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub revokes: Option<String>,
    /// This entry was revoked later and no longer counts.
    #[serde(default)]
    pub revoked: bool,
}

/// A period of a board, with its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodInfo {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::period_state))]
    pub state: State,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub ends_at: Timestamp,
}

/// A keyset page and the cursor that continues it (None: the last page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CursorPage {
    pub page: RankingPage,
    pub next_cursor: Option<String>,
}

/// A pinned copy of a period's ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotInfo {
    pub snapshot_id: String,
    pub total: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

/// A member's standing in a period and the ledger entries behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MemberView {
    pub board: BoardSummary,
    pub period: PeriodKey,
    pub member: MemberId,
    /// None when the member has no points in the period.
    pub standing: Option<Entry>,
    /// Where the standing was read from (None with no standing).
    #[serde(default)]
    pub standing_source: Option<ReadSource>,
    pub entries: Vec<LedgerEntry>,
    /// Pass as `before` to read older entries.
    pub older: Option<i64>,
    /// While the period is publicly frozen (the public's view): when the standing and entries
    /// shown were taken; entries recorded since are not listed until the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
}

/// A member of a period as the console sees it: the public view (with a rank only while the
/// member is ranked), the member's total in the ledger and whether it is hidden.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberAdminView {
    pub view: MemberView,
    /// Hidden in the period: out of every public view and of the standings; entries kept.
    pub hidden: bool,
    /// The member's points in the ledger, hidden or not; None when it has no total in the period.
    pub points: Option<i64>,
    /// The version of that total (it rises with every change, hiding and unhiding included).
    pub version: Option<i64>,
}

/// What hiding or unhiding a member did. The words are the API's `result` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityOutcome {
    /// The member was visible and is now hidden.
    Hidden,
    /// The member was hidden before; nothing changed.
    AlreadyHidden,
    /// The member was hidden and is visible again.
    Unhidden,
    /// The member was visible before; nothing changed.
    AlreadyVisible,
}

impl VisibilityOutcome {
    pub const ALL: &'static [VisibilityOutcome] = &[
        VisibilityOutcome::Hidden,
        VisibilityOutcome::AlreadyHidden,
        VisibilityOutcome::Unhidden,
        VisibilityOutcome::AlreadyVisible,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            VisibilityOutcome::Hidden => "hidden",
            VisibilityOutcome::AlreadyHidden => "already_hidden",
            VisibilityOutcome::Unhidden => "unhidden",
            VisibilityOutcome::AlreadyVisible => "already_visible",
        }
    }

    /// Whether the member is hidden afterwards.
    pub fn hidden(self) -> bool {
        matches!(self, VisibilityOutcome::Hidden | VisibilityOutcome::AlreadyHidden)
    }
}

/// The answer to a hide or an unhide of a member in a period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VisibilityChange {
    pub result: VisibilityOutcome,
    pub period: PeriodKey,
    pub member: MemberId,
    /// The version of the member's total afterwards (a repeat answers the current one).
    pub version: i64,
    /// False when the projection could not be updated yet (the reconciler levels it).
    pub projected: bool,
}

/// One row of the audit trail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditEntry {
    pub id: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
    pub actor: String,
    pub action: String,
    pub board: Option<String>,
    pub period: Option<String>,
    pub member: Option<String>,
    pub reason: Option<String>,
    /// The state before and after the change, as JSON.
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
}

/// A write kept for review because its period was no longer open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LateEntry {
    pub id: i64,
    pub period: PeriodKey,
    pub member: MemberId,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub external_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub delta: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub set_version: Option<i64>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub occurred_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub received_at: Timestamp,
    /// `pending`, `accepted` or `rejected`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decision_reason: Option<String>,
}

/// A period's settlement: what was decided, on which evidence, and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Settlement {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub rule_version: i64,
    /// The highest ledger entry id of the period the standings account for.
    pub watermark: i64,
    /// SHA-256 (hex) of `domain::settlement::canonical_text` of the standings.
    pub digest: String,
    /// The digest of the revision this one replaced (None for the first): the revisions form a
    /// hash chain.
    pub previous_digest: Option<String>,
    /// Why this revision was written (None for the first settlement).
    pub reason: Option<String>,
    pub members: u64,
    pub actor: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub settled_at: Timestamp,
    /// The position (0-based) of the first of `standings`; `members` tells how many there are.
    pub offset: u64,
    pub standings: Vec<crate::settlement::Standing>,
}

/// One settlement revision of a period, without its standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SettlementSummary {
    pub revision: i64,
    pub rule_version: i64,
    /// The highest ledger entry id of the period the standings account for.
    pub watermark: i64,
    pub digest: String,
    /// The digest of the revision this one replaced (None for the first).
    pub previous_digest: Option<String>,
    /// Why this revision was written (None for the first settlement).
    pub reason: Option<String>,
    /// The applied preview that wrote this revision (None for the first settlement).
    pub preview_id: Option<String>,
    pub members: u64,
    pub actor: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub settled_at: Timestamp,
}

/// A settlement revision as a contestant reads it: when, why, what changed, and the digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionNote {
    pub revision: i64,
    pub settled_at: Timestamp,
    pub digest: String,
    /// What the revision changed, in words ("1 entry revoked"); None for the first settlement.
    pub changes: Option<String>,
    pub reason: Option<String>,
    /// On a member's page: the member's standing in this revision (None: no standing).
    pub standing: Option<crate::settlement::Standing>,
}

/// A settlement's reward as the API and the console show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewardView {
    pub id: i64,
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub member: MemberId,
    pub rank: u64,
    pub prize: String,
    /// Sent as the `Idempotency-Key` header with every delivery of this reward.
    pub idempotency_key: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: u32,
    /// When a pending reward is next tried (or until when a deliverer holds it).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub next_attempt_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub delivered_at: Option<Timestamp>,
    /// A grant gives the prize; a revoke (from a later settlement revision) takes back the reward
    /// named by `compensates`.
    pub kind: RewardKind,
    /// For a revoke: the idempotency key of the grant it takes back.
    pub compensates: Option<String>,
    /// Every delivery attempt, oldest first.
    pub history: Vec<RewardAttempt>,
}

/// What a reward delivery does at the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RewardKind {
    Grant,
    Revoke,
}

impl RewardKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RewardKind::Grant => "grant",
            RewardKind::Revoke => "revoke",
        }
    }
}

/// One recorded delivery attempt of a reward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewardAttempt {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub attempted_at: Timestamp,
    /// The receiver's HTTP status, when it answered.
    pub http_status: Option<u16>,
    /// Why the attempt failed, when it did (never the webhook's URL).
    pub error: Option<String>,
}

/// One step of a member's points through a period (the member page's chart): the total after
/// an entry, replayed from the entries that counted at that moment, as the public sees them.
/// Steps are in the order the entries happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointStep {
    /// The entry's id in the ledger.
    pub entry: i64,
    /// `point`, `total`, `submission`, `correction` or `revocation`.
    pub kind: String,
    /// When it happened (a correction or revocation: when it was made).
    pub at: Timestamp,
    /// The member's points after it.
    pub points: i64,
    /// Revoked later (a revocation the public sees).
    pub revoked: bool,
}

/// How many points a member needs to reach a rank: to pass the member just above, or to reach
/// the lowest prized rank. Under `shared`, `points` equals the gap (equalling shares the rank);
/// under `first_reached`, one more (the member ahead reached it first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankTarget {
    pub rank: u64,
    pub points: i64,
    /// The prize that rank wins, when there is one.
    pub prize: Option<String>,
}

/// A member's rank and points in one period (None: no points there, or hidden).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodStanding {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub rank: Option<u64>,
    pub points: Option<i64>,
    /// Ranked members in the period.
    pub members: u64,
}

/// The member page's history: their points through the period, what the next ranks take, and
/// their standing in the board's last periods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberHistory {
    pub period: PeriodKey,
    /// The chart's time axis: the whole period (widened to the steps outside it, e.g. a
    /// correction after the end). Not the time of the read: the same entries make the same
    /// chart, so a public freeze's page stays the same until the reveal.
    pub from: Timestamp,
    pub until: Timestamp,
    pub tie_policy: TiePolicy,
    /// In the order they happened.
    pub steps: Vec<PointStep>,
    /// More entries than the chart reads: the steps are the first recorded ones.
    pub truncated: bool,
    /// The public standing the targets are computed from.
    pub standing: Option<Entry>,
    /// The next better rank (None: first, or no points).
    pub next_rank: Option<RankTarget>,
    /// The lowest prized rank, when the member is outside the prizes.
    pub prize: Option<RankTarget>,
    /// The board's last periods, newest first.
    pub periods: Vec<PeriodStanding>,
}

/// A range of points and how many members have a total in it (`from` ≤ points < `to`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsBin {
    pub from: i64,
    pub to: i64,
    pub members: u64,
}

/// The board page's distribution of points in a period, from the public ranking, with the prizes
/// beside the ranks they go to and, once settled, the prized standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub members: u64,
    /// Lowest points first; empty without members.
    pub bins: Vec<PointsBin>,
    /// "Me", where the public ranking has them.
    pub me: Option<Entry>,
    pub prizes: Vec<crate::board::Prize>,
    /// Settled or archived: the standings that won a prize (from the latest settlement).
    pub winners: Vec<PrizeWinner>,
}

/// A settled standing that won a prize, with the member's display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeWinner {
    pub standing: Entry,
    pub prize: String,
}

/// One of a board's periods with its leaders: the winners once settled, the leaders (public
/// view) while open or frozen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodResult {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub members: u64,
    /// Rank 1 (several when tied under `shared`); at most a few.
    pub leaders: Vec<Entry>,
}

/// OpenAPI schemas of the ids, words and rows the read models carry, for the server's
/// `/api/v1/openapi.json`. They are written here, beside the one derive per read model, and built
/// from the types' own tables (`ALL`, `MAX_LEN`) so that a new word shows up by itself.
#[cfg(feature = "openapi")]
pub use schema::period_state;

#[cfg(feature = "openapi")]
mod schema {
    use super::VisibilityOutcome;
    use crate::board::Prize;
    use crate::hot::{Aggregate, WriteMode};
    use crate::ids::{BoardSlug, EventId, MemberId};
    use crate::kinds::{Cadence, Operator, TiePolicy};
    use crate::lifecycle::State;
    use crate::period::PeriodKey;
    use crate::settlement::Standing;
    use crate::write::Outcome;
    use std::borrow::Cow;
    use utoipa::openapi::{KnownFormat, ObjectBuilder, Ref, RefOr, Schema, SchemaFormat, Type};
    use utoipa::{PartialSchema, ToSchema};

    type Schemas = Vec<(String, RefOr<Schema>)>;

    macro_rules! named_schema {
        ($ty:ty, $build:expr $(, children: $($child:ty),+)?) => {
            impl PartialSchema for $ty {
                fn schema() -> RefOr<Schema> {
                    $build.build().into()
                }
            }

            impl ToSchema for $ty {
                fn name() -> Cow<'static, str> {
                    Cow::Borrowed(stringify!($ty))
                }

                fn schemas(_schemas: &mut Schemas) {
                    $($(_schemas.push((<$child>::name().into_owned(), <$child>::schema()));)+)?
                }
            }
        };
    }

    fn string(description: &str) -> ObjectBuilder {
        ObjectBuilder::new().schema_type(Type::String).description(Some(description))
    }

    fn id(description: &str, max_len: usize, pattern: &str, example: &str) -> ObjectBuilder {
        string(description)
            .min_length(Some(1))
            .max_length(Some(max_len))
            .pattern(Some(pattern))
            .examples([example])
    }

    fn words<'a>(description: &str, words: impl IntoIterator<Item = &'a str>) -> ObjectBuilder {
        string(description).enum_values(Some(words))
    }

    fn integer(minimum: Option<i64>) -> ObjectBuilder {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(minimum)
    }

    fn reference<T: ToSchema>() -> Ref {
        Ref::from_schema_name(T::name())
    }

    /// `PeriodInfo::state`: one of the lifecycle's states.
    pub fn period_state() -> ObjectBuilder {
        words("The period's lifecycle state.", State::ALL.map(State::as_str))
    }

    named_schema!(BoardSlug, id("A board's slug.", BoardSlug::MAX_LEN, "^[a-z0-9-]+$", "weekly-study"));
    named_schema!(
        MemberId,
        id("The host platform's stable member id.", MemberId::MAX_LEN, "^[A-Za-z0-9_.:@-]+$", "u1001")
    );
    named_schema!(
        EventId,
        id("An event's or a submission's id, unique per board.", EventId::MAX_LEN, "^[!-~]+$", "order-42")
    );
    named_schema!(
        PeriodKey,
        string(
            "An ISO week (`2026-W34`), a day (`2026-08-20`) or a month (`2026-08`) in the board's time zone."
        )
        .pattern(Some(r"^\d{4}-(W\d{2}|\d{2}|\d{2}-\d{2})$"))
        .examples(["2026-W34"])
    );
    named_schema!(
        Cadence,
        words("How long one period of a board lasts.", Cadence::ALL.iter().map(|c| c.as_str()))
    );
    named_schema!(
        Operator,
        words("How a write changes a member's score.", Operator::ALL.iter().map(|o| o.as_str()))
    );
    named_schema!(
        TiePolicy,
        words("How equal points are ranked.", TiePolicy::ALL.iter().map(|t| t.as_str()))
    );
    named_schema!(
        Outcome,
        words(
            "What a write did; each operator answers some of these.",
            Outcome::ALL.iter().map(|o| o.as_str())
        )
    );
    named_schema!(
        WriteMode,
        words(
            "How a hit changes a member's score in the current bucket.",
            WriteMode::ALL.iter().map(|m| m.as_str())
        )
    );
    named_schema!(
        Aggregate,
        words("How the window's buckets are merged.", Aggregate::ALL.iter().map(|a| a.as_str()))
    );
    named_schema!(
        VisibilityOutcome,
        words(
            "What a hide or an unhide did (`already_…`: the member was so before; nothing changed).",
            VisibilityOutcome::ALL.iter().map(|o| o.as_str())
        )
    );
    named_schema!(
        Prize,
        ObjectBuilder::new()
            .description(Some("Ranks `from_rank..=to_rank` win `prize`."))
            .property("from_rank", integer(Some(1)).maximum(Some(i64::MAX)))
            .required("from_rank")
            .property("to_rank", integer(Some(1)).maximum(Some(i64::MAX)))
            .required("to_rank")
            .property(
                "prize",
                ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"\S")).max_length(Some(200)),
            )
            .required("prize")
    );
    named_schema!(
        Standing,
        ObjectBuilder::new()
            .description(Some("One line of the standings."))
            .property("rank", integer(Some(1)))
            .required("rank")
            .property("member", reference::<MemberId>())
            .required("member")
            .property("points", integer(None))
            .required("points")
            .property("prize", ObjectBuilder::new().schema_type(Type::String)),
        children: MemberId
    );

    #[cfg(test)]
    mod tests {
        use super::*;
        use utoipa::openapi::schema::Object;

        fn object<T: PartialSchema>() -> Object {
            match T::schema() {
                RefOr::T(Schema::Object(o)) => o,
                _ => panic!("not an object schema"),
            }
        }

        /// The hand-written row schemas name exactly the fields serde writes, and require those
        /// it always writes.
        fn assert_shape<T: PartialSchema + serde::Serialize>(full: T, minimal: T) {
            let schema = object::<T>();
            let keys = |v: &T| -> Vec<String> {
                serde_json::to_value(v).unwrap().as_object().unwrap().keys().cloned().collect()
            };
            let mut properties: Vec<String> = schema.properties.keys().cloned().collect();
            properties.sort();
            let mut written = keys(&full);
            written.sort();
            assert_eq!(written, properties);
            let mut required = schema.required.clone();
            required.sort();
            let mut always = keys(&minimal);
            always.sort();
            assert_eq!(always, required);
        }

        #[test]
        fn row_schemas_match_their_serialized_fields() {
            let prize = Prize { from_rank: 1, to_rank: 3, prize: "a cup".into() };
            assert_shape(prize.clone(), prize);
            let member = MemberId::parse("u1").unwrap();
            let standing =
                |prize: Option<String>| Standing { rank: 1, member: member.clone(), points: 5, prize };
            assert_shape(standing(Some("a cup".into())), standing(None));
        }

        #[test]
        fn word_schemas_list_every_word() {
            let listed = |o: Object| o.enum_values.unwrap().len();
            assert_eq!(listed(object::<Cadence>()), Cadence::ALL.len());
            assert_eq!(listed(object::<Operator>()), Operator::ALL.len());
            assert_eq!(listed(object::<TiePolicy>()), TiePolicy::ALL.len());
            assert_eq!(listed(object::<Outcome>()), Outcome::ALL.len());
            assert_eq!(listed(object::<VisibilityOutcome>()), VisibilityOutcome::ALL.len());
            for outcome in VisibilityOutcome::ALL {
                assert_eq!(serde_json::to_value(outcome).unwrap(), outcome.as_str());
            }
        }
    }
}

/// What the console's front page asks an admin to look at first ("needs attention"). Each list
/// is empty when all is well; each item names the period (or key) whose page fixes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Attention {
    /// Periods past their end plus the board's grace and not settled yet, longest overdue first.
    pub due: Vec<DuePeriod>,
    /// Periods with late writes waiting for a decision, and how many.
    pub late: Vec<PeriodCount>,
    /// Periods whose rewards failed (for good) or are being retried after a failed attempt.
    pub rewards: Vec<RewardTrouble>,
    /// Open or frozen periods whose Redis ranking is not level with the ledger.
    pub lagging: Vec<ProjectionLag>,
    /// Live ingest keys with little of their burst left right now.
    pub keys: Vec<KeyNearLimit>,
    /// Why the projection's part (lag, keys) could not be checked: Redis could not be read.
    pub redis_unreadable: Option<String>,
    /// Redis has reached its `maxmemory`, in figures: rankings fall behind the ledger until
    /// there is room (writes are still recorded).
    #[serde(default)]
    pub redis_full: Option<String>,
}

impl Attention {
    /// Whether nothing needs attention.
    pub fn is_clear(&self) -> bool {
        self.due.is_empty()
            && self.late.is_empty()
            && self.rewards.is_empty()
            && self.lagging.is_empty()
            && self.keys.is_empty()
            && self.redis_unreadable.is_none()
            && self.redis_full.is_none()
    }
}

/// A period the scheduler should have frozen, or an admin should settle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuePeriod {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// `open` (the scheduler has not frozen it yet) or `frozen` (waiting to be settled).
    pub state: State,
    /// The period's end plus the board's freeze grace.
    pub due_at: Timestamp,
}

/// A count of something in one period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodCount {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub count: u64,
}

/// A period's rewards that did not reach the webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewardTrouble {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// Rewards whose last attempt failed: no more tries.
    pub failed: u64,
    /// Pending rewards with at least one failed attempt: tried again after a backoff.
    pub retrying: u64,
}

/// A live period's projection compared with the ledger: the sum of the versions of its totals
/// in each store (equal when every member's projected version is the ledger's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectionLag {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub ledger: i64,
    pub projected: i64,
}

/// An ingest key whose shared allowance is nearly used up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyNearLimit {
    pub id: i64,
    pub prefix: String,
    pub rate_per_second: u32,
    pub burst: u32,
    /// Requests the key could still make at once, across every instance.
    pub burst_left: u32,
}

/// A board on the console's front page: its entries per hour over the last day and its current
/// period's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardActivity {
    pub board: BoardSummary,
    /// The current period's `lifecycle::State` word.
    pub state: State,
    /// The start of the first hour counted (a whole UTC hour).
    pub since: Timestamp,
    /// Entries recorded in each hour from `since`, oldest first; the last is the current hour,
    /// still running.
    pub per_hour: Vec<u64>,
}
