## 控制台中的分榜：奖励注明所属榜单；预览列出每个分榜中易手的奖品

period-col-ranking = 榜单
period-ranking-board = 总榜
correct-segment-prizes = { $ranking } 中易手的奖品
