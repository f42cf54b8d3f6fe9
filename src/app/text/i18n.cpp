// The English → Chinese table of the UI's texts, which T() looks up (i18n_lookup.cpp).
#include "app/text/i18n.h"

namespace ui {

namespace {

// English text (the key, exactly as written in the code) → simplified Chinese.
const std::pair<const char*, const char*> kZh[] = {
    // The frame and the top bar.
    {"Attention Playground", "注意力游乐场"},
    {"Step by step", "逐步演示"},
    {"All heads", "所有头"},
    {"Positional encoding", "位置编码"},
    {"2-D view", "二维视图"},
    {"In this lesson", "本课提示"},
    {"(written for the lesson as it was loaded: Reset to the preset to see its numbers again)",
     "（这条提示针对课程刚载入时的数据：点“恢复为预设”可以再看到那些数字）"},
    {"Notes on steps", "有提示的步骤"},
    {"Questions on steps", "有提问的步骤"},
    // The glossary (glossary.cpp).
    {"What a position is looking for: one row of Q. Its dot product with every key says how well "
     "each key matches.",
     "一个位置想找什么：Q 的一行。它和每个键的点积说明每个键有多匹配。"},
    {"What a position offers to be found by: one row of K. It is compared with the queries and "
     "never mixed into the output.",
     "一个位置凭什么被找到：K 的一行。它只和查询比较，从不混入输出。"},
    {"value", "值"},
    {"What a position says once it is chosen: one row of V. The output is a weighted average of "
     "the value rows.",
     "一个位置被选中后提供的内容：V 的一行。输出是各个值行的加权平均。"},
    {"A pattern of sines and cosines, different for each position, added to the input rows so that "
     "attention can tell word order.",
     "每个位置各不相同的一组正弦和余弦，加到输入的行上，让注意力能分辨词序。"},
    {"projection", "投影"},
    {"A learned matrix (W_q, W_k, W_v) that turns each input row into its query, key or value; the "
     "same rows can then ask for one thing and offer another.",
     "学到的矩阵（W_q、W_k、W_"
     "v），把每个输入行变成它的查询、键或值；于是同一行可以找一样东西，却以另一样东西被找到。"},
    {"self-attention", "自注意力"},
    {"Attention in which the queries, keys and values all come from the same sequence: every word "
     "looks at the words of its own sentence.",
     "查询、键和值都来自同一个序列的注意力：每个词都看自己所在句子里的词。"},
    {"score", "分数"},
    {"One number per query and key saying how well they match, before the softmax: a dot product, "
     "or a small network (additive scoring).",
     "每一对查询和键的一个数，说明它们有多匹配，在 softmax "
     "之前：可以是点积，也可以是一个小网络（加性评分）。"},
    {"scaling by \xe2\x88\x9a"
     "d",
     "除以 \xe2\x88\x9a"
     "d"},
    {"Dividing the dot products by the square root of the key size d. Their variance grows with d; "
     "without it large d saturates the softmax.",
     "把点积除以键的维度 d 的平方根。点积的方差随 d 增长；不除的话，d 大时 softmax 会饱和。"},
    {"A divisor of the scores: above 1 the weights spread out, below 1 they sharpen towards the "
     "largest score.",
     "分数的除数：大于 1 时权重更分散，小于 1 时权重向最大的分数集中。"},
    {"mask", "掩蔽"},
    {"Cells a query may not use. Their scores are replaced by a very negative number (\xe2\x88\x92"
     "1e6) or \xe2\x88\x92\xe2\x88\x9e, so the softmax gives them weight 0.",
     "查询不能使用的格子。它们的分数被换成一个很大的负数（\xe2\x88\x92"
     "1e6）或 \xe2\x88\x92\xe2\x88\x9e，于是 softmax 给它们的权重是 0。"},
    {"valid length", "有效长度"},
    {"How many keys of a padded sequence are real; the <pad> keys after it are masked.",
     "一个填充过的序列里有多少个键是真实的；它后面的 <pad> 键都被掩蔽。"},
    {"causal mask", "因果掩蔽"},
    {"A mask that hides every key after the query's own position, so that a decoder cannot look at "
     "words it has not written yet.",
     "一种掩蔽：遮住查询自身位置之后的所有键，让解码器看不到它还没写出的词。"},
    {"softmax", "softmax"},
    {"Turns a row of scores into weights: e to the power of each score, divided by their sum. The "
     "weights are positive and add up to 1.",
     "把一行分数变成权重：对每个分数取 e 的幂，再除以它们的和。权重都为正，加起来等于 1。"},
    {"attention weights", "注意力权重"},
    {"The matrix A (\xce\xb1 in formulas): row i says how much of each value row goes into output "
     "row i. Each row sums to 1.",
     "矩阵 A（公式里写作 \xce\xb1）：第 i 行说明每个值行有多少进入第 i 个输出行。每行之和为 1。"},
    {"hard attention", "硬注意力"},
    {"Keeps only the key with the largest score (weight 1, the rest 0), instead of spreading the "
     "weight as softmax does.",
     "只保留分数最大的那个键（权重 1，其余为 0），而不像 softmax 那样把权重分散开。"},
    {"One attention computed on its own block of the projected columns. Several heads look at the "
     "same words in different ways; their outputs are put side by side and mixed by W_o.",
     "在投影后属于自己的那一块列上单独计算的一次注意力。多个头用不同方式看同一组词；它们的输出并排"
     "拼接，再由 W_o 混合。"},
    {"Words in this step", "这一步用到的词"},
    {"Settings", "设置"},
    // The table view's training line and its announcements (api_accessible.cpp).
    {"step %d", "第 %d 步"},
    {"Training started: %s.", "训练开始：%s。"},
    {"Training: %s.", "训练中：%s。"},
    {"Training paused: %s.", "训练已暂停：%s。"},
    {"Training converged and paused by itself: %s.", "训练已收敛，自动暂停：%s。"},
    // Training (panel_controls.cpp).
    {"Train", "训练"},
    {"%d of %d", "第 %d 个，共 %d 个"},
    {"Step##train", "单步##train"},
    {"Reset##train", "重置##train"},
    {"learning rate", "学习率"},
    {"this scenario's target", "这个场景的目标"},
    {"toy task", "玩具任务"},
    {"Training changes this number only through the weights before it; the gradient is what "
     "flows back through it to them.",
     "训练只能通过它前面的权重来改变这个数；梯度就是经过它流回那些权重的量。"},
    {"Dots: the noisy points. Line: each point predicted from the others. A narrow kernel "
     "follows the noise, a wide one smooths it away.",
     "点：带噪声的数据点。线：每个点由其他点预测出的值。窄的核会跟着噪声走，宽的核会把它抹平。"},
    {"L = mean((output \xe2\x88\x92 target)\xc2\xb2); here the target is %s, so "
     "\xe2\x88\x82L/\xe2\x88\x82y = 2(y \xe2\x88\x92 target)/N.",
     "L = mean((输出 − 目标)²)；这里的目标是 %s，所以 ∂L/∂y = 2(y − 目标)/N。"},
    {"A training step moves this weight against its gradient: by "
     "\xe2\x88\x92rate \xc3\x97 \xe2\x88\x82L/\xe2\x88\x82w with SGD.",
     "每个训练步都把这个权重往梯度的反方向推：用 SGD 时推 −学习率 × ∂L/∂w。"},
    {"Training keeps the inputs fixed; the gradient says how the loss would change if this "
     "number did.",
     "训练时输入保持不变；梯度说明如果这个数变了，损失会怎样变。"},
    {"train (play)", "训练（播放）"},
    {"step %d, loss %.3g", "第 %d 步，损失 %.3g"},
    {"step \xe2\x86\x92", "步数 \xe2\x86\x92"},
    {"loss, on a log scale", "损失（对数刻度）"},
    {"The spike at step %d: one update overshot and the loss jumped %.0f times above its "
     "lowest. A step that is too large where the loss surface is steep does this; a smaller "
     "learning rate avoids it.",
     "第 %d 步的尖峰：一次更新冲过了头，损失跳到此前最低值的 %.0f 倍。损失曲面陡峭的地方步子"
     "太大就会这样；调小学习率可以避免。"},
    {"Pick a toy task, or give the scenario a \"target\", then Train.",
     "选一个玩具任务，或给场景一个 \"target\"，然后点“训练”。"},
    {"Train moves the weights toward the target, step by step.",
     "“训练”一步一步地把权重推向目标。"},
    {"Step", "步骤"},
    {"Glossary", "术语表"},
    {"Read: %s", "阅读：%s"},
    {"Predict, then check", "先预测，再核对"},
    {"Check", "核对"},
    {"You answered this one right before.", "你之前答对过这一题。"},
    {"You tried this one before.", "你之前做过这一题。"},
    {"The largest weight is on \"%s\" (%.2f).", "最大的权重落在“%s”上（%.2f）。"},
    {"The answer is %.3f; you said %.3g.", "答案是 %.3f；你的答案是 %.3g。"},
    {"The answer is %.3f.", "答案是 %.3f。"},
    {" You chose \"%s\": its weight is %.2f, number %d of %d from the top.",
     "你选的是“%s”：它的权重是 %.2f，从大到小排第 %d（共 %d 个）。"},
    {"Show me the answer", "告诉我答案"},
    {"Here it is.", "答案如下。"},
    {"Hidden until you answer the question above", "回答上面的问题后显示"},
    {"Right.", "答对了。"},
    {"Not quite.", "不太对。"},
    {"You have changed the lesson, so its own explanation no longer fits these numbers.",
     "你修改了这一课，所以课程原来的解释已经不适用于这些数字。"},
    {"Ask me again", "再问我一次"},
    {"A fresh optimizer and loss curve; a toy task starts again from its seed.",
     "优化器和损失曲线从头开始；玩具任务从它的种子重新生成。"},
    {"Another seed: other sequences and other starting weights, the same task.",
     "换一个种子：同一个任务，换一批序列和初始权重。"},
    {"Language", "语言"},
    {"View", "视图"},
    {"This matrix", "这个矩阵"},
    {"one training step", "训练一步"},
    {"optimizer", "优化器"},
    {"reset training", "重置训练"},
    {"\xe2\x97\x8f done", "\xe2\x97\x8f 已完成"},
    {"Lesson and controls", "课程与设置"},
    {"Lesson", "课程"},
    {"This change cannot run yet:", "这个改动暂时无法运行："},
    {"The numbers below are from the last scenario that ran.",
     "下面的数字来自上一次成功运行的场景。"},
    {"%s is beyond the largest float32 number (3.4e38), so what is computed from it is infinite "
     "or NaN.",
     "%s 超出了 float32 能表示的最大数（3.4e38），由它算出的数都是无穷大或 NaN。"},
    {"The temperature %s is too small: it divides the scores.", "温度 %s 太小了：分数要除以它。"},
    {", head %d", "，第 %d 个头"},
    {", batch item %d", "，批量中的第 %d 个样本"},
    {"OK", "好"},
    {"Notice", "提示"},
    {"No scenario yet.", "还没有场景。"},
    {"Computing the new scenario", "正在计算新的场景"},
    {"Computing head %d of batch item %d", "正在计算第 %d 个头（批量中的第 %d 个样本）"},
    {"batch %d × %d queries × %d keys × %d heads", "批量 %d × %d 个查询 × %d 个键 × %d 个头"},
    {"Batch item", "批量中的样本"},

    // Steps.
    {"Inputs", "输入"},
    {"Projections", "投影"},
    {"Scores", "分数"},
    {"Scaled", "缩放"},
    {"Masked", "掩蔽"},
    {"Weights", "权重"},
    {"Weighted values", "加权求和（注意力汇聚）"},
    {"Output", "输出"},
    {"Play", "播放"},
    {"Pause", "暂停"},
    {"speed", "速度"},
    {"slow", "慢"},
    {"steady", "适中"},
    {"fast", "快"},
    {"slow: 10 steps a second", "慢：每秒 10 步"},
    {"steady: 60 steps a second", "适中：每秒 60 步"},
    {"fast: all a frame allows", "快：每帧能算多少算多少"},
    {"training speed", "训练速度"},
    {"Paused by itself: the loss fell below 0.000001, so the weights are trained. Train goes on "
     "from here.",
     "已自动暂停：损失已降到 0.000001 以下，权重已经训练好了。再按“训练”会从这里继续。"},
    {"Head", "头"},
    {"head", "头"},
    {"heads", "头数"},

    // Step explanations.
    {"Each row is one token's vector. Positional encoding adds a different pattern of sines and "
     "cosines to every position, so equal tokens at different places become different vectors.",
     "每一行是一个词元的向量。位置编码给每个位置加上一组不同的正弦和余弦，所以相同的词元放在不同位"
     "置就成了不同的向量。"},
    {"Each row is one token's vector. Attention will compare every query row with every key row, "
     "then mix the value rows.",
     "每一行是一个词元的向量。注意力会把每个查询行和每个键行做比较，再把值的各行混合起来。"},
    {"Additive scoring keeps the inputs as they are: its W_q and W_k belong to the scoring network "
     "of the next step.",
     "加性评分不改变输入：它的 W_q 和 W_k 属于下一步的评分网络。"},
    {"Learned matrices turn each input row into a query (what it looks for), a key (what it "
     "offers) and a value (what it passes on). With several heads, each head takes its own block "
     "of columns.",
     "学习得到的矩阵把每个输入行变成查询（它要找什么）、键（它能提供什么）和值（它传递什么）。有多"
     "个头时，每个头取自己的一块列。"},
    {"There are no learned weights in this scenario, so the queries, keys and values are used as "
     "they are.",
     "这个场景没有学习得到的权重，查询、键和值按原样使用。"},
    {"A small network scores each pair: query and key are mapped to a shared hidden size, added, "
     "squashed by tanh and read out by w_v. Query and key may have different sizes.",
     "一个小网络给每一对计算评分：查询和键先映射到同一个隐藏维度，相加后经过 tanh 压缩，再由 w_v "
     "读出。查询和键的维度可以不同。"},
    {"A bilinear score q·W·k: the matrix W learns which query features should match which key "
     "features.",
     "双线性评分 q·W·k：矩阵 W 学习查询的哪些特征应当与键的哪些特征相匹配。"},
    {"The cosine of the angle between query and key: only the direction counts, not the length, "
     "so every score lies between -1 and 1.",
     "查询与键夹角的余弦：只看方向，不看长度，所以每个分数都在 -1 到 1 之间。"},
    {"The score of a query and a key is their dot product: large when the two vectors point the "
     "same way, negative when they point apart.",
     "查询和键的分数是它们的点积：两个向量方向一致时分数大，方向相反时分数为负。"},
    {"For random queries and keys, the variance of a dot product grows in proportion to the "
     "vector size d, so large d would push the softmax to all-or-nothing; dividing by the square "
     "root of d brings the variance back to about 1. The temperature T divides too: above 1 it "
     "flattens the weights, below 1 it sharpens them.",
     "对于随机的查询和键，点积的方差与向量维度 d 成正比，d 很大时会把 softmax "
     "推向“全有或全无”；除以 d 的平方根让方差回到 1 左右。温度 T "
     "也做除数：大于 1 时权重变平，小于 1 时权重变尖。"},
    {"The temperature T divides the scores: above 1 it flattens the weights, below 1 it sharpens "
     "them.",
     "分数除以温度 T：T 大于 1 时权重变平，小于 1 时权重变尖。"},
    {"Keys a query must not see get a very negative score, so that the softmax gives them weight "
     "0: padding past the valid length, later words under a causal mask, keys outside a local "
     "window, or cells you masked by hand. A row with every key masked has nothing left to "
     "choose: under -1e6 its weights are uniform, under -\xe2\x88\x9e undefined (NaN).",
     "查询不应看到的键，分数会被换成一个很大的负数，softmax 因此给它们权重 "
     "0：超出有效长度的填充、因果掩蔽下后面的词、局部窗口外的键，或你手动掩蔽的格子。"
     "如果一行的所有键都被掩蔽，就没有可选的键了：用 -1e6 时这一行的权重是均匀的，用 "
     "-\xe2\x88\x9e 时没有定义（NaN）。"},
    {"Nothing is masked in this scenario: every query may look at every key. Try a valid length, "
     "the causal mask or a window.",
     "这个场景没有掩蔽：每个查询都能看到每个键。试试有效长度、因果掩蔽或窗口。"},
    {"Hard attention puts all the weight on the single best key of each row (the first one if "
     "several tie).",
     "硬注意力把每一行的全部权重放在分数最高的那个键上（并列时取第一个）。"},
    {"Hard attention puts all the weight on the single best key of each row (the first one if "
     "several tie). Trained straight through: the backward pass treats these one-hot rows as if "
     "they were the softmax of the same scores.",
     "硬注意力把每一行的全部权重放在分数最高的那个键上（并列时取第一个）。用直通估计训练时，"
     "反向传播把这些独热的行当作同一组分数的 softmax 来求梯度。"},
    {"The softmax turns each row of scores into weights that are positive and sum to 1. In train "
     "mode dropout then zeroes some weights at random and scales up the rest.",
     "softmax 把每一行分数变成为正且和为 1 的权重。训练模式下，dropout "
     "再随机把一些权重置零，并放大其余的权重。"},
    {"The softmax turns each row of scores into weights that are positive and sum to 1. A masked "
     "cell gets exactly 0, unless every key of its row is masked.",
     "softmax 把每一行分数变成为正且和为 1 的权重。被掩蔽的格子恰好为 "
     "0，除非这一行的所有键都被掩蔽。"},
    {"Each output row is a weighted sum of the value rows: the weights of a query say how much of "
     "each value it takes.",
     "每一输出行都是值各行的加权和：一个查询的权重决定它从每个值中取多少。"},
    {"With one head and no output matrix W_o, the weighted sum is the final output.",
     "只有一个头且没有输出矩阵 W_o 时，加权和就是最终输出。"},
    {"The heads' outputs are put side by side, and the output matrix W_o mixes them into the final "
     "output.",
     "各个头的输出并排拼接，再由输出矩阵 W_o 混合成最终输出。"},

    // Formulas.
    {"X: one row per token", "X：每个词元一行"},
    {",   head h takes columns (h\xe2\x88\x92"
     "1)%sd/%d + 1 to h%sd/%d",
     "，   第 h 个头取第 (h\xe2\x88\x92"
     "1)%sd/%d + 1 到第 h%sd/%d 列"},
    {"key j > valid length", "键 j > 有效长度"},
    {"clicked cells", "点选的格子"},
    {" where masked", "，若该格被掩蔽"},
    {" (nothing is)", "（这里一个也没有）"},
    {", else S'[i,j]", "，否则为 S'[i,j]"},
    {",   then dropout p = %s: dropped \xe2\x86\x92 0, kept %s 1/(1 \xe2\x88\x92 p)",
     "，   然后 dropout p = %s：丢弃 \xe2\x86\x92 0，保留 %s 1/(1 \xe2\x88\x92 p)"},

    // The arithmetic behind a cell.
    {"key %d is past the valid length %d of batch item %d",
     "键 %d 超出了有效长度 %d（批量中的样本 %d）"},
    {"causal mask: key %d comes after query %d", "因果掩蔽：键 %d 在查询 %d 之后"},
    {"local window: key %d is more than %d away from query %d",
     "局部窗口：键 %d 与查询的距离超过 %d（查询 %d）"},
    {"masked by hand", "手动掩蔽"},
    {"every key of this row is masked with \xe2\x88\x92\xe2\x88\x9e:",
     "这一行的所有键都被掩蔽为 \xe2\x88\x92\xe2\x88\x9e："},
    {"exp(\xe2\x88\x92\xe2\x88\x9e \xe2\x88\x92 (\xe2\x88\x92\xe2\x88\x9e)) is undefined, so the "
     "weights are NaN",
     "exp(\xe2\x88\x92\xe2\x88\x9e \xe2\x88\x92 (\xe2\x88\x92\xe2\x88\x9e)) 没有定义，所以权重为 "
     "NaN"},
    {"hard attention: the largest score of row %d is at key %d",
     "硬注意力：第 %d 行的最大分数在键 %d"},
    {"every key of this row is masked: all scores are ", "这一行的所有键都被掩蔽：所有分数都是 "},
    {", so the softmax is uniform", "，所以 softmax 是均匀分布"},
    {"row maximum m = ", "行最大值 m = "},
    {"masked (", "被掩蔽（"},
    {"): score ", "）：分数 "},
    {"softmax sum \xce\xa3 exp(M[i,\xc2\xb7] \xe2\x88\x92 m) = ",
     "softmax 的和 \xce\xa3 exp(M[i,\xc2\xb7] \xe2\x88\x92 m) = "},
    {"dropout: u = ", "dropout：u = "},
    {" \xe2\x86\x92 dropped, \xce\xb1 = 0", " \xe2\x86\x92 丢弃，\xce\xb1 = 0"},
    {" \xe2\x89\xa5 p \xe2\x86\x92 kept, scaled by 1/(1 \xe2\x88\x92 ",
     " \xe2\x89\xa5 p \xe2\x86\x92 保留，乘以 1/(1 \xe2\x88\x92 "},
    {"= input ", "= 输入 "},
    {"(positions and columns count from 0 here, as in the formula)",
     "（这里的位置和列与公式一样从 0 开始数）"},
    {"a learned weight (here given or generated from the seed)",
     "一个学习得到的权重（这里是给定的或由种子生成的）"},
    {"%s[%d, %d] (head %d, column %d of the projection)",
     "%s[%d, %d]（第 %d 个头，投影的第 %d 列）"},
    {"no projection: the input value itself, ", "没有投影：就是输入值本身，"},
    {"a zero vector has no direction: the score is 0", "零向量没有方向：分数为 0"},
    {", then ", "，然后 "},
    {"visible: the scaled score is kept, ", "可见：保留缩放后的分数，"},
    {"masked: ", "被掩蔽："},
    {"score \xe2\x86\x90 ", "分数 \xe2\x86\x90 "},
    {"column %d comes from head %d (its column %d)", "第 %d 列来自第 %d 个头（它的第 %d 列）"},
    {"no W_o: the output is the concatenation, ", "没有 W_o：输出就是拼接结果，"},

    // The details panel.
    {"Behind this cell", "这个格子是怎么算出来的"},
    {"Point at a cell of any matrix to see the arithmetic that produced it.",
     "把鼠标指向任意矩阵的格子，就能看到算出它的每一步。"},
    {"query", "查询"},
    {"key", "键"},
    {"queries", "查询"},
    {"keys", "键"},
    {"values", "值"},
    {"positional encoding", "位置编码"},
    {"scores", "分数"},
    {"scaled scores", "缩放后的分数"},
    {"masked scores", "掩蔽后的分数"},
    {"weights", "权重"},
    {"weighted values", "加权求和"},
    {"concatenated heads", "拼接后的头"},
    {"output", "输出"},
    {"Q", "Q"},
    {"K", "K"},
    {"V", "V"},
    {"W_q", "W_q"},
    {"W_k", "W_k"},
    {"W_v", "W_v"},
    {"W_o", "W_o"},

    // The pipeline panel.
    {"Click a cell to mask it", "点击格子来掩蔽它"},
    {"With this on, clicking a cell of the matrix adds it to the masked cells, or removes it.",
     "打开后，点击矩阵中的格子就把它加入或移出手动掩蔽。"},
    {"X (drag a cell to change it)", "X（拖动格子来修改）"},
    {"X: one row per token (drag a cell to change it)", "X：每个词元一行（拖动格子来修改）"},
    {"Positional encoding is added to all three; see the PE tab.",
     "位置编码加到这三者上；见“位置编码”标签页。"},
    {"concat [O_1 | ... | O_H]", "拼接 [O_1 | ... | O_H]"},
    {"...", "..."},

    // The controls.
    {"(your own scenario)", "（你自己的场景）"},
    {"Reset to the preset", "恢复为预设"},
    {"Tokens and sizes", "词元与维度"},
    {"Scoring", "评分函数"},
    {"Masks", "掩蔽"},
    {"Heads and weights", "头与权重"},
    {"More", "更多"},
    {"tokens", "词元数"},
    {"features d", "特征数 d"},
    {"How many numbers describe each token. Queries and keys must have the same size for "
     "dot-product scoring unless learned projections map them to d_model.",
     "描述每个词元用几个数。点积评分要求查询和键的维度相同，除非用学习得到的投影把它们映射到 "
     "d_model。"},
    {"Token names", "词元名称"},
    {"Randomize", "随机生成"},
    {"New random inputs in [-1, 1] and new random weights.",
     "在 [-1, 1] 中随机生成新的输入和新的权重。"},
    {"Shuffle tokens", "打乱词元"},
    {"Reorders the tokens. Without positional encoding or masks, self-attention gives every token "
     "the same output as before, only in the new order. A causal mask, a window or valid lengths "
     "belong to positions, so with one the outputs change: the mask itself tells attention about "
     "order.",
     "重新排列词元。没有位置编码和掩蔽时，自注意力给每个词元的输出与之前相同，只是顺序变了。"
     "因果掩蔽、窗口和有效长度都跟位置绑定，所以用了它们输出就会变：掩蔽本身就把顺序告诉了注意力"
     "。"},
    {"dot product", "点积"},
    {"scaled dot product", "缩放点积"},
    {"additive (Bahdanau)", "加性（Bahdanau）"},
    {"general (bilinear)", "通用（双线性）"},
    {"cosine", "余弦"},
    {"temperature", "温度"},
    {"The scores are divided by T. Large T: flatter weights. Small T: the largest score takes "
     "almost everything.",
     "分数除以 T。T 大：权重更平均。T 小：最大的分数几乎拿走全部权重。"},
    {"valid lengths", "有效长度"},
    {"Padding: a sequence of valid length n keeps keys 1 to n; the keys after them are masked.",
     "填充：有效长度为 n 的序列保留第 1 到第 n 个键，其后的键都被掩蔽。"},
    {"item", "样本"},
    {"one length per query", "每个查询一个长度"},
    {"Step %d of %d: %s", "第 %d 步（共 %d 步）：%s"},
    {"Table view", "表格视图"},
    {"Lesson %d of %d", "第 %d 课（共 %d 课）"},
    {"\xe2\x97\x80 Previous", "\xe2\x97\x80 上一课"},
    {"Next \xe2\x96\xb6", "下一课 \xe2\x96\xb6"},
    {"Previous lesson", "上一课"},
    {"Next lesson", "下一课"},
    {"Close", "关闭"},
    {"rows: %s, columns: %s", "行：%s，列：%s"},
    {"The first %d of %d rows and %d of %d columns.",
     "只列出前 %d 行（共 %d 行）、前 %d 列（共 %d 列）。"},
    {"features", "特征"},
    {"animate step changes", "步骤切换时播放动画"},
    {"numbers in the cells", "格子里显示数值"},
    {"Off: only the colours, for guessing before looking (pointing at a cell still shows "
     "its number and arithmetic).",
     "关掉后只看颜色，先猜再看（鼠标指向格子时仍会显示它的数值和计算过程）。"},
    {"Going one step forward animates what the step does: the scores shrink by 1/\xe2\x88\x9a"
     "d, masked cells fall to the mask value, each row of weights is divided down to sum 1, "
     "the value rows flow into the output. Off when your system asks for reduced motion.",
     "前进一步时用动画展示这一步做了什么：分数按 1/√d "
     "缩小，被掩蔽的格子落到掩蔽值，权重的每一行被除以行和、归一化为 "
     "1，值的各行流入输出。系统要求减少动态效果时自动关闭。"},
    {"Each query row gets its own valid length (valid lengths as a 2-D array, one per batch "
     "item and query), instead of one length for the whole sequence.",
     "每个查询行有自己的有效长度（有效长度写成二维数组，批量中每个样本的每个查询各一个），而不是整"
     "个序"
     "列共用一个长度。"},
    {"and %d more queries (in the scenario JSON)", "另有 %d 个查询（在场景 JSON 中）"},
    {"causal (no peeking ahead)", "因果（不许偷看后面）"},
    {"Each query may only look at keys at or before its own position, as in a decoder.",
     "每个查询只能看它自己及之前位置的键，就像解码器一样。"},
    {"local window", "局部窗口"},
    {"With -1e6 a row whose keys are all masked gets uniform weights; with -infinity its weights "
     "are undefined (NaN).",
     "用 -1e6 时，所有键都被掩蔽的一行得到均匀权重；用负无穷时，它的权重没有定义（NaN）。"},
    {"cells masked by hand", "手动掩蔽的格子"},
    {"clear", "清除"},
    {"learned projections", "学习得到的投影"},
    {"Q = X·W_q, K = X·W_k, V = X·W_v and the output matrix W_o, with seeded random weights. "
     "Without them the inputs are used as they are.",
     "Q = X·W_q、K = X·W_k、V = X·W_v 以及输出矩阵 "
     "W_o，权重由种子随机生成。没有它们时，输入按原样使用。"},
    {"seed", "种子"},
    {"(edited) ", "（已修改）"},
    {"X (queries)", "X（查询）"},
    {"X (keys)", "X（键）"},
    {"X (values)", "X（值）"},
    {"hidden size##dm", "隐藏层大小##dm"},
    {"The scoring network's hidden size: W_q and W_k map queries and keys to this many numbers, "
     "and w_v reads one score out of them.",
     "评分网络的隐藏层大小：W_q 和 W_k 把查询和键映射成这么多个数，w_v 再从中读出一个分数。"},
    {"Heads split d_model into equal blocks of columns; only divisors of d_model work.",
     "多个头把 d_model 分成等宽的列块；只有 d_model 的约数可用。"},
    {"scale each matrix alone", "每个矩阵单独配色"},
    {"Matrices that are compared share one colour scale: S, S' and M; X, Q, K, V and O. "
     "With this on, each matrix is coloured by its own values.",
     "需要相互比较的矩阵共用一套颜色刻度：S、S' 和 M 共用一套；X、Q、K、V 和 O 共用一套。"
     "勾选后，每个矩阵按自己的数值范围配色。"},
    {"Adds sin/cos patterns of the position to every input row (base %g).",
     "给每个输入行加上由位置决定的正弦/余弦图案（底数 %g）。"},
    {"hard attention (argmax)", "硬注意力（argmax）"},
    {"train it straight through", "用直通估计训练"},
    {"hard: the argmax has no gradient. Tick \"train it straight through\" under "
     "\"hard attention\" to train through it.",
     "hard：argmax 没有梯度。勾选“硬注意力”下面的“用直通估计训练”，才能穿过它训练。"},
    {"The argmax has no gradient, so Train cannot learn through it. Straight through, the "
     "forward keeps its one-hot weights and the backward takes the gradient of the softmax "
     "of the same scores in their place.",
     "argmax "
     "没有梯度，所以“训练”无法穿过它学习。直通估计（straight-through）让前向计算保留独热权重，"
     "反向传播则用同一组分数的 softmax 的梯度代替它。"},
    {"dropout (train mode)", "dropout（暂退法，训练模式）"},
    {"dropout seed", "dropout 种子"},
    {"last recompute", "上次重算耗时"},
    {"masked", "已掩蔽"},
    {"Export", "导出"},
    {"Copy as CSV", "复制为 CSV"},
    {"Copy as JSON", "复制为 JSON"},
    {"Save as PNG", "保存为 PNG"},
    {"Could not write", "无法写入"},
    {"Copied, and saved as", "已复制，并保存为"},
    {"Saved as", "已保存为"},
    {"Copied to the clipboard:", "已复制到剪贴板："},
    {"Downloaded", "已下载"},
    {"Opened", "已打开"},
    {"Exporting", "正在导出"},
    {"This file could not be opened.", "无法打开这个文件。"},
    {"Some settings in the address were ignored:", "地址里的一些设置被忽略了："},
    {"Some progress kept in this browser could not be read and was set aside.",
     "这个浏览器里保存的一部分进度无法读取，已被搁置。"},
    {"This browser would not keep your progress.\nWhat you answer now lasts until this page "
     "is closed.",
     "这个浏览器不肯保存你的进度。\n你现在的回答只保留到关闭这个页面为止。"},
    {"This browser would not keep your progress.\nWhat you answer now is kept in the page's "
     "address: bookmark it to come back.",
     "这个浏览器不肯保存你的进度。\n你现在的回答保存在页面的地址里：把它加入书签，以后就能回来。"},
    {"Open a file\xe2\x80\xa6", "打开文件…"},
    {"A scenario (.json), or your own Q, K and V saved by NumPy (.npy, .npz): each array "
     "becomes the field of its name. You can also drop the file on the page.",
     "一个场景文件（.json），或用 NumPy 保存的你自己的 "
     "Q、K、V（.npy、.npz）：每个数组成为同名的字段。"
     "也可以把文件直接拖到页面上。"},
    {"Copy the trace as JSON", "复制整个计算过程（JSON）"},
    {"Copy the scenario as JSON", "复制场景（JSON）"},
    {"Copy as NumPy code", "复制为 NumPy 代码"},
    {"Copy as PyTorch code", "复制为 PyTorch 代码"},
    {"Copy the link", "复制链接"},
    {"Right-click any matrix to export it alone.", "右键点击任意矩阵可单独导出它。"},

    // All heads.
    {"Each head has its own queries and keys, so each can attend to different tokens. Click a head "
     "to focus it.",
     "每个头有自己的查询和键，所以各自可以关注不同的词元。点击一个头来聚焦它。"},
    {"This scenario is too large to keep every head's matrices: only the focused head is computed "
     "in full. Click another head to compute it.",
     "这个场景太大，无法同时保存每个头的矩阵：只完整计算聚焦的头。点击其他头即可计算它。"},

    // Positional encoding.
    {"Self-attention compares tokens by their vectors only, so on its own it cannot tell first "
     "from last. Sinusoidal positional encoding adds a different pattern to each position: column "
     "pairs 2i and 2i+1 are a sine and a cosine whose wavelength grows with i.",
     "自注意力只凭向量比较词元，本身分不清谁先谁后。正弦位置编码给每个位置加上不同的图案：第 2i 和 "
     "2i+1 列是一对正弦和余弦，波长随 i 增大。"},
    {"PE matrix (rows: positions, columns: features)", "PE 矩阵（行：位置，列：特征）"},
    {"position", "位置"},
    {"column", "列"},
    {"Columns as functions of the position", "各列随位置变化的曲线"},
    {"Does word order matter?", "词序重要吗？"},
    {"This experiment needs self-attention (a scenario with x).",
     "这个实验需要自注意力（使用 x 的场景）。"},
    {"Shuffling the tokens and comparing each token's output row before and after:",
     "打乱词元，比较每个词元打乱前后的输出行："},
    {"positions", "位置数"},
    {"features d##pe", "特征数 d##pe"},
    {"The table depends on d: every column's frequency is 1 / %g^(2i/d). Change d here to see "
     "more or fewer frequencies; the scenario keeps its own d.",
     "这张表取决于 d：每一列的频率是 1 / %g^(2i/d)。在这里改变 d 可以看到更多或更少的频率；场景"
     "保持自己的 d。"},
    {"The outlined row (position 0) is what this scenario adds to its input when positional "
     "encoding is on.",
     "框出的这一行（位置 0）就是打开位置编码时这个场景加到输入上的部分。"},
    {"The outlined rows (positions 0 to %d) are what this scenario adds to its inputs when "
     "positional encoding is on.",
     "框出的行（位置 0 到 %d）就是打开位置编码时这个场景加到输入上的部分。"},
    {"This scenario has d = %d, so it adds a different table (the frequencies depend on d).",
     "这个场景的 d = %d，所以它加的是另一张表（频率取决于 d）。"},
    {"without positional encoding, the largest change is", "没有位置编码时，最大变化是"},
    {"with positional encoding, the largest change is", "有位置编码时，最大变化是"},
    {"Here the outputs change even without positional encoding: the causal mask, the window, the "
     "valid lengths or the masked cells belong to positions, so the mask itself tells attention "
     "about order. Turn the masks off to see attention alone, blind to order.",
     "这里即使没有位置编码，输出也变了：因果掩蔽、窗口、有效长度或掩蔽的格子都跟位置绑定，"
     "所以掩蔽本身就把顺序告诉了注意力。关掉掩蔽，就能看到注意力本身对顺序是盲的。"},
    {"Without positions, a token's output depends only on which tokens are present, not where: "
     "attention is blind to order.",
     "没有位置信息时，一个词元的输出只取决于有哪些词元，而不取决于它们在哪里：注意力看不见顺序。"},

    // The 2-D view.
    {"The 2-D view needs queries and keys of exactly two numbers (per head). Load the preset \"A "
     "2-D toy\" or set the features d to 2 without learned projections.",
     "二维视图要求（每个头的）查询和键恰好有两个数。请加载预设“二维玩具”，或在不使用学习投影时把特"
     "征数 d 设为 2。"},
    {"Query", "查询"},
    {"Drag the tip of an arrow. The key arrows get thicker as their weight for the chosen query "
     "grows.",
     "拖动箭头的尖端。键箭头对所选查询的权重越大，就画得越粗。"},
    {"These are the projected vectors; turn off projections and positional encoding to drag them.",
     "这些是投影后的向量；关闭投影和位置编码后才能拖动。"},
    {"weights of", "权重："},
};

}  // namespace

std::vector<std::pair<const char*, const char*>> translations() {
  return std::vector<std::pair<const char*, const char*>>(std::begin(kZh), std::end(kZh));
}

}  // namespace ui
