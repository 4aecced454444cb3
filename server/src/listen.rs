//! The accept loop: HTTP/1.1 connections served with the site, each request carrying its peer's
//! address ([`PeerAddr`]), and two bounds `axum::serve` does not set, so that a slow client cannot
//! hold a connection (and its task) open for ever: the request head must arrive within
//! [`HEADER_READ_TIMEOUT`], and a request body may pause at most [`BODY_READ_TIMEOUT`] between
//! chunks (10 s each). Answers are not bounded here: a live stream is an answer that never ends.
//! Shutdown is graceful: connections finish what they are answering.

use crate::http::Site;
use crate::peer::PeerAddr;
use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::time::Duration;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::add_extension::AddExtension;
use tower_http::timeout::{RequestBodyTimeout, TimeoutBody};

/// How long a client may take to send a request's head (the request line and its headers), on
/// a new connection and between requests of a kept-alive one.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest pause while a request body is read; a body stalled longer is answered 408.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `site` on `listener` until `shutdown` resolves, then lets the open connections finish
/// their requests (live streams end when shutdown begins: `Live::close`).
pub async fn serve(listener: TcpListener, site: Site, shutdown: impl Future<Output = ()>) {
    serve_with(listener, site, shutdown, HEADER_READ_TIMEOUT, BODY_READ_TIMEOUT).await;
}

/// [`serve`] with other bounds (the tests' are short).
async fn serve_with(
    listener: TcpListener,
    site: Site,
    shutdown: impl Future<Output = ()>,
    header_read_timeout: Duration,
    body_read_timeout: Duration,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // wait a moment rather than spin.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let with_peer = AddExtension::new(site.clone(), PeerAddr(peer.ip()))
            .map_request(|req: Request<TimeoutBody<Incoming>>| req.map(Body::new));
        let service = RequestBodyTimeout::new(with_peer, body_read_timeout);
        // No upgrades: nothing here speaks WebSocket (live boards are Server-Sent Events).
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that went away or sent garbage: nothing to do but drop the connection.
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_client_that_never_finishes_its_request_head_is_cut_off() {
        let ledger = engine::ledger::Ledger::connect("sqlite::memory:").await.unwrap();
        ledger.migrate().await.unwrap();
        let target = engine::redis::RedisTarget::parse("redis://127.0.0.1:9").unwrap();
        let projection = engine::redis::Projection::new(target, engine::redis::keys::KeySpace::new("listen"));
        let engine = engine::Engine::from_parts(ledger, projection);
        let options = leptos::prelude::LeptosOptions::builder().output_name("laurel").build();
        let site = crate::http::app(crate::state::AppState::new(options, engine));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let short = Duration::from_millis(300);
        tokio::spawn(serve_with(listener, site, std::future::pending(), short, short));

        // A whole request is answered.
        let mut quick = tokio::net::TcpStream::connect(addr).await.unwrap();
        quick.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
        let mut answer = [0u8; 12];
        quick.read_exact(&mut answer).await.unwrap();
        assert_eq!(&answer, b"HTTP/1.1 200");

        // Half a head, then nothing: the server closes the connection soon after the bound.
        let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET /healthz HTTP/1.1\r\nhost:").await.unwrap();
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut rest)).await;
        assert!(closed.is_ok(), "the slow connection was still open after 5 s");
    }
}
