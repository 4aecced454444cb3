# 各页面共用的文字：站点框架、积分与计数。

points-labelled = { $points } 分
site-skip = 跳到正文
site-languages = 语言

## 周期状态（i18n::Say::state）

state-open = 进行中
state-frozen = 已冻结
state-settled = 已结算
state-archived = 已归档
