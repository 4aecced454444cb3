//! The REST modules' import rule (docs/ARCHITECTURE.md): a module of routes imports only the
//! shared modules, never another module of routes, so no two of them form a circle and each can
//! be read alone. Read from the sources, so a new module or a new import is held to it at once.

use std::collections::BTreeSet;

/// The modules every module of routes may import: what they share, and nothing that serves a
/// route.
const SHARED: [&str; 5] = ["auth", "body", "error", "params", "slots"];

/// The table that wires the routes (`mod.rs`) imports every module; test files (`*tests.rs`) are
/// not held. Every other file is shared or a module of routes.
const NOT_HELD: [&str; 1] = ["mod"];

/// The modules a source names through `super::` or `crate::rest::`: `super::a::X`,
/// `super::{a, b::Y}`; its test module (from the first `#[cfg(test)]`) left out.
fn named_modules(source: &str) -> BTreeSet<String> {
    let source = source.split("#[cfg(test)]").next().unwrap_or_default();
    let mut named = BTreeSet::new();
    for prefix in ["super::", "crate::rest::"] {
        for after in source.split(prefix).skip(1) {
            let names: Vec<&str> = match after.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or_default().split(',').collect(),
                None => vec![after],
            };
            for name in names {
                let name: String =
                    name.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    named.insert(name);
                }
            }
        }
    }
    named
}

#[test]
fn no_module_of_routes_imports_another() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rest");
    let mut modules = BTreeSet::new();
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && !name.ends_with("tests") {
            modules.insert(name.clone());
            sources.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    assert!(modules.len() > 10 && modules.contains("reads"), "{modules:?}");
    let mut broken = Vec::new();
    for (name, source) in &sources {
        if NOT_HELD.contains(&name.as_str()) {
            continue;
        }
        for named in named_modules(source) {
            // A name that is no module of `rest/` (`ApiError` through `super::`) is no import of one.
            if modules.contains(&named) && !SHARED.contains(&named.as_str()) && &named != name {
                broken.push(format!("{name}.rs imports {named}.rs"));
            }
        }
    }
    assert!(broken.is_empty(), "modules of routes import only {SHARED:?}: {broken:?}");
}

#[test]
fn the_rule_sees_every_way_of_naming_a_module() {
    let named = named_modules(
        "use super::auth::Admin;\nuse super::{hot, error::ApiError};\nlet x = super::reads::offset(1);\n\
         crate::rest::lifecycle::f();\n#[cfg(test)]\nmod tests { use super::writes; }",
    );
    let expected: BTreeSet<String> =
        ["auth", "hot", "error", "reads", "lifecycle"].into_iter().map(str::to_owned).collect();
    assert_eq!(named, expected);
}
