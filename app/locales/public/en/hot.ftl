# A hot board's window in words (pages/hot.rs, `window_said`; the console's hot board page too),
# built from `domain::hot::WindowWords`. The English is the API's, `HotRules::describe`, byte for
# byte: "last 24 hours, newer counts more", "best score in the last 30 seconds".

hot-window-days = { $count ->
    [one] 1 day
    *[other] { $count } days
    }
hot-window-hours = { $count ->
    [one] 1 hour
    *[other] { $count } hours
    }
hot-window-minutes = { $count ->
    [one] 1 minute
    *[other] { $count } minutes
    }
hot-window-seconds = { $count ->
    [one] 1 second
    *[other] { $count } seconds
    }
hot-window-last = last { $span }
hot-window-best = best score in the last { $span }
hot-window-newer-more = { $window }, newer counts more
hot-window-by-age = { $window }, weighted by age
