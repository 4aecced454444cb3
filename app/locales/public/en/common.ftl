# Words every page shares: the site's frame, points and counts.

points-labelled = { $points } points
site-skip = Skip to the content
site-languages = Language

## A period's state (i18n::Say::state)

state-open = open
state-frozen = frozen
state-settled = settled
state-archived = archived
