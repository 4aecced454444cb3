# 各页面共用的文字：站点框架、积分与计数。

points-labelled = { $points } 分
site-skip = 跳到正文
site-languages = 语言
