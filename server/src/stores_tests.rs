//! The binary and the UI reach the stores only through the engine's services: no source of
//! `server/` or `app/` outside tests names `engine::ledger` or `engine::redis`. (The release build
//! holds it too — without the engine's `internals` feature those modules are private — and this
//! test says where the rule was broken.)

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, test files (`*tests.rs`, `tests/`) left out.
pub(crate) fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, found);
            }
        } else if name.ends_with(".rs") && !name.ends_with("tests.rs") {
            found.push(path);
        }
    }
}

#[test]
fn server_and_app_name_no_store_of_the_engine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for crate_dir in ["server/src", "app/src"] {
        sources(&root.join(crate_dir), &mut files);
    }
    assert!(files.len() > 40, "too few sources found: {}", files.len());
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // A file's test module (from the first `#[cfg(test)]`) may check the stores themselves.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for store in ["engine::ledger", "engine::redis"] {
            if code.contains(store) {
                broken.push(format!("{} names {store}", file.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(broken.is_empty(), "use the engine's services and their types instead: {broken:#?}");
}
