//! The OpenAPI document of the HTTP API v1, generated from the handlers' `#[utoipa::path]`
//! attributes and the schemas of what they read and answer; served at `/api/v1/openapi.json`.
//! Every type derives its schema where it is defined: requests and answers beside their handlers
//! (`boards.rs`, `reads.rs`, …), read models in `domain::view` and the engine's answers (feature
//! `openapi`). Tests hold the document to the router, to docs/API.md and to real answers.

use super::{boards, hot, keys, lifecycle, previews, reads, stream, writes};
use axum::http::header;
use axum::response::IntoResponse;
use std::sync::LazyLock;
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
    paths(
        boards::create,
        boards::list,
        boards::show,
        writes::events,
        writes::total,
        writes::submission,
        writes::profile,
        reads::periods,
        reads::top,
        reads::entries,
        reads::create_snapshot,
        reads::snapshot_entries,
        reads::member_rank,
        reads::around,
        reads::member_events,
        reads::count,
        reads::ranks,
        stream::stream,
        lifecycle::freeze,
        lifecycle::reopen,
        lifecycle::settle,
        lifecycle::archive,
        lifecycle::public_freeze,
        lifecycle::reveal,
        lifecycle::settlement,
        lifecycle::rewards,
        lifecycle::late,
        lifecycle::accept_late,
        lifecycle::reject_late,
        lifecycle::correct,
        lifecycle::revoke,
        lifecycle::hide,
        lifecycle::unhide,
        previews::create,
        previews::show,
        previews::apply,
        previews::cancel,
        previews::settlements,
        boards::rebuild,
        lifecycle::audit,
        hot::hits,
        hot::top,
        keys::list,
        keys::create,
        keys::revoke,
        serve,
    ),
    // The data of the stream's events (`stream::stream` answers them as text).
    components(schemas(domain::live::LiveRanking, domain::live::LiveState)),
    modifiers(&Security, &SharedErrors),
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

static DOCUMENT: LazyLock<String> =
    LazyLock::new(|| ApiDoc::openapi().to_json().expect("the OpenAPI document serializes"));

