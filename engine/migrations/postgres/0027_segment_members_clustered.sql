-- The by-value index of segment memberships carries the member (issue 43, speed), so that a
-- settlement reads each value's members from the index alone (`ledger/segments.rs::period_rosters`,
-- an index-only scan). Keep migrations/sqlite/ in step (there the table is clustered instead).
CREATE INDEX segment_members_by_value_with_member ON segment_members (board, period, dimension, value)
    INCLUDE (member);
DROP INDEX segment_members_by_value;
ALTER INDEX segment_members_by_value_with_member RENAME TO segment_members_by_value;
