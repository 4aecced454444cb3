-- Carry-over (issue 45): a season may start each member at a share of an earlier season's final
-- standing (`boards.season`'s `carry_over`). The openings are written once, when the season is
-- created, in the transaction that creates it, and audited as `season_opened`; the season's
-- totals add them to whatever the rule makes of the weeks (`engine/src/ledger/seasons.rs`).
-- Keep both backends' files in step.
CREATE TABLE season_openings (
    board   TEXT NOT NULL,
    member  TEXT NOT NULL,
    points  BIGINT NOT NULL,
    PRIMARY KEY (board, member)
);
