//! The three write operators and profiles. Each write is parsed here (ids, bounds of the input,
//! `occurred_at`), then recorded by the engine. A single write that is refused answers 422; in a
//! batch, valid items are applied and invalid ones reported per item.

use super::auth::Ingest;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ErrorBody};
use super::params::{BoardMemberParams, BoardParams, ProfileParams, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::ErrorCode;
use domain::write::{Change, Outcome, Write};
use domain::{EventId, MemberId};
use engine::writes::{WriteResult, check_batch};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};

/// How far in the future `occurred_at` may be (clock skew between hosts).
const MAX_FUTURE_SKEW: jiff::SignedDuration = jiff::SignedDuration::from_secs(300);
const MAX_METADATA_BYTES: usize = 4096;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = Event)]
#[serde(deny_unknown_fields)]
pub struct EventIn {
    /// Unique per board: a repeat answers `duplicate`.
    #[schema(value_type = EventId)]
    event_id: String,
    #[schema(value_type = MemberId)]
    member: String,
    delta: i64,
    /// RFC 3339 with an offset, at most 5 minutes ahead; default: now.
    #[schema(format = DateTime)]
    occurred_at: Option<String>,
    /// Any JSON, at most 4 KiB.
    metadata: Option<Value>,
    /// The member's segment values on a board with segments (`{"province": "zj"}`): the first
    /// recorded write naming a dimension fixes the member's value for the period; another value
    /// later is `rejected` (`segment_conflict`). A dimension the board does not declare is
    /// `rejected`.
    segments: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = Total)]
#[serde(deny_unknown_fields)]
pub struct TotalIn {
    /// At least 1; a version not above the last applied one answers `stale`.
    #[schema(minimum = 1)]
    version: i64,
    total: i64,
    /// RFC 3339 with an offset, at most 5 minutes ahead; default: now.
    #[schema(format = DateTime)]
    occurred_at: Option<String>,
    /// The member's segment values on a board with segments (`{"province": "zj"}`): the first
    /// recorded write naming a dimension fixes the member's value for the period; another value
    /// later is `rejected` (`segment_conflict`). A dimension the board does not declare is
    /// `rejected`.
    segments: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = Submission)]
#[serde(deny_unknown_fields)]
pub struct SubmissionIn {
    /// Unique per board: a repeat answers `duplicate`.
    #[schema(value_type = EventId)]
    submission_id: String,
    #[schema(value_type = MemberId)]
    member: String,
    score: i64,
    /// RFC 3339 with an offset, at most 5 minutes ahead; default: now.
    #[schema(format = DateTime)]
    occurred_at: Option<String>,
    /// The member's segment values on a board with segments (`{"province": "zj"}`): the first
    /// recorded write naming a dimension fixes the member's value for the period; another value
    /// later is `rejected` (`segment_conflict`). A dimension the board does not declare is
    /// `rejected`.
    segments: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = NewProfile)]
#[serde(deny_unknown_fields)]
pub struct ProfileIn {
    /// 1-64 characters, not all blank (trimmed when stored); shown as text, never as HTML.
    #[schema(pattern = r"\S", max_length = 64)]
    display_name: String,
    /// An http(s) URL of at most 512 visible ASCII characters.
    #[schema(pattern = "^https?://[!-~]*$", max_length = 512)]
    avatar_url: Option<String>,
    /// The member's segment values (`{"province": "zj"}`, at most 16): a write on a board declaring
    /// one of these dimensions, for a member holding no value in it yet that period, fixes this
    /// value where the write names none.
    #[schema(schema_with = profile_segments)]
    segments: Option<std::collections::BTreeMap<String, String>>,
}

/// `segments` on a profile: at most 16 values, each named by a dimension (1-32 of `[a-z0-9_-]`)
/// and shaped like a member id, or null (`domain::segment::check_profile_values`).
fn profile_segments() -> ObjectBuilder {
    let string = |pattern| ObjectBuilder::new().schema_type(Type::String).pattern(Some(pattern));
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .additional_properties(Some(string("^[A-Za-z0-9_.:@-]{1,64}$")))
        .property_names(Some(string("^[a-z0-9_-]{1,32}$")))
        .max_properties(Some(domain::segment::MAX_PROFILE_VALUES))
}

