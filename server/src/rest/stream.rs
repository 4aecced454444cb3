//! `GET …/periods/{period}/stream`: a period's live top N and state as Server-Sent Events
//! (`engine::live`). Each event is framed once by the engine and shared by every stream; this
//! module adds the response headers and a comment every [`KEEP_ALIVE`] while nothing happens.
//! The compression layer leaves `text/event-stream` alone (`http::app`) and the answer says
//! `X-Accel-Buffering: no`, so nothing holds an event back.
//!
//! The limit, board and period are checked like the top read's by `Live::subscribe`: a
//! 4xx before any stream. The first events are the state and the full top N, then whatever
//! differs. `?segment=dim:value` streams that segment value's top N instead (the same events and
//! JSON): an undeclared dimension is 422 `invalid` and a publicly frozen period 409
//! `segment_frozen` before any stream; a public freeze that begins while it is open ends it
//! (`engine::live`). A client address holds at most 64 streams and an instance 20 000, a
//! segment's counted as any other (`slots.rs`: 429 `too_many_streams`, 503 `streams_full`; a
//! period's feed also follows at most `MAX_FEED_SEGMENT_READS` segment rankings, past it 503).
//! Graceful shutdown ends the streams first (`Live::close`). The board page's live table
//! reads these (`app/src/components/live.rs`).

use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{PeriodParams, scope};
use super::slots::StreamSlot;
use crate::state::AppState;
use app::api::session::ClientAddr;
use axum::body::{Body, Bytes};
use axum::extract::{Extension, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use domain::ErrorCode;
use engine::live::LiveSubscription;
use serde::Deserialize;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// A comment line this often keeps proxies and browsers from closing a quiet stream.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// `Retry-After` (seconds) of a feed that follows as many segment rankings as it may (the slots'
/// own wait).
const RETRY_FULL_FEED: u64 = 30;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// How many entries each `ranking` event holds; default 10.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
    /// Stream one segment value's top instead of the board's: `dimension:value`
    /// (`province:zj`), a dimension the board declares. A publicly frozen period's segments are
    /// 409 `segment_frozen`; a public freeze that begins while the stream is open ends it.
    segment: Option<String>,
}

/// The events, first the period's state and its full top N, then each change (see docs/API.md).
/// `Last-Event-ID` is not needed: events are full snapshots, so a reconnect starts again with
/// the current ones.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/stream",
    tag = "reads",
    summary = "A live stream of the top of the ranking and of the period's state (Server-Sent Events)",
    params(PeriodParams, StreamQuery),
    responses(
        (status = 200, description = "An endless `text/event-stream`. Events: `state` (data: a LiveState), \
            then `ranking` (data: a LiveRanking, the whole top `limit` as the top read answers it), then \
            either whenever it changes — at most one per 250 ms; ids increase; a comment every 15 s.",
            content_type = "text/event-stream", body = String),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
        (status = 429, description = "too_many_streams: this client address holds as many live streams as it may (`Retry-After`)", body = ErrorBody),
        (status = 503, description = "streams_full: this server holds as many live streams as it can, or this period's as many segment rankings (`Retry-After`)", body = ErrorBody),
    )
)]
pub async fn stream(
    State(s): State<AppState>,
    client: Option<Extension<ClientAddr>>,
    ApiPath(PeriodParams { board, period }): ApiPath<PeriodParams>,
    ApiQuery(q): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let slot = s.streams.take(client.map(|Extension(ClientAddr(ip))| ip))?;
    let scope = scope(&s, board, &period).await?.in_segment(q.segment.as_deref())?;
    let subscription = s.engine.live().subscribe(&scope, q.limit.unwrap_or(10)).await.map_err(|e| {
        let e = ApiError::from(e);
        // A feed with as many segment rankings as it follows: as full as the slots say it.
        if e.code == ErrorCode::StreamsFull { e.retry_after(RETRY_FULL_FEED) } else { e }
    })?;
    let body = Body::from_stream(Events::new(subscription, slot));
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::CACHE_CONTROL, "no-cache"),
        // Reverse proxies that buffer answers (nginx) pass this one through as it comes.
        (header::HeaderName::from_static("x-accel-buffering"), "no"),
    ];
    Ok((headers, body).into_response())
}

/// The frames of a subscription, with a keep-alive comment when it is quiet.
struct Events {
    subscription: LiveSubscription,
    quiet: Pin<Box<tokio::time::Sleep>>,
    /// Held while the stream is open.
    _slot: StreamSlot,
}

impl Events {
    fn new(subscription: LiveSubscription, slot: StreamSlot) -> Self {
        Self { subscription, quiet: Box::pin(tokio::time::sleep(KEEP_ALIVE)), _slot: slot }
    }

    fn rearm(&mut self) {
        self.quiet.as_mut().reset(tokio::time::Instant::now() + KEEP_ALIVE);
    }
}

impl futures_core::Stream for Events {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.subscription.poll_next(cx) {
            Poll::Ready(Some(event)) => {
                this.rearm();
                return Poll::Ready(Some(Ok(event.frame())));
            }
            // Dropped (too slow) or shutting down: the browser reconnects.
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        if this.quiet.as_mut().poll(cx).is_ready() {
            this.rearm();
            return Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n"))));
        }
        Poll::Pending
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
