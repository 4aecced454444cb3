-- The digest a preview's standings after would have, for a settled or archived period. A large
-- period's draft is answered before its digest is known (the digest needs every standing): it is
-- filled in here when computed, and read with the draft. Keep both backends' files in step.
ALTER TABLE previews ADD COLUMN digest_after TEXT;
