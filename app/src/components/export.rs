//! "Export CSV" and "Export JSON": the rows a ranking table shows, as a file made in the browser
//! (a `Blob` behind a download link), so an export is exactly what the reader sees — the rows
//! added by "Show more", those the live stream replaced — and costs the server nothing.

use crate::i18n::tr;
use domain::view::Entry;
use leptos::prelude::*;
use serde::Serialize;

/// The columns of an export, in order (the table's, spelled as the API spells them).
pub const CSV_HEADER: &str = "rank,member,display_name,points,tied,prize";

/// One exported row: what the ranking table shows of a member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportRow {
    pub rank: u64,
    pub member: String,
    pub display_name: Option<String>,
    pub points: i64,
    pub tied: bool,
    /// The prize of the rank's zone, where the board has prizes.
    pub prize: Option<String>,
}

impl ExportRow {
    pub fn new(entry: &Entry, prize: Option<String>) -> Self {
        Self {
            rank: entry.rank,
            member: entry.member.to_string(),
            display_name: entry.display_name.clone(),
            points: entry.points,
            tied: entry.tied,
            prize,
        }
    }
}

/// The JSON export: which board and period the rows are of, then the rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportFile<'a> {
    pub board: &'a str,
    pub period: &'a str,
    pub entries: &'a [ExportRow],
}

/// A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. Text that a
/// spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`:
/// names are untrusted text.
fn cell(text: &str) -> String {
    let text =
        if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.into() };
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

/// The rows as CSV: [`CSV_HEADER`], then one line per row, CRLF-terminated.
pub fn to_csv(rows: &[ExportRow]) -> String {
    let mut out = format!("{CSV_HEADER}\r\n");
    for r in rows {
        let name = r.display_name.as_deref().map(cell).unwrap_or_default();
        let prize = r.prize.as_deref().map(cell).unwrap_or_default();
        out.push_str(&format!("{},{},{name},{},{},{prize}\r\n", r.rank, cell(&r.member), r.points, r.tied));
    }
    out
}

/// The rows as pretty JSON with their board and period.
pub fn to_json(board: &str, period: &str, rows: &[ExportRow]) -> String {
    serde_json::to_string_pretty(&ExportFile { board, period, entries: rows }).unwrap_or_default()
}

/// The two export buttons of a ranking table. `rows` are the rows shown, read when a button is
/// pressed; the files are named `{board}-{period}-standings.csv|json`. Shown once the page is
/// hydrated: without JavaScript there is nothing to make the file with.
#[component]
pub fn ExportRows(
    #[prop(into)] rows: Signal<Vec<ExportRow>>,
    board: String,
    period: String,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let stem = format!("{board}-{period}-standings");
    let save = move |json: bool| {
        let rows = rows.get_untracked();
        let (text, kind, ext) = if json {
            (to_json(&board, &period, &rows), "application/json", "json")
        } else {
            (to_csv(&rows), "text/csv;charset=utf-8", "csv")
        };
        let name = format!("{stem}.{ext}");
        #[cfg(feature = "hydrate")]
        browser::download(&name, &text, kind);
        #[cfg(not(feature = "hydrate"))]
        let _ = (name, text, kind);
    };
    let save_json = save.clone();
    view! {
        <p class="export" hidden=move || !hydrated.get() data-testid="export">
            <button type="button" class="secondary" on:click=move |_| save(false)>{tr!(l, "ranking-export-csv")}</button>
            " "
            <button type="button" class="secondary" on:click=move |_| save_json(true)>{tr!(l, "ranking-export-json")}</button>
            <span class="hint">{tr!(l, "ranking-export-hint")}</span>
        </p>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use wasm_bindgen::JsCast;

    /// Saves `text` as the file `name`: a `Blob`, an object URL for it, a download link clicked
    /// once, then the URL let go.
    pub fn download(name: &str, text: &str, kind: &str) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let parts = js_sys::Array::of1(&text.into());
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(kind);
        let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
        let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
        if let Some(link) =
            document.create_element("a").ok().and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        {
            link.set_href(&url);
            link.set_download(name);
            link.click();
        }
        // Let go of the file once the browser has surely read it.
        leptos::prelude::set_timeout(
            move || {
                let _ = web_sys::Url::revoke_object_url(&url);
            },
            std::time::Duration::from_secs(30),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rank: u64, member: &str, name: Option<&str>, points: i64) -> ExportRow {
        ExportRow {
            rank,
            member: member.into(),
            display_name: name.map(Into::into),
            points,
            tied: false,
            prize: None,
        }
    }

    #[test]
    fn csv_has_the_header_then_a_line_per_row_quoting_what_needs_it() {
        let mut first = row(1, "u1", Some("Lovelace, Ada \"the first\""), 1420);
        first.prize = Some("Gold".into());
        let rows = [first, row(2, "u2", None, -5), row(2, "u3", Some("=HYPERLINK(\"x\")"), 7)];
        let csv = to_csv(&rows);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines[1], "1,u1,\"Lovelace, Ada \"\"the first\"\"\",1420,false,Gold");
        assert_eq!(lines[2], "2,u2,,-5,false,", "no name: an empty cell; points stay numbers");
        assert_eq!(lines[3], "2,u3,\"'=HYPERLINK(\"\"x\"\")\",7,false,", "a formula is defused");
        assert_eq!(lines[4], "", "every line ends with CRLF");
    }

    #[test]
    fn json_names_the_board_and_period_and_keeps_every_field() {
        let json = to_json("demo", "2026-W49", &[row(1, "u1", Some("Ada"), 3)]);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["board"], "demo");
        assert_eq!(value["period"], "2026-W49");
        assert_eq!(value["entries"][0]["member"], "u1");
        assert_eq!(value["entries"][0]["display_name"], "Ada");
        assert_eq!(value["entries"][0]["points"], 3);
        assert_eq!(value["entries"][0]["prize"], serde_json::Value::Null);
    }
}
