//! Who sent a request: the connection's peer, or — when the peer is a proxy the operator trusts
//! (`--trusted-proxies`) — the client that proxy names in `X-Forwarded-For`. Never trusted by
//! default: without the setting, a forwarded header is ignored, since any client can send one.
//!
//! `listen::serve` puts each connection's peer address in its requests; `http::observe_and_guard`
//! turns it into `app::api::session::ClientAddr`: the peer, or, when the peer is one of
//! `--trusted-proxies`, the nearest untrusted address of `X-Forwarded-For`. The anonymous
//! allowance counts per client network: an IPv4 address or an IPv6 /64.

use app::api::session::ClientAddr;
use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::IpAddr;

/// The peer address of a connection, put in each of its requests' extensions by
/// [`crate::listen::serve`].
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub IpAddr);

/// The proxies whose `X-Forwarded-For` is believed: addresses or networks (`10.0.0.0/8`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// A comma-separated list of addresses and networks.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in s.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let net = match item.parse::<IpNet>() {
                Ok(net) => net,
                Err(_) => IpNet::from(
                    item.parse::<IpAddr>().map_err(|_| format!("{item:?} is not an address or a network"))?,
                ),
            };
            nets.push(net);
        }
        Ok(Self(nets))
    }

    /// No proxy is trusted (the setting is absent).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client of a request from `peer`: the peer itself, unless it is trusted; then the
    /// nearest address in `X-Forwarded-For` (read from the right, the end the proxies append to)
    /// that is not a trusted proxy. A malformed entry stops the walk at the last good address.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> ClientAddr {
        let mut client = peer;
        if self.trusts(peer) {
            let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
            let hops: Vec<&str> = forwarded.flat_map(|v| v.split(',')).map(str::trim).collect();
            for hop in hops.into_iter().rev() {
                let Ok(ip) = hop.parse::<IpAddr>() else { break };
                client = ip;
                if !self.trusts(ip) {
                    break;
                }
            }
        }
        ClientAddr(client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn forwarded(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_str(value).unwrap());
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_forwarded_address_counts_only_from_a_trusted_proxy() {
        let none = TrustedProxies::default();
        let spoofed = forwarded("203.0.113.9");
        assert_eq!(none.client(ip("198.51.100.4"), &spoofed), ClientAddr(ip("198.51.100.4")));

        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.0.2.1").unwrap();
        // A client that is not a proxy cannot choose its address.
        assert_eq!(proxies.client(ip("198.51.100.4"), &spoofed), ClientAddr(ip("198.51.100.4")));
        // Through the proxy: the client it names.
        assert_eq!(proxies.client(ip("10.1.2.3"), &spoofed), ClientAddr(ip("203.0.113.9")));
        // Through two proxies: the first untrusted address from the right; what the client
        // itself put in front is ignored.
        let chain = forwarded("1.2.3.4, 203.0.113.9, 192.0.2.1");
        assert_eq!(proxies.client(ip("10.1.2.3"), &chain), ClientAddr(ip("203.0.113.9")));
        // Nothing forwarded, or garbage: the proxy itself (all its clients share one throttle).
        assert_eq!(proxies.client(ip("10.1.2.3"), &HeaderMap::new()), ClientAddr(ip("10.1.2.3")));
        assert_eq!(proxies.client(ip("10.1.2.3"), &forwarded("not-an-ip")), ClientAddr(ip("10.1.2.3")));
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.example").is_err());
        assert_eq!(TrustedProxies::parse("").unwrap(), TrustedProxies::default());
        assert_eq!(proxies.client(ip("::1"), &spoofed), ClientAddr(ip("::1")));
    }
}
