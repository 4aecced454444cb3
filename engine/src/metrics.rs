//! Prometheus metrics (seed 003: count what happens to writes, not only that they happened).
//! One registry per engine, rendered by `GET /metrics`.

use domain::write::Outcome;
use domain::{BoardSlug, Operator};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WriteLabels {
    board: String,
    operator: String,
    result: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms … ~16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

pub struct Metrics {
    registry: Registry,
    writes: Family<WriteLabels, Counter>,
    requests: Family<RequestLabels, Histogram, fn() -> Histogram>,
    /// Projection calls that failed (the write still succeeded).
    pub redis_errors: Counter,
    /// Versions the projection was behind the ledger at the last reconciliation pass.
    pub projection_lag: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("laurel");
        let writes = Family::<WriteLabels, Counter>::default();
        registry.register("writes", "Writes by board, operator and result", writes.clone());
        let requests =
            Family::<RequestLabels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        registry.register("http_request_duration_seconds", "HTTP request latency", requests.clone());
        let redis_errors = Counter::default();
        registry.register(
            "redis_errors",
            "Projection calls that failed; the ledger kept the write",
            redis_errors.clone(),
        );
        let projection_lag = Gauge::default();
        registry.register(
            "projection_lag_versions",
            "Versions the projection was behind the ledger at the last reconciliation pass",
            projection_lag.clone(),
        );
        Self { registry, writes, requests, redis_errors, projection_lag }
    }
}

impl Metrics {
    pub fn count_write(&self, board: &BoardSlug, operator: Operator, outcome: Outcome) {
        let labels = WriteLabels {
            board: board.to_string(),
            operator: operator.as_str().to_owned(),
            result: outcome.as_str().to_owned(),
        };
        self.writes.get_or_create(&labels).inc();
    }

    /// Records one HTTP request; `route` is the matched route template, never the raw path.
    pub fn observe_request(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let labels = RequestLabels { method: method.to_owned(), route: route.to_owned(), status };
        self.requests.get_or_create(&labels).observe(seconds);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}
