## 控制台中的分榜：奖励注明所属榜单；预览列出每个分榜中易手的奖品

period-col-ranking = 榜单
period-ranking-board = 总榜
correct-segment-prizes = { $ranking } 中易手的奖品
correct-change-move = 将成员移到另一个分榜
correct-segment = 移入的分榜（{ $dimensions }）：
correct-segment-invalid = 请按 维度:取值 的格式填写分榜，例如 province:zj。
period-field-segment-prizes = 各分榜的奖品，每行一个名次区间，行首写维度（{ $dimensions }；例如 province 1-3: 奖牌）：
console-field-segments = 分榜维度（可选）：
console-segments-hint = 每个维度按取值各设一个分榜，与总榜并存，例如每个省一个省榜。之后每个事件都要写明成员的取值（province: zj）。榜单创建后不可更改。
console-field-segment-prizes = 各分榜的奖品，每行一个名次区间，行首写维度（例如 province 1-3: 奖牌）：
