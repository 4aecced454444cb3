//! Pieces shared by pages: the ranking table (`ranking_table`: on the board page with the
//! board's prize zones — the medal of each prize line beside the rank, a line at each prize
//! boundary — and ↑N / ↓N since the visitor's last visit, `movement`), its live version (`live`),
//! the ranking's "Export CSV" / "Export JSON" of the rows shown, made in the browser with no
//! server route (`export`), the countdown, the error view, the public-freeze banner
//! (`freeze_banner`), the revision notes contestants see (`revisions`), the board page's time
//! slider (`then_slider`), the charts (`charts`:
//! server-rendered SVG), and the console's own: `ActionOutcome`, `FieldError`, `Confirm`
//! (`console`), the previews of every change to standings (`correction`) and a season's weeks
//! (`season_weeks`).

pub mod charts;
#[cfg(feature = "console")]
pub mod console;
#[cfg(feature = "console")]
pub mod correction;
pub mod countdown;
pub mod error_view;
pub mod export;
pub mod freeze_banner;
pub mod live;
pub mod movement;
pub mod ranking_table;
pub mod revisions;
pub mod season_rows;
#[cfg(feature = "console")]
pub mod season_weeks;
pub mod segments;
pub mod then_slider;
