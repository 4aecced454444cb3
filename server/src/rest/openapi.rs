//! The OpenAPI document of the HTTP API v1, generated from the handlers' `#[utoipa::path]`
//! attributes as the route table (`rest::routes`) collects them, and the schemas of what they
//! read and answer; served at `/api/v1/openapi.json`. This module adds what no handler says:
//! the info, the tags, the bearer schemes and the errors every operation shares.
//! Every type derives its schema where it is defined: requests and answers beside their handlers
//! (`boards.rs`, `reads.rs`, …), read models in `domain::view` and the engine's answers (feature
//! `openapi`: only the server turns it on, so the wasm bundles never build utoipa). The errors
//! every operation shares (400 for its inputs, 401/403/429 for its callers, 413 and 422 for a
//! body, 503) come from one modifier, `SharedErrors`; an operation lists only the errors of its
//! own rules. Tests hold the document to the router (the table adds routes only with `routes!`;
//! the router serves exactly the documented methods), to docs/API.md's routes and to real answers
//! (exactly the documented fields) (`openapi_tests.rs`, `tests.rs`): a new route or field needs
//! its attribute or schema in the same change. `scripts/fuzz-api` runs schemathesis against it.

use utoipa::openapi::header::Header;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, ObjectBuilder, Ref, Response, ResponseBuilder, Type};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Laurel HTTP API",
        version = env!("CARGO_PKG_VERSION"),
        description = "Contest leaderboards. JSON everywhere; times are RFC 3339 with an offset; errors are \
            `{\"error\": \"<machine_code>\", \"detail\": \"<human sentence>\"}`. Reads are public; `{period}` \
            may be `current`."
    ),
    // The data of the stream's events (`stream::stream` answers them as text).
    components(schemas(domain::live::LiveRanking, domain::live::LiveState)),
    modifiers(&Security),
    tags(
        (name = "boards", description = "Boards: created by an admin, read by anyone."),
        (name = "writes", description = "Writes (ingest key or admin token): one endpoint per operator."),
        (name = "reads", description = "Reads (public) of a board period."),
        (name = "lifecycle", description = "Lifecycle (admin): transitions, settlement, late review, \
            revoke, corrections, hidden members, rebuild and the audit trail."),
        (name = "hot", description = "Hot boards: sliding-window rankings kept in Redis alone (no ledger, \
            no lifecycle); hits with dedup, caps and action weights, and a list published once per interval."),
        (name = "keys", description = "Ingest keys (admin): created with their boards and rate limits, \
            listed by prefix, revoked. The full key is answered once, at creation."),
        (name = "operations", description = "This document."),
    )
)]
pub struct ApiDoc;

/// The bearer schemes: ingest keys (scoped to boards) and admin tokens (`laurel admin token`).
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_default();
        let bearer = |description: &str| {
            SecurityScheme::Http(
                HttpBuilder::new().scheme(HttpAuthScheme::Bearer).description(Some(description)).build(),
            )
        };
        components.add_security_scheme(
            "ingest_key",
            bearer(
                "An API key created by an admin, scoped to boards: missing or invalid → 401, another board → \
                 403, over its rate limit (counted across every instance) → 429 with Retry-After.",
            ),
        );
        components.add_security_scheme(
            "admin_token",
            bearer("An admin token (`laurel admin token`); the admin UI uses a session cookie instead."),
        );
    }
}

/// The error answers every operation shares, from one place: what its callers, its inputs and
/// the stores can make it answer. An operation lists only the errors of its own rules (404, 409,
/// 422 …); a row it lists itself is kept.
struct SharedErrors;

impl SharedErrors {
    fn for_operation(operation: &Operation) -> Vec<(&'static str, Response)> {
        let schemes = serde_json::to_value(&operation.security).unwrap_or_default();
        let takes = |scheme: &str| schemes.as_array().into_iter().flatten().any(|s| s.get(scheme).is_some());
        let params = operation.parameters.as_deref().unwrap_or_default();
        let has = |place: ParameterIn| params.iter().any(|p| p.parameter_in == place);
        let mut shared = Vec::new();
        let mut bad_requests = Vec::new();
        if has(ParameterIn::Path) {
            bad_requests
                .push("invalid_path: a path segment that is not UTF-8, or an id that is not a number");
        }
        if has(ParameterIn::Query) {
            bad_requests.push("invalid_query: a query parameter of the wrong type");
        }
        if operation.request_body.is_some() {
            bad_requests.push("malformed_json: the body is not JSON");
            shared.push(("422", error("invalid_body: a field of the wrong type, missing or unknown")));
            shared.push(("413", error("body_too_large: the body is over 2 MiB")));
        }
        if !bad_requests.is_empty() {
            shared.push(("400", error(&bad_requests.join("; "))));
        }
        if takes("ingest_key") {
            shared.push(("401", error("unauthorized: no valid ingest key or admin token")));
            if params.iter().any(|p| p.name == "board") {
                shared.push(("403", error("forbidden: the key may not write to this board")));
            }
        } else if takes("admin_token") {
            shared.push(("401", error("unauthorized: no admin token")));
        }
        // Any caller without live credentials counts against its network's allowance.
        let mut retry = Header::new(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)));
        retry.description = Some("Whole seconds until a request would pass (at least 1)".to_owned());
        let mut limited = error(if takes("ingest_key") {
            "rate_limited: the key is over its rate limit, or a caller without credentials is over its \
             network's allowance (--public-rate-per-second); nothing was done"
        } else {
            "rate_limited: a caller without credentials is over its network's allowance \
             (--public-rate-per-second); nothing was done"
        });
        limited.headers.insert("Retry-After".to_owned(), retry);
        shared.push(("429", limited));
        shared.push(("503", error("unavailable: a store cannot be reached; retry later")));
        shared
    }
}

/// An error answer: the one error shape.
fn error(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build(),
        )
        .build()
}

impl Modify for SharedErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            for operation in [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch]
                .into_iter()
                .flatten()
            {
                for (status, response) in Self::for_operation(operation) {
                    operation.responses.responses.entry(status.to_owned()).or_insert(response.into());
                }
            }
        }
    }
}

/// The document of the routes `rest::routes` collected (their operations, the schemas they
/// name, and this document's info, tags and bearer schemes), with the errors they share, as JSON.
pub(super) fn document(mut openapi: utoipa::openapi::OpenApi) -> String {
    SharedErrors.modify(&mut openapi);
    openapi.to_json().expect("the OpenAPI document serializes")
}
