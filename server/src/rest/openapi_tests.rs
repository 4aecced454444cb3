//! The OpenAPI document held to the route table, to docs/API.md and to itself (its errors, its
//! callers, its references); `assert_answer_matches` holds real answers to it (`tests.rs`).

use serde_json::Value;
use std::collections::BTreeSet;

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

/// `(path, method)` of every route `rest::routes` declares: the paths of the OpenAPI document it
/// collects as it adds them (a test below holds that it adds routes no other way).
pub(in crate::rest) fn router_routes() -> BTreeSet<(String, String)> {
    let collected = serde_json::to_value(super::routes().into_openapi()).unwrap();
    documented_routes(&collected)
}

/// The route table adds each route with `routes!` from its handler's attribute: a route added
/// any other way would be served without being documented.
#[test]
fn every_route_is_added_from_its_handlers_attribute() {
    let source = include_str!("mod.rs");
    let table = source.split("fn routes() -> OpenApiRouter<AppState> {").nth(1).expect("the route table");
    let table = &table[..table.find("\n}\n").expect("the end of the route table")];
    let adds = table.matches(".routes(").count();
    assert!(adds > 25, "the route table adds only {adds} routes");
    for other in [".route(", ".route_service(", ".nest(", ".nest_service(", ".merge(", ".fallback("] {
        assert!(!table.contains(other), "the route table calls {other}");
    }
    for add in table.split(".routes(").skip(1) {
        let add = add.trim_start_matches("bounded(");
        assert!(add.starts_with("routes!("), "a route added without routes!: {add}");
    }
}

fn document() -> Value {
    serde_json::from_str(&super::DOCUMENT).unwrap()
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
    assert!(missing.is_empty() && extra.is_empty(), "not in docs/API.md: {missing:?}; only there: {extra:?}");
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
        ("post", format!("{P}/imports")),
        ("get", format!("{P}/late")),
        ("post", format!("{P}/late/{{id}}/accept")),
        ("post", format!("{P}/late/{{id}}/reject")),
        ("post", format!("{P}/rebuild")),
        ("get", "/api/v1/audit".to_owned()),
        ("get", "/api/v1/openapi.json".to_owned()),
        ("post", "/api/v1/boards/{board}/hits".to_owned()),
        ("get", "/api/v1/boards/{board}/hot/top".to_owned()),
        ("put", "/api/v1/boards/{board}/hot/filter".to_owned()),
        ("get", "/api/v1/keys".to_owned()),
        ("post", "/api/v1/keys".to_owned()),
        ("post", "/api/v1/keys/{id}/revoke".to_owned()),
    ];
    let doc = document();
    for (method, path) in contract {
        let operation = &doc["paths"][&path][method];
        assert!(operation.is_object(), "{method} {path} is not documented");
        // Each `{name}` of the path is a documented path parameter.
        let names: Vec<&str> = path.split('{').skip(1).map(|rest| rest.split('}').next().unwrap()).collect();
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
    let text = super::DOCUMENT.as_str();
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
        let tries: Vec<_> =
            variants.iter().filter(|v| v["type"] != "null").map(|v| conforms(doc, v, value, at)).collect();
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
    let schema =
        &doc["paths"][path][method]["responses"][status.to_string()]["content"]["application/json"]["schema"];
    assert!(!schema.is_null(), "{method} {path} documents no {status} answer");
    if let Err(e) = conforms(doc, schema, body, "answer") {
        panic!("{method} {path} {status}: {e}");
    }
}