/// `GET /api/v1/openapi.json`: this document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", content_type = "application/json", body = Object))
)]
pub async fn serve() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT.as_str())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::BTreeSet;

    const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

    /// `(path, method)` of every route `rest::router()` declares, read from its source: each
    /// `.route("<path>", <method>(handler).<method>(handler))` call.
    pub(in crate::rest) fn router_routes() -> BTreeSet<(String, String)> {
        let source = include_str!("mod.rs");
        let mut routes = BTreeSet::new();
        for call in source.split(".route(").skip(1) {
            let path = call.split('"').nth(1).expect("a route's path is its first string");
            // The call ends where its parentheses balance.
            let mut depth = 1;
            let end = call
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(call.len(), |(i, _)| i);
            let call = &call[..end];
            // `get(handler)`, `.post(handler)`: a method word called, not part of a longer name.
            let called = |method: &&&str| {
                call.match_indices(&format!("{method}(")).any(|(at, _)| {
                    call[..at].chars().next_back().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
                })
            };
            let methods: Vec<&str> = METHODS.iter().filter(called).copied().collect();
            assert!(!methods.is_empty(), "no method found for route {path}");
            for method in methods {
                routes.insert((path.to_owned(), method.to_owned()));
            }
        }
        routes
    }

    fn document() -> Value {
        serde_json::from_str(&DOCUMENT).unwrap()
    }

    fn documented_routes(doc: &Value) -> BTreeSet<(String, String)> {
        let mut routes = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in METHODS {
                if item.get(method).is_some() {
                    routes.insert((path.clone(), method.to_owned()));
                }
            }
        }
        routes
    }

    #[test]
    fn the_openapi_document_lists_exactly_the_routes_the_router_serves() {
        let served = router_routes();
        assert!(served.len() > 25, "the route parser found only {served:?}");
        assert!(served.iter().all(|(path, _)| path.starts_with("/api/v1/")));
        let documented = documented_routes(&document());
        let missing: Vec<_> = served.difference(&documented).collect();
        let extra: Vec<_> = documented.difference(&served).collect();
        assert!(missing.is_empty() && extra.is_empty(), "undocumented: {missing:?}; not served: {extra:?}");
    }

    /// Routes of the contract (docs/API.md), with the router's parameter names, and the ingest
    /// key routes (issue 6).
    /// The route lines of docs/API.md: "- `METHOD /path` — …" (the convention it states).
    fn contract_routes() -> BTreeSet<(String, String)> {
        include_str!("../../../docs/API.md")
            .lines()
            .filter_map(|line| line.strip_prefix("- `"))
            .filter_map(|rest| rest.split_once('`').map(|(route, _)| route))
            .filter_map(|route| route.split_once(' '))
            .filter(|(method, path)| {
                method.chars().all(|c| c.is_ascii_uppercase()) && path.starts_with("/api/v1/")
            })
            .map(|(method, path)| (path.to_owned(), method.to_ascii_lowercase()))
            .collect()
    }

    #[test]
    fn docs_api_md_names_exactly_the_routes_of_the_openapi_document() {
        let contract = contract_routes();
        assert!(contract.len() > 25, "the route lines of docs/API.md: {contract:?}");
        let documented = documented_routes(&document());
        let missing: Vec<_> = documented.difference(&contract).collect();
        let extra: Vec<_> = contract.difference(&documented).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "not in docs/API.md: {missing:?}; only there: {extra:?}"
        );
    }

    #[test]
    fn the_openapi_document_holds_every_route_of_the_contract() {
        const P: &str = "/api/v1/boards/{board}/periods/{period}";
        let contract = [
            ("post", "/api/v1/boards".to_owned()),
            ("get", "/api/v1/boards".to_owned()),
            ("get", "/api/v1/boards/{board}".to_owned()),
            ("post", "/api/v1/boards/{board}/events".to_owned()),
            ("put", "/api/v1/boards/{board}/members/{member}/total".to_owned()),
            ("post", "/api/v1/boards/{board}/submissions".to_owned()),
            ("put", "/api/v1/members/{member}/profile".to_owned()),
            ("get", "/api/v1/boards/{board}/periods".to_owned()),
            ("get", format!("{P}/top")),
            ("get", format!("{P}/entries")),
            ("post", format!("{P}/snapshots")),
            ("get", format!("{P}/snapshots/{{snapshot}}/entries")),
            ("get", format!("{P}/members/{{member}}")),
            ("get", format!("{P}/members/{{member}}/around")),
            ("get", format!("{P}/members/{{member}}/events")),
            ("get", format!("{P}/count")),
            ("get", format!("{P}/ranks")),
            ("post", format!("{P}/freeze")),
            ("post", format!("{P}/reopen")),
            ("post", format!("{P}/settle")),
            ("post", format!("{P}/archive")),
            ("get", format!("{P}/settlement")),
            ("post", "/api/v1/boards/{board}/events/{event_id}/revoke".to_owned()),
            ("post", format!("{P}/corrections")),
            ("get", format!("{P}/late")),
            ("post", format!("{P}/late/{{id}}/accept")),
            ("post", format!("{P}/late/{{id}}/reject")),
            ("post", format!("{P}/rebuild")),
            ("get", "/api/v1/audit".to_owned()),
            ("get", "/api/v1/openapi.json".to_owned()),
            ("post", "/api/v1/boards/{board}/hits".to_owned()),
            ("get", "/api/v1/boards/{board}/hot/top".to_owned()),
            ("get", "/api/v1/keys".to_owned()),
            ("post", "/api/v1/keys".to_owned()),
            ("post", "/api/v1/keys/{id}/revoke".to_owned()),
        ];
        let doc = document();
        for (method, path) in contract {
            let operation = &doc["paths"][&path][method];
            assert!(operation.is_object(), "{method} {path} is not documented");
            // Each `{name}` of the path is a documented path parameter.
            let names: Vec<&str> =
                path.split('{').skip(1).map(|rest| rest.split('}').next().unwrap()).collect();
            let params = operation["parameters"].as_array().map(Vec::as_slice).unwrap_or_default();
            for name in names {
                assert!(
                    params.iter().any(|p| p["in"] == "path" && p["name"] == name),
                    "{method} {path}: no path parameter {name}"
                );
            }
        }
    }

    #[test]
    fn every_operation_names_its_errors_and_callers() {
        let doc = document();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["info"]["title"], "Laurel HTTP API");
        assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
        let schemes = &doc["components"]["securitySchemes"];
        for name in ["ingest_key", "admin_token"] {
            assert_eq!(schemes[name]["scheme"], "bearer", "{name}");
        }
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let responses = operation["responses"].as_object().unwrap();
                assert!(responses.contains_key("503"), "{method} {path}");
                assert!(!operation["tags"].as_array().unwrap().is_empty(), "{method} {path} has no tag");
                // Errors answer the one error shape.
                for (status, response) in responses {
                    if status.starts_with('4') || status.starts_with('5') {
                        assert_eq!(
                            response["content"]["application/json"]["schema"]["$ref"],
                            "#/components/schemas/ErrorBody",
                            "{method} {path} {status}"
                        );
                    }
                }
                // A route behind a key answers 401 and says which bearer it takes.
                if let Some(security) = operation.get("security") {
                    assert!(responses.contains_key("401"), "{method} {path}");
                    assert!(!security.as_array().unwrap().is_empty());
                }
            }
        }
        // Foreign types (jiff, serde_json) are described inline, never as components of their own.
        for foreign in ["String", "Timestamp", "Value"] {
            assert!(doc["components"]["schemas"].get(foreign).is_none(), "a {foreign} component");
        }
        // Every reference resolves.
        let text = DOCUMENT.as_str();
        for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = reference.split('"').next().unwrap();
            assert!(doc["components"]["schemas"][name].is_object(), "{name} is referenced but not defined");
        }
    }

    fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
        match schema["$ref"].as_str() {
            Some(reference) => {
                let name = reference.trim_start_matches("#/components/schemas/");
                resolve(doc, &doc["components"]["schemas"][name])
            }
            None => schema,
        }
    }

    /// The properties a schema names (through `allOf`), and those it requires.
    fn properties(doc: &Value, schema: &Value) -> (serde_json::Map<String, Value>, BTreeSet<String>) {
        let schema = resolve(doc, schema);
        let mut named = serde_json::Map::new();
        let mut required = BTreeSet::new();
        for part in schema["allOf"].as_array().into_iter().flatten() {
            let (n, r) = properties(doc, part);
            named.extend(n);
            required.extend(r);
        }
        if let Some(p) = schema["properties"].as_object() {
            named.extend(p.clone());
        }
        for name in schema["required"].as_array().into_iter().flatten() {
            required.insert(name.as_str().unwrap().to_owned());
        }
        (named, required)
    }

    /// Whether `value` has the fields `schema` names: no field it does not name, none it requires
    /// missing, at every depth the schema describes objects (nested rows, arrays, nullable refs).
    fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
        let schema = resolve(doc, schema);
        if let Some(variants) = schema["oneOf"].as_array() {
            if value.is_null() && variants.iter().any(|v| v["type"] == "null") {
                return Ok(());
            }
            let tries: Vec<_> = variants
                .iter()
                .filter(|v| v["type"] != "null")
                .map(|v| conforms(doc, v, value, at))
                .collect();
            return if tries.iter().any(Result::is_ok) { Ok(()) } else { tries.into_iter().next().unwrap() };
        }
        if let (Some(items), Value::Array(values)) = (schema.get("items"), value) {
            for (i, v) in values.iter().enumerate() {
                conforms(doc, items, v, &format!("{at}[{i}]"))?;
            }
            return Ok(());
        }
        let (named, required) = properties(doc, schema);
        if named.is_empty() {
            return Ok(()); // a scalar, or any JSON
        }
        let Value::Object(fields) = value else { return Err(format!("{at}: not an object: {value}")) };
        let keys: BTreeSet<String> = fields.keys().cloned().collect();
        let unknown: Vec<_> = keys.iter().filter(|k| !named.contains_key(*k)).collect();
        let missing: Vec<_> = required.difference(&keys).collect();
        if !unknown.is_empty() || !missing.is_empty() {
            return Err(format!("{at}: undocumented {unknown:?}, missing {missing:?} in {value}"));
        }
        for (key, v) in fields {
            conforms(doc, &named[key], v, &format!("{at}.{key}"))?;
        }
        Ok(())
    }

    /// Checks a real answer against the schema the document gives for `method path` and `status`.
    pub(in crate::rest) fn assert_answer_matches(
        doc: &Value,
        method: &str,
        path: &str,
        status: u16,
        body: &Value,
    ) {
        let schema = &doc["paths"][path][method]["responses"][status.to_string()]["content"]["application/json"]
            ["schema"];
        assert!(!schema.is_null(), "{method} {path} documents no {status} answer");
        if let Err(e) = conforms(doc, schema, body, "answer") {
            panic!("{method} {path} {status}: {e}");
        }
    }
}
