-- Settlement per segment (issue 43): a board's prize tables by dimension (JSON object, '{}':
-- none); each settlement revision records the tables it awarded and every segment ranking's
-- member count and digest (JSON array; NULL: the board had no segment rankings), which its own
-- digest folds in (`domain::settlement::folded_text`). A reward names the ranking that earned it
-- (`''`: the board's own; `province:zj`: that segment's), so one member may hold a reward per
-- ranking in a revision. Keep migrations/sqlite/ in step with this file.
ALTER TABLE boards ADD COLUMN segment_prizes TEXT NOT NULL DEFAULT '{}';
ALTER TABLE settlements ADD COLUMN segment_prizes TEXT;
ALTER TABLE settlements ADD COLUMN segments TEXT;
ALTER TABLE rewards ADD COLUMN ranking TEXT NOT NULL DEFAULT '';
ALTER TABLE rewards DROP CONSTRAINT rewards_member_key;
ALTER TABLE rewards ADD CONSTRAINT rewards_member_key UNIQUE (board, period, revision, member, kind, ranking);
