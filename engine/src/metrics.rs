//! Prometheus metrics (docs/DESIGN.md, "Count and explain": count what happens to writes, not
//! only that they happened; "Bucket TTLs": watch hot buckets for a missing TTL).
//! One registry per engine, rendered by `GET /metrics`: writes by board, operator and result,
//! request latency by route, Redis errors, projection lag, rankings read from the ledger, hot-board
//! hits by result, bucket sizes and keys without a TTL, requests refused 429 by key prefix
//! (`laurel_rate_limited_total{key_prefix}`), unreadable rows by job
//! (`laurel_invalid_rows_total{job}`) and background passes.

use crate::ledger::InvalidRow;
use crate::redis::hot::Tended;
use domain::hot::HitResult;
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
struct HitLabels {
    board: String,
    result: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BoardLabels {
    board: String,
}

/// An ingest key by its shown prefix (`laurel_ik_` and six characters), never the secret.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KeyLabels {
    key_prefix: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    job: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PassLabels {
    job: String,
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
    /// Periods' rankings read from the ledger because Redis could not be read.
    pub reads_from_ledger: Counter,
    hot_hits: Family<HitLabels, Counter>,
    hot_bucket_members: Family<BoardLabels, Gauge>,
    hot_keys_without_ttl: Family<BoardLabels, Gauge>,
    hot_buckets_unlinked: Family<BoardLabels, Counter>,
    hot_snapshots: Family<BoardLabels, Counter>,
    rate_limited: Family<KeyLabels, Counter>,
    invalid_rows: Family<JobLabels, Counter>,
    passes: Family<PassLabels, Counter>,
    /// The invalid rows already reported, by job: each is logged and counted once per process.
    reported: std::sync::Mutex<std::collections::HashSet<(&'static str, InvalidRow)>>,
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
        let reads_from_ledger = Counter::default();
        registry.register(
            "reads_from_ledger",
            "Rankings read from the ledger's totals because Redis could not be read (one per period per 2 s)",
            reads_from_ledger.clone(),
        );
        let hot_hits = Family::<HitLabels, Counter>::default();
        registry.register(
            "hot_hits",
            "Hot board hits by result: counted, deduplicated and capped (anti-abuse), rejected",
            hot_hits.clone(),
        );
        let hot_bucket_members = Family::<BoardLabels, Gauge>::default();
        registry.register(
            "hot_bucket_members",
            "Members in a hot board's current bucket at its last snapshot",
            hot_bucket_members.clone(),
        );
        let hot_keys_without_ttl = Family::<BoardLabels, Gauge>::default();
        registry.register(
            "hot_keys_without_ttl",
            "Buckets of a hot board's window found without a TTL at its last snapshot (should be 0)",
            hot_keys_without_ttl.clone(),
        );
        let hot_buckets_unlinked = Family::<BoardLabels, Counter>::default();
        registry.register(
            "hot_buckets_unlinked",
            "Hot board buckets removed with UNLINK after leaving the window",
            hot_buckets_unlinked.clone(),
        );
        let hot_snapshots = Family::<BoardLabels, Counter>::default();
        registry.register("hot_snapshots", "Hot lists published", hot_snapshots.clone());
        let rate_limited = Family::<KeyLabels, Counter>::default();
        registry.register(
            "rate_limited",
            "Requests refused 429 because their ingest key was over its rate limit in this process",
            rate_limited.clone(),
        );
        let invalid_rows = Family::<JobLabels, Counter>::default();
        registry.register(
            "invalid_rows",
            "Ledger rows a job or listing could not read and left out, each counted once per process \
             (laurel doctor lists them)",
            invalid_rows.clone(),
        );
        let passes = Family::<PassLabels, Counter>::default();
        registry.register(
            "job_passes",
            "Passes of the background jobs (scheduler, reconciler) by result: ok or failed",
            passes.clone(),
        );
        Self {
            passes,
            invalid_rows,
            reported: Default::default(),
            registry,
            writes,
            requests,
            redis_errors,
            projection_lag,
            reads_from_ledger,
            hot_hits,
            hot_bucket_members,
            hot_keys_without_ttl,
            hot_buckets_unlinked,
            hot_snapshots,
            rate_limited,
        }
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

    pub fn count_hit(&self, board: &BoardSlug, result: HitResult) {
        let labels = HitLabels { board: board.to_string(), result: result.as_str().to_owned() };
        self.hot_hits.get_or_create(&labels).inc();
    }

    /// One request refused because its key was over its rate limit; `key_prefix` is the key's
    /// shown prefix (as the key listing shows it), never the secret.
    pub fn count_rate_limited(&self, key_prefix: &str) {
        self.rate_limited.get_or_create(&KeyLabels { key_prefix: key_prefix.to_owned() }).inc();
    }

    /// What a hot snapshot found when it tended the board's buckets.
    pub fn observe_hot(&self, board: &BoardSlug, tended: Tended, published: bool) {
        let labels = BoardLabels { board: board.to_string() };
        self.hot_bucket_members.get_or_create(&labels).set(tended.current_bucket_members as i64);
        self.hot_keys_without_ttl.get_or_create(&labels).set(tended.buckets_without_ttl as i64);
        self.hot_buckets_unlinked.get_or_create(&labels).inc_by(tended.unlinked);
        if published {
            self.hot_snapshots.get_or_create(&labels).inc();
        }
    }

    /// Reports rows `job` left out because it could not read them: each is logged with its key
    /// and counted in `laurel_invalid_rows_total{job}` the first time this process meets it.
    pub fn invalid_rows(&self, job: &'static str, rows: &[InvalidRow]) {
        for row in rows {
            let first = self.reported.lock().expect("reported rows").insert((job, row.clone()));
            if first {
                tracing::warn!(job, table = row.table, key = %row.key, reason = %row.reason,
                    "ledger row left out: it cannot be read (laurel doctor lists it; --fix quarantines it)");
                self.invalid_rows.get_or_create(&JobLabels { job: job.to_owned() }).inc();
            }
        }
    }

    /// One pass of a background job ended (`ok`: it ran to its end; a row it skipped still counts
    /// as ok, the row is in `invalid_rows`).
    pub fn count_pass(&self, job: &'static str, ok: bool) {
        let result = if ok { "ok" } else { "failed" };
        self.passes.get_or_create(&PassLabels { job: job.to_owned(), result: result.to_owned() }).inc();
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
