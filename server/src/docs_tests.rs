//! docs/ARCHITECTURE.md stays a map: short enough to read first, naming only files that exist,
//! its contents leading to its headings, and every section other documents cite (as
//! `docs/ARCHITECTURE.md, "What a request may cost"`) still one of its headings. Read from the
//! repository, so an edit that breaks one fails the next test run. The details belong in the
//! module docs of the files the map names.

use std::path::{Path, PathBuf};

/// The most words the map may hold.
const MAX_WORDS: usize = 3000;

/// Endings of what the map names as a file (or, ending in `/`, a folder) of the repository.
const FILE_ENDINGS: [&str; 8] = [".rs", ".lua", ".ts", ".md", ".css", ".sql", ".toml", "/"];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("server/ is inside the repository").to_owned()
}

fn map() -> String {
    std::fs::read_to_string(repository().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md")
}

/// The map without its fenced blocks (the dependency diagram, the key schema), whose lines are
/// neither prose nor headings.
fn outside_fences(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The code spans of a line: the text between each pair of backticks.
fn code_spans(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// Whether a code span names a file or folder of the repository: a relative path with a known
/// ending. Routes (`/b/{board}`), placeholders (`<bundle>`, `{sqlite,postgres}`), globs and
/// commands (anything with a space) are not file names.
fn names_a_file(span: &str) -> bool {
    span.contains('/')
        && FILE_ENDINGS.iter().any(|ending| span.ends_with(ending))
        && !span.starts_with('/')
        && !span.contains(|c: char| c.is_whitespace() || "<>{}*…".contains(c))
}

/// A heading's anchor as GitHub makes it: lower case, spaces to hyphens, other punctuation
/// dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn headings(text: &str) -> Vec<String> {
    outside_fences(text)
        .into_iter()
        .filter(|line| line.starts_with('#'))
        .map(|line| line.trim_start_matches('#').trim().to_owned())
        .collect()
}

#[test]
fn the_map_holds_at_most_3000_words() {
    let words = map().split_whitespace().count();
    assert!(
        words <= MAX_WORDS,
        "docs/ARCHITECTURE.md has {words} words, more than {MAX_WORDS}: move the details into the \
         module doc (`//!`) of the file that owns them and leave the map naming that file"
    );
}

#[test]
fn every_file_the_map_names_exists() {
    let map = map();
    let root = repository();
    let named: Vec<&str> =
        outside_fences(&map).into_iter().flat_map(code_spans).filter(|span| names_a_file(span)).collect();
    assert!(named.len() > 50, "the map names files in code spans (`engine/src/lib.rs`): {named:?}");
    let missing: Vec<&&str> = named.iter().filter(|path| !root.join(path).exists()).collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names files that do not exist (moved or renamed?): {missing:?}; name \
         the file as it is now, relative to the repository's root"
    );
}

#[test]
fn every_contents_link_finds_its_heading() {
    let map = map();
    let anchors: Vec<String> = headings(&map).iter().map(|h| anchor(h)).collect();
    let links: Vec<&str> =
        map.split("](#").skip(1).map(|rest| rest.split(')').next().unwrap_or_default()).collect();
    assert!(links.len() >= 9, "the map has a table of contents of `[Section](#section)` links");
    let broken: Vec<&&str> = links.iter().filter(|link| !anchors.iter().any(|a| a == *link)).collect();
    assert!(
        broken.is_empty(),
        "docs/ARCHITECTURE.md links to {broken:?}, which no heading makes (the anchors are \
         {anchors:?}): rename the link or the heading so they agree"
    );
}

#[test]
fn every_section_other_documents_cite_is_in_the_map() {
    let root = repository();
    let headings = headings(&map());
    let mut documents = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        documents.push(entry.unwrap().path());
    }
    let mut missing = Vec::new();
    for document in documents.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(document).unwrap();
        for rest in text.split("ARCHITECTURE.md, \"").skip(1) {
            let cited = rest.split('"').next().unwrap_or_default().split_whitespace().collect::<Vec<_>>();
            let cited = cited.join(" ");
            if !headings.contains(&cited) {
                missing.push(format!("{}: {cited:?}", document.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "sections cited as docs/ARCHITECTURE.md, \"<section>\" that the map no longer has: \
         {missing:?}; cite the module doc that now holds the details, or keep the heading"
    );
}

#[test]
fn the_rules_see_what_the_map_writes() {
    assert!(names_a_file("engine/src/lib.rs") && names_a_file("engine/src/ledger/"));
    assert!(!names_a_file("/api/v1/openapi.json") && !names_a_file("pkg/<bundle>.js"));
    assert!(!names_a_file("grep -v '^engine/src/ledger/'") && !names_a_file("app/hydrate"));
    assert_eq!(anchor("The engine: Core and its services"), "the-engine-core-and-its-services");
    assert_eq!(anchor("Access — `Engine::access()`"), "access--engineaccess");
    assert_eq!(code_spans("a `b/c.rs` d `e` f").collect::<Vec<_>>(), ["b/c.rs", "e"]);
}
