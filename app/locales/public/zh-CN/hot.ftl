# 热榜时间窗口的文字（pages/hot.rs 的 `window_said`；控制台的热榜页面也用），
# 由 `domain::hot::WindowWords` 组成：“最近 24 小时，越新权重越高”。

hot-window-days = { $count ->
    *[other] { $count } 天
    }
hot-window-hours = { $count ->
    *[other] { $count } 小时
    }
hot-window-minutes = { $count ->
    *[other] { $count } 分钟
    }
hot-window-seconds = { $count ->
    *[other] { $count } 秒
    }
hot-window-last = 最近 { $span }
hot-window-best = 最近 { $span }内的最高分
hot-window-newer-more = { $window }，越新权重越高
hot-window-by-age = { $window }，按时间远近加权
