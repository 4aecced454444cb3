//! The code's shape that docs/ARCHITECTURE.md states: no source file over 600 lines and no
//! function over 120 (test files and inline test modules left out), so that a file is read at one
//! sitting and a function on a screen or two. The sources are rustfmt's, so a function ends at the
//! first line after its signature that closes at the indentation it began at.

use crate::stores_tests::sources;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 120;
const CRATES: [&str; 5] = ["domain/src", "engine/src", "app/src", "server/src", "frontend/src"];

/// The non-test sources of every crate.
fn every_source() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for dir in CRATES {
        sources(&root.join(dir), &mut files);
    }
    assert!(files.len() > 200, "too few sources found: {}", files.len());
    files
}

/// Whether `line` begins a function: `fn` after any visibility and qualifiers.
fn starts_fn(line: &str) -> bool {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.starts_with("fn ")
}

/// Each function with a body in `text` before its inline test module, as (first line, lines).
fn functions(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().take_while(|l| *l != "#[cfg(test)]").collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if !starts_fn(line) {
            continue;
        }
        let Some(open) = (at..lines.len()).find(|&i| {
            let l = lines[i].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue; // a declaration without a body
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        if let Some(end) = (open..lines.len()).find(|&i| lines[i].trim_end() == close) {
            found.push((at + 1, end - at + 1));
        }
    }
    found
}

#[test]
fn the_measure_finds_a_function_and_its_end() {
    let text = "/// A.\npub(crate) async fn a(\n    x: u8,\n) -> u8 {\n    if x > 0 {\n        x\n    } else {\n        0\n    }\n}\n\nfn b();\n";
    assert_eq!(functions(text), vec![(2, 9)]);
}

#[test]
fn no_source_file_is_over_600_lines() {
    let long: Vec<String> = every_source()
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files (at most {MAX_FILE_LINES} lines): {long:#?}");
}

#[test]
fn no_function_is_over_120_lines() {
    let mut long = Vec::new();
    let mut measured = 0;
    for file in every_source() {
        for (line, lines) in functions(&std::fs::read_to_string(&file).unwrap()) {
            measured += 1;
            if lines > MAX_FN_LINES {
                long.push(format!("{}:{line} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(measured > 1000, "too few functions measured: {measured}");
    assert!(long.is_empty(), "split these functions (at most {MAX_FN_LINES} lines): {long:#?}");
}
