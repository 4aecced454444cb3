# Words every page shares: the site's frame, points and counts.

points-labelled = { $points } points
site-skip = Skip to the content
site-languages = Language