fn occurred_at(raw: Option<&str>, now: jiff::Timestamp) -> Result<jiff::Timestamp, String> {
    let Some(raw) = raw else { return Ok(now) };
    let at: jiff::Timestamp =
        raw.parse().map_err(|_| format!("occurred_at {raw:?} is not an RFC 3339 time with an offset"))?;
    if at > now + MAX_FUTURE_SKEW {
        return Err(format!("occurred_at {raw} is in the future"));
    }
    Ok(at)
}

fn member(raw: String) -> Result<MemberId, String> {
    MemberId::parse(raw).map_err(|e| e.to_string())
}

fn parse_event(item: Value, now: jiff::Timestamp) -> Result<Write, String> {
    let e: EventIn = serde_json::from_value(item).map_err(|e| format!("invalid event: {e}"))?;
    let event_id = EventId::parse(e.event_id).map_err(|e| e.to_string())?;
    let metadata = match e.metadata {
        None | Some(Value::Null) => None,
        Some(m) => {
            let text = m.to_string();
            if text.len() > MAX_METADATA_BYTES {
                return Err(format!("metadata must be at most {MAX_METADATA_BYTES} bytes of JSON"));
            }
            Some(text)
        }
    };
    Ok(Write {
        member: member(e.member)?,
        change: Change::Point { event_id, delta: e.delta },
        occurred_at: occurred_at(e.occurred_at.as_deref(), now)?,
        metadata,
        segments: e.segments.unwrap_or_default(),
    })
}

/// What one write did: the answer of `/total` and `/submissions`, and of each item of `/events`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WriteAnswer {
    /// The event's id (`/events`).
    #[serde(skip_serializing_if = "Option::is_none")]
    event_id: Option<String>,
    /// The submission's id (`/submissions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    submission_id: Option<String>,
    /// The member (`/members/{member}/total`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    member: Option<String>,
    /// `/events`: applied, duplicate, late or rejected; `/total`: applied, stale, late or
    /// rejected; `/submissions`: improved, not_higher, duplicate, late or rejected.
    #[schema(value_type = String)]
    result: Outcome,
    /// Why the write was rejected or kept as late.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The period the write belongs to (absent when no period can hold it, or for a batch item
    /// that could not be parsed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    period: Option<domain::PeriodKey>,
    /// The member's points after the write.
    #[serde(skip_serializing_if = "Option::is_none")]
    points: Option<i64>,
    /// The member's total's version after the write.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<i64>,
    /// False when the projection could not be updated yet (the reconciler levels it).
    #[serde(skip_serializing_if = "Option::is_none")]
    projected: Option<bool>,
}

/// One answer per event, in the order sent.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct EventsAnswer {
    results: Vec<WriteAnswer>,
}

/// Which id a write answer names.
enum Named {
    Event(Option<String>),
    Submission(String),
    Member(String),
}

impl WriteAnswer {
    fn named(named: Named, result: Outcome) -> Self {
        let (mut event_id, mut submission_id, mut member) = (None, None, None);
        match named {
            Named::Event(id) => event_id = id,
            Named::Submission(id) => submission_id = Some(id),
            Named::Member(m) => member = Some(m),
        }
        WriteAnswer {
            event_id,
            submission_id,
            member,
            result,
            reason: None,
            period: None,
            points: None,
            version: None,
            projected: None,
        }
    }

    /// The answer for a write the engine recorded (or refused).
    fn of(named: Named, r: &WriteResult) -> Self {
        let rec = &r.recorded;
        WriteAnswer {
            reason: rec.reason.clone(),
            period: rec.period,
            points: rec.points,
            version: rec.version,
            projected: rec.total.is_some().then_some(r.projected),
            ..Self::named(named, rec.outcome)
        }
    }

    /// The answer for a batch item that could not be parsed.
    fn refused(named: Named, reason: String) -> Self {
        WriteAnswer { reason: Some(reason), ..Self::named(named, Outcome::Rejected) }
    }

    /// A single write refused by a rule is an error, with the same reason a batch item would get.
    fn single(self) -> Result<Self, ApiError> {
        if self.result == Outcome::Rejected {
            let reason = self.reason.unwrap_or_else(|| "rejected".into());
            return Err(ApiError::new(ErrorCode::Rejected, reason));
        }
        Ok(self)
    }
}

/// The board named in the path, once the caller is known to be allowed to write to it.
async fn writable_board(state: &AppState, caller: &Ingest, board: String) -> Result<domain::Board, ApiError> {
    let board = state.engine.reads().board(&slug(board)?).await?;
    caller.may_write(&board.slug)?;
    Ok(board)
}

