# Segments (issue 43): the board page's switcher between the whole board's ranking and each segment's, and the member page's segment ranks.

segment-switcher = Rankings
segment-pick = Show the ranking of
segment-whole-board = The whole board
segment-option = { $value } ({ $members ->
    [one] { $shown } member
    *[other] { $shown } members
    })
segment-more-values = Only the first 100 values of { $dimension } are listed
segment-show = Show
segment-unread = The segments could not be read; try again in a moment.
segment-frozen = The standings are frozen: the rankings by segment are hidden until the reveal.
segment-back-to-board = See the whole board
segment-heading-board = Ranking: the whole board
segment-heading = Ranking of { $dimension } { $value }
segment-caption = { $caption } — { $dimension } { $value }
segment-board-only = Charts, prizes, revisions and past periods are the whole board's, not this segment's:{" "}
segment-board-only-link = see them on the whole board
segment-choice-line = {" "}({ $member }) — { $points }
segment-nobody-found = Nobody ranked in { $dimension } { $value } in { $period } has the member id or a name starting with “{ $asked }”.
segment-view-unsupported = Pinned views and the board as it stood at an instant are the whole board's only; open them without a segment.

member-segments-heading = Segments
member-segment-rank = #{ $rank } of { $members } in { $dimension } { $value }
member-segment-tied = {" "}(tied)
member-segment-points = {" "}· { $points }
member-segments-frozen = The standings are frozen: segment ranks are hidden until the reveal.
