//! A fault-injecting TCP proxy for tests: forwards loopback connections to one upstream and, on
//! command, delays every chunk or cuts every connection (toxiproxy is not in Debian's packages).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The proxy's switches, shared with its connection tasks.
struct Switches {
    latency_ms: AtomicU64,
    cut: AtomicBool,
    stalled: AtomicBool,
    /// Bumped by a cut: every connection open at that moment ends.
    epoch: watch::Sender<u64>,
}

/// A running proxy; it stops with the test's runtime.
pub struct FaultProxy {
    pub addr: SocketAddr,
    switches: Arc<Switches>,
}

impl FaultProxy {
    /// Listens on a free loopback port and forwards to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let switches = Arc::new(Switches {
            latency_ms: AtomicU64::new(0),
            cut: AtomicBool::new(false),
            stalled: AtomicBool::new(false),
            epoch: watch::channel(0).0,
        });
        let s = switches.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if s.cut.load(Ordering::SeqCst) {
                    // Refused at once (closed), not left hanging: the client sees the cut.
                    drop(client);
                    continue;
                }
                tokio::spawn(forward(client, upstream, s.clone()));
            }
        });
        Self { addr, switches }
    }

    /// Delays every chunk in either direction by `latency` (zero: none).
    pub fn set_latency(&self, latency: Duration) {
        self.switches.latency_ms.store(latency.as_millis() as u64, Ordering::SeqCst);
    }

    /// Holds every byte in either direction, connections open (a peer that stopped answering,
    /// not one that went away), until unstalled; then forwards what it held.
    pub fn set_stalled(&self, stalled: bool) {
        self.switches.stalled.store(stalled, Ordering::SeqCst);
    }

    /// Closes every open connection and, while `cut`, every new one as soon as it is accepted.
    pub fn set_cut(&self, cut: bool) {
        self.switches.cut.store(cut, Ordering::SeqCst);
        if cut {
            self.switches.epoch.send_modify(|e| *e += 1);
        }
    }
}

async fn forward(client: TcpStream, upstream: SocketAddr, s: Arc<Switches>) {
    let mut cut = s.epoch.subscribe();
    let Ok(server) = TcpStream::connect(upstream).await else { return };
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        _ = pipe(client_read, server_write, &s) => {}
        _ = pipe(server_read, client_write, &s) => {}
        _ = cut.changed() => {}
    }
}

async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    s: &Switches,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let latency = s.latency_ms.load(Ordering::SeqCst);
        if latency > 0 {
            tokio::time::sleep(Duration::from_millis(latency)).await;
        }
        while s.stalled.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
