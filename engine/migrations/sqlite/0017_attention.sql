-- The console's front page (engine::attention): its counts read only the rows they count. Keep
-- both backends' files in step.

-- Entries by when they were recorded: a board's activity sparkline counts the entries of the
-- last 24 hours by hour, an index-only range scan of those entries alone (the board is in the
-- index, so no table row is read). New keys land at the index's right end.
CREATE INDEX entries_by_recorded_at ON entries (recorded_at, board);

-- Pending late writes alone: "late writes pending" counts them per period without reading the
-- decided ones, however many accumulate.
CREATE INDEX late_entries_pending ON late_entries (board, period) WHERE status = 'pending';