/// `POST /api/v1/boards/{board}/events` — one event or `{"events": [...]}`.
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/events",
    tag = "writes",
    summary = "Record point events (operator incr)",
    description = "One event or a batch; in a batch, valid items are applied and invalid ones answered \
        `rejected` with a reason.",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(BoardParams),
    request_body = EventsIn,
    responses(
        (status = 200, description = "One result per event: applied, duplicate, late (kept for review) or \
            rejected", body = EventsAnswer),
        (status = 404, description = "not_found: no such board", body = ErrorBody),
        (status = 409, description = "wrong_operator: the board's operator has another endpoint", body = ErrorBody),
        (status = 413, description = "batch_too_large; body_too_large: the body is over 2 MiB", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body / rejected (a single event refused by a rule)",
            body = ErrorBody),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    caller: Ingest,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
    body: JsonBody,
) -> Result<Json<EventsAnswer>, ApiError> {
    let board = writable_board(&state, &caller, board).await?;
    let body: Value = body.parse()?;
    let (items, batch) = match body {
        Value::Object(mut o) if o.contains_key("events") => match o.remove("events") {
            Some(Value::Array(items)) if o.is_empty() => (items, true),
            Some(Value::Array(_)) => {
                let unknown: Vec<&String> = o.keys().collect();
                return Err(ApiError::new(
                    ErrorCode::InvalidBody,
                    format!("unknown field(s) {unknown:?} beside `events`"),
                ));
            }
            _ => return Err(ApiError::invalid("events must be an array")),
        },
        Value::Object(_) => (vec![body], false),
        _ => return Err(ApiError::invalid("the body must be an event object or {\"events\": [...]}")),
    };
    if items.is_empty() {
        return Err(ApiError::invalid("events must not be empty"));
    }
    check_batch(&board, domain::Operator::Incr, items.len())?;
    let now = jiff::Timestamp::now();
    // Parse every item; keep the valid ones for one ledger transaction, in order.
    let mut parsed: Vec<Result<Write, (Option<String>, String)>> = Vec::with_capacity(items.len());
    for item in items {
        let id = item.get("event_id").and_then(Value::as_str).map(str::to_owned);
        parsed.push(parse_event(item, now).map_err(|reason| (id, reason)));
    }
    let writes: Vec<Write> = parsed.iter().filter_map(|p| p.as_ref().ok().cloned()).collect();
    let mut results = state.engine.writes().record(&board, &writes).await?.into_iter();
    let answers: Vec<WriteAnswer> = parsed
        .into_iter()
        .map(|p| match p {
            Ok(w) => {
                let r = results.next().expect("one result per valid write");
                WriteAnswer::of(Named::Event(w.change.external_id().map(|id| id.to_string())), &r)
            }
            Err((id, reason)) => {
                state.engine.metrics().count_write(&board.slug, board.operator, Outcome::Rejected);
                WriteAnswer::refused(Named::Event(id), reason)
            }
        })
        .collect();
    if !batch {
        let answer = answers.into_iter().next().expect("one answer").single()?;
        return Ok(Json(EventsAnswer { results: vec![answer] }));
    }
    Ok(Json(EventsAnswer { results: answers }))
}

/// `PUT /api/v1/boards/{board}/members/{member}/total` — operator `set`.
#[utoipa::path(
    put,
    path = "/api/v1/boards/{board}/members/{member}/total",
    tag = "writes",
    summary = "Set a member's total (operator set)",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(BoardMemberParams),
    request_body = TotalIn,
    responses(
        (status = 200, description = "applied, stale or late", body = WriteAnswer),
        (status = 404, description = "not_found: no such board", body = ErrorBody),
        (status = 409, description = "wrong_operator: the board's operator has another endpoint", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body / rejected", body = ErrorBody),
    )
)]
pub async fn total(
    State(state): State<AppState>,
    caller: Ingest,
    ApiPath(BoardMemberParams { board, member: member_id }): ApiPath<BoardMemberParams>,
    body: JsonBody,
) -> Result<Json<WriteAnswer>, ApiError> {
    let board = writable_board(&state, &caller, board).await?;
    let body: TotalIn = body.parse()?;
    let now = jiff::Timestamp::now();
    let write = (|| {
        if body.version < 1 {
            return Err("version must be at least 1".to_owned());
        }
        Ok(Write {
            member: member(member_id.clone())?,
            change: Change::Total { version: body.version, total: body.total },
            occurred_at: occurred_at(body.occurred_at.as_deref(), now)?,
            metadata: None,
            segments: body.segments.clone().unwrap_or_default(),
        })
    })()
    .map_err(ApiError::invalid)?;
    let r = state.engine.writes().record(&board, &[write]).await?.remove(0);
    Ok(Json(WriteAnswer::of(Named::Member(member_id), &r).single()?))
}

