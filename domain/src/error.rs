//! Every machine-readable reason Laurel answers with (`{"error": "<code>", "detail": "…"}` on the
//! API), with its HTTP status and what it means: the one place a code is named and documented.
//! docs/API.md's table of errors is checked against [`ErrorCode::ALL`] by a test.
//!
//! The ledger refuses with one (`LedgerError::Refused`), the engine passes it on
//! (`EngineError::Refused`) and the API answers its status (`server/src/rest/error.rs`), so a
//! rule's reason is named once, where the rule is.

use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($($variant:ident = $word:literal, $status:literal, $meaning:literal;)+) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $(#[doc = $meaning] $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the order docs/API.md lists them (by status).
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as the API writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $word,)+
                }
            }

            /// The HTTP status every answer with this code has.
            pub fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)+
                }
            }

            /// When the code is answered, in words (docs/API.md's "when" column).
            pub fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)+
                }
            }
        }
    };
}

codes! {
    MalformedJson = "malformed_json", 400, "the body is not JSON";
    InvalidQuery = "invalid_query", 400, "a query parameter is missing or of the wrong type";
    InvalidPath = "invalid_path", 400, "a path segment is not valid UTF-8, or an id is not a number (or overflows)";
    Unauthorized = "unauthorized", 401, "no bearer, an unknown or revoked one, or an ended session";
    Forbidden = "forbidden", 403, "the ingest key may not write to this board";
    CrossSite = "cross_site", 403, "a browser request from another site tried to change something";
    NotFound = "not_found", 404, "no such board, period, member, late write, event or key; or no route at that path";
    MethodNotAllowed = "method_not_allowed", 405, "the route does not answer that method";
    BoardExists = "board_exists", 409, "a board (periodic or hot) already has this slug";
    WrongOperator = "wrong_operator", 409, "the endpoint is for another operator than the board's";
    InvalidTransition = "invalid_transition", 409, "the lifecycle cannot move that way from the current state";
    LatePending = "late_pending", 409, "settling waits until every late write is accepted or rejected";
    PeriodSettled = "period_settled", 409, "the standings are final: no revoke, correction, hide or late accept (change a settled period through a preview)";
    AlreadyDecided = "already_decided", 409, "the late write was decided the other way before";
    IdTaken = "id_taken", 409, "a `correction_id` already names another entry of the board";
    CorrectionRejected = "correction_rejected", 409, "the correction would break the board's bounds";
    PreviewStale = "preview_stale", 409, "the period moved since the preview was made; `detail` names its watermark now";
    PreviewCancelled = "preview_cancelled", 409, "the preview was cancelled";
    PreviewExpired = "preview_expired", 409, "the preview is older than 15 minutes";
    PreviewApplied = "preview_applied", 409, "the preview was applied: it cannot be cancelled";
    InvalidChange = "invalid_change", 409, "a change of the preview can no longer be made as previewed";
    NotSettled = "not_settled", 409, "only a settled or archived period can be exported or imported (`laurel export`, `laurel import`)";
    ImportMismatch = "import_mismatch", 409, "the import's entries, totals and standings do not agree (`laurel import`)";
    AdminExists = "admin_exists", 409, "a console account already has this username (`laurel admin create`)";
    PeriodExists = "period_exists", 409, "the ledger already holds writes of the period an import brings (`laurel import`)";
    BoardDiffers = "board_differs", 409, "the ledger's board has another definition than the import's (`laurel import`)";
    RuleVersionMismatch = "rule_version_mismatch", 409, "the import was settled under other settlement rules than this build's (`laurel import`)";
    ExternalIdTaken = "external_id_taken", 409, "an event id of the import names another entry of the board (`laurel import`)";
    NotMovable = "not_movable", 409, "a finding whose rows are fixed by hand, not moved aside (`laurel doctor`)";
    PeriodNotOpen = "period_not_open", 409, "totals are imported only into an open period (not frozen, settled or archived)";
    ImportIdTaken = "import_id_taken", 409, "an `import_id` already names an import of other rows, mode or period on the board";
    SeasonBoard = "season_board", 409, "a season's totals come from its source board's periods: write, correct and import there";
    SegmentFrozen = "segment_frozen", 409, "a segment of a publicly frozen period, read without admin credentials: segments have no frozen view, so they are closed until the reveal";
    SnapshotExpired = "snapshot_expired", 410, "the pinned snapshot is gone (they live 5 to 10 minutes), or never was";
    BatchTooLarge = "batch_too_large", 413, "more than 1 000 events in one batch";
    BodyTooLarge = "body_too_large", 413, "the body is over 2 MiB";
    Invalid = "invalid", 422, "a value breaks a rule (bounds, zone, ids, limits, cursor); `detail` says which";
    InvalidBody = "invalid_body", 422, "JSON of the wrong shape (missing field, wrong type, unknown field)";
    InvalidExport = "invalid_export", 422, "a file that is not an export Laurel wrote (`laurel import`)";
    DigestMismatch = "digest_mismatch", 422, "the standings do not hash to the digest they came with (`laurel import`)";
    ChainBroken = "chain_broken", 422, "a period's settlement revisions do not chain (`laurel import`)";
    Rejected = "rejected", 422, "a single write refused by a rule (a batch reports it per item instead)";
    RateLimited = "rate_limited", 429, "the key is over its rate limit, or a caller without credentials over its network's allowance; see `Retry-After`";
    TooManyStreams = "too_many_streams", 429, "this client address holds as many live streams as one instance allows it; see `Retry-After`";
    StreamsFull = "streams_full", 503, "the instance holds as many live streams as it may; see `Retry-After`";
    Unavailable = "unavailable", 503, "a store cannot be reached, or gave no answer within 10 s (writes and reads; with `Retry-After: 1`); retry later — a write sent again with the same id is recorded once";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_serialises_as_its_word_and_the_list_is_ordered_by_status() {
        for code in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str(), "{code:?}");
            assert!((400..600).contains(&code.status()), "{code:?}");
        }
        assert!(ErrorCode::ALL.windows(2).all(|w| w[0].status() <= w[1].status()));
        let mut words: Vec<_> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), ErrorCode::ALL.len(), "every code is named once");
    }

    #[test]
    fn docs_api_lists_every_code_with_its_status_and_meaning() {
        let api = include_str!("../../docs/API.md");
        let table =
            api.split("| status | `error` | when |").nth(1).expect("docs/API.md has the table of errors");
        let documented: Vec<String> =
            table.lines().skip(2).take_while(|l| l.starts_with('|')).map(str::to_owned).collect();
        let expected: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|c| format!("| {} | `{}` | {} |", c.status(), c.as_str(), c.meaning()))
            .collect();
        assert_eq!(documented, expected, "docs/API.md's table of errors is ErrorCode::ALL, in order");
    }
}
