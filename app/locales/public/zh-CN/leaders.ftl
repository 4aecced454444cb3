# 榜单页面的领先者走势（components/charts/leaders.rs）：前五名在本周期内的积分，每人一条线。

chart-leaders-heading = 领先者的积分走势
chart-leaders-empty = { $period } 还没有人获得积分。
chart-leaders-label = { $count ->
   *[other] { $period } 前 { $count } 名在本周期内的积分：{ $leaders }。
}{ $truncated }
chart-leaders-item = { $name }（{ $points }）
chart-leaders-separator = 、
chart-leaders-truncated = 部分曲线只显示最早的记录。
chart-leaders-tip = 第 { $rank } 名 { $name }：{ $points }
chart-leaders-caption = { $period } 的领先者及其曲线终点的积分
chart-leaders-changes = 变化次数
chart-leaders-last-change = 最后变化（{ $zone }）