/// `POST /api/v1/boards/{board}/submissions` — operator `best`.
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/submissions",
    tag = "writes",
    summary = "Record a submission (operator best)",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(BoardParams),
    request_body = SubmissionIn,
    responses(
        (status = 200, description = "improved, not_higher, duplicate or late", body = WriteAnswer),
        (status = 404, description = "not_found: no such board", body = ErrorBody),
        (status = 409, description = "wrong_operator: the board's operator has another endpoint", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body / rejected", body = ErrorBody),
    )
)]
pub async fn submission(
    State(state): State<AppState>,
    caller: Ingest,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
    body: JsonBody,
) -> Result<Json<WriteAnswer>, ApiError> {
    let board = writable_board(&state, &caller, board).await?;
    let body: SubmissionIn = body.parse()?;
    let now = jiff::Timestamp::now();
    let write = (|| {
        Ok::<_, String>(Write {
            member: member(body.member)?,
            change: Change::Submission {
                submission_id: EventId::parse(body.submission_id.clone()).map_err(|e| e.to_string())?,
                score: body.score,
            },
            occurred_at: occurred_at(body.occurred_at.as_deref(), now)?,
            metadata: None,
            segments: body.segments.clone().unwrap_or_default(),
        })
    })()
    .map_err(ApiError::invalid)?;
    let r = state.engine.writes().record(&board, &[write]).await?.remove(0);
    Ok(Json(WriteAnswer::of(Named::Submission(body.submission_id), &r).single()?))
}

/// `PUT /api/v1/members/{member}/profile` — any valid ingest key.
#[utoipa::path(
    put,
    path = "/api/v1/members/{member}/profile",
    tag = "writes",
    summary = "Set a member's profile",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(ProfileParams),
    request_body = ProfileIn,
    responses(
        (status = 200, description = "The stored profile", body = Profile),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn profile(
    State(state): State<AppState>,
    _caller: Ingest,
    ApiPath(ProfileParams { member: member_id }): ApiPath<ProfileParams>,
    body: JsonBody,
) -> Result<Json<Profile>, ApiError> {
    let body: ProfileIn = body.parse()?;
    let member = member(member_id).map_err(ApiError::invalid)?;
    // Counted as sent (the document's maxLength), then trimmed.
    let name = body.display_name.trim();
    if name.is_empty() || body.display_name.chars().count() > 64 {
        return Err(ApiError::invalid("display_name must be 1-64 characters"));
    }
    if let Some(url) = &body.avatar_url
        && (!(url.starts_with("https://") || url.starts_with("http://"))
            || url.len() > 512
            || !url.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(ApiError::invalid(
            "avatar_url must be an http(s) URL of at most 512 visible ASCII characters",
        ));
    }
    let segments = body.segments.unwrap_or_default();
    domain::segment::check_profile_values(&segments).map_err(ApiError::invalid)?;
    let now = jiff::Timestamp::now();
    state.engine.writes().put_profile(&member, name, body.avatar_url.as_deref(), &segments, now).await?;
    Ok(Json(Profile { member, display_name: name.to_owned(), avatar_url: body.avatar_url, segments }))
}

/// A member's profile as stored.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Profile {
    pub member: MemberId,
    pub display_name: String,
    pub avatar_url: Option<String>,
    /// The segment values it names; absent when none.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub segments: std::collections::BTreeMap<String, String>,
}

/// `POST .../events`: one event, or a bounded batch of them.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
#[expect(
    dead_code,
    reason = "the document's description of the body: `events` reads each item on its own, \
    so that one bad item is answered alone"
)]
pub enum EventsIn {
    One(EventIn),
    Batch(EventBatch),
}

/// A batch: 1 to 1000 events (more answer 413 `batch_too_large`), nothing beside them.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "described for the document, read item by item like `EventsIn`")]
pub struct EventBatch {
    #[schema(min_items = 1, max_items = 1000)]
    events: Vec<EventIn>,
}
