-- Seasons (issue 45): a season board (`cadence` 'season') is made of another board's periods.
-- Its definition is JSON, `{"source": "weekly", "periods": ["2026-W40", …], "rule": {"kind":
-- "best", "k": 2}}`, NULL on every other board; fixed at creation. Its totals are computed from
-- the source's and written by the engine (`engine/src/seasons.rs`), never by a client. Keep both
-- backends' files in step.
ALTER TABLE boards ADD COLUMN season TEXT;
