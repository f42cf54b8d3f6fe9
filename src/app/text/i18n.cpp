// The UI's current language, the English → Chinese table of the interface's texts (the frame,
// panels, controls, training), and T(), which looks a text up in it and in the teaching texts'
// table (i18n_teaching.cpp).
#include "app/text/i18n.h"

#include <cstddef>
#include <iterator>
#include <string_view>
#include <unordered_map>

namespace ui {

namespace detail {
extern const std::pair<const char*, const char*> kZhTeaching[];
extern const size_t kZhTeachingCount;
}  // namespace detail

namespace {

Lang g_lang = Lang::kEn;

// English text (the key, exactly as written in the code) → simplified Chinese.
const std::pair<const char*, const char*> kZh[] = {
    // The frame and the top bar.
    {"Attention Playground", "注意力游乐场"},
    {"Step by step", "逐步演示"},
    {"All heads", "所有头"},
    {"Positional encoding", "位置编码"},
    {"2-D view", "二维视图"},
    // The Decoder tab of a seq2seq model (panel_decoder.cpp) and its control.
    {"Decoder", "解码器"},
    {"Decoder's word", "解码器的词"},
    {"Previous word", "上一个词"},
    {"Next word", "下一个词"},
    {"Word %d of %d", "第 %d 个词（共 %d 个）"},
    {"Random start", "随机初始化"},
    {"train the decoder (play)", "训练解码器（播放）"},
    {"play the decoder's words", "逐词播放解码过程"},
    {"the decoder's random start", "解码器的随机初始化"},
    {"Adam on the toy language's sentence pairs, a few steps a frame, pausing every 1500.",
     "用 Adam 在玩具语言的句对上训练，每帧几步，每 1500 步暂停一次。"},
    {"Every weight of the encoder and decoder drawn again from the seed.",
     "编码器和解码器的每个权重都从种子重新抽取。"},
    {"Pause training", "暂停训练"},
    {"Train: Adam on %d sentence pairs a step, pausing every %d steps.",
     "训练：每步用 Adam 学习 %d 个句对，每 %d 步暂停一次。"},
    {"Step %d, loss %.3g", "第 %d 步，损失 %.3g"},
    {"Only a GRU encoder-decoder trains here.", "这里只能训练 GRU 编码器－解码器。"},
    {"Training here learns from the toy language's sentence pairs: this model's words or "
     "sizes are not the toy language's.",
     "这里的训练只使用玩具语言的句对：这个模型的词表或尺寸与玩具语言不同。"},
    {"Source sentence:", "源句子："},
    {"Written so far:", "已写出："},
    {"written", "写出的词"},
    {"source", "源词"},
    {"The decoder writes the translation one word at a time: the query of each word attends "
     "over the source words (a new row of the alignment), then its GRU writes the word.",
     "解码器一次写出译文的一个词：每个词的查询对源句的词分配注意力（对齐矩阵多出一行），"
     "然后它的 GRU 写出这个词。"},
    {"Word %d: its row of the alignment shows once the lesson's question about it is answered.",
     "第 %d 个词：回答了课程中关于它的问题之后，才显示它那一行对齐权重。"},
    {"Word %d: the query s%s put %.2f of its weight on \"%s\"; the context c%s and the "
     "previous word \"%s\" went into the GRU, which wrote \"%s\" (probability %.2f).",
     "第 %d 个词：查询 s%s 把 %.2f 的权重放在“%s”上；上下文 c%s 和上一个词“%s”送入 GRU，"
     "它写出了“%s”（概率 %.2f）。"},
    {"Word %d: the query s%s put %.2f of its weight on \"%s\"; the context c%s and the "
     "previous word \"%s\" went into the GRU; the given word is \"%s\" (the model's "
     "probability %.2f).",
     "第 %d 个词：查询 s%s 把 %.2f 的权重放在“%s”上；上下文 c%s 和上一个词“%s”送入 GRU；"
     "给定的词是“%s”（模型给它的概率是 %.2f）。"},
    {" The next most likely word: \"%s\" (%.2f).", "可能性第二的词：“%s”（%.2f）。"},
    // The Document tab of a hierarchy scenario (panel_hierarchy.cpp) and its control.
    {"Document", "文档"},
    {"Document's question", "文档的问题"},
    {"Question:", "问题："},
    {"Attention at two levels. Inside each sentence a word query weighs the words (the shade "
     "of each box: darker is more) and pools them into the sentence's vector. The question "
     "then weighs the sentence vectors (the bars), and their weighted sum o is the document's "
     "vector: what this question reads of the text.",
     "两层注意力。在每个句子内部，一个词查询给各个词分配权重（方块的深浅：越深越多），"
     "把它们汇成这个句子的向量。然后问题给这些句向量分配权重（条形），它们的加权和 o 就是"
     "文档向量：这个问题从文中读到的内容。"},
    {"For \"%s\", the sentence weights show once the lesson's question about them is "
     "answered. The word weights are already here: use them to predict.",
     "对于“%s”，回答了课程中关于句子权重的问题之后，才显示句子权重。词的权重已经在下面："
     "可以用它们来预测。"},
    {"For \"%s\", the sentence \"%s\" gets %.2f of the weight; inside it, \"%s\" and "
     "\"%s\" get %.2f each.",
     "对于“%s”，句子“%s”得到 %.2f 的权重；在这个句子里，“%s”和“%s”各得 %.2f。"},
    {"For \"%s\", the sentence \"%s\" gets %.2f of the weight; inside it, \"%s\" gets "
     "the most, %.2f.",
     "对于“%s”，句子“%s”得到 %.2f 的权重；在这个句子里，“%s”得到的最多，%.2f。"},
    {"Sentence weight b, then each word's weight a", "句子权重 b，然后是每个词的权重 a"},
    {"Shows once the lesson's question about it is answered.",
     "回答了课程中关于它的问题之后才显示。"},
    {"\"%s\" gives the sentence \"%s\" the weight b = %.3f.", "“%s”给句子“%s”的权重 b = %.3f。"},
    {"\"%s\": the word query gives it the weight a = %.3f in the sentence \"%s\".",
     "“%s”：词查询给它的权重 a = %.3f（在句子“%s”里）。"},
    {"In this lesson", "本课提示"},
    {"(written for the lesson as it was loaded: Reset to the preset to see its numbers again)",
     "（这条提示针对课程刚载入时的数据：点“恢复为预设”可以再看到那些数字）"},
    {"Notes on steps", "有提示的步骤"},
    {"Questions on steps", "有提问的步骤"},
    {"About this lesson", "关于本课"},
    {"Go to step %d", "转到第 %d 步"},
    // The table view's training line and its announcements (api_accessible.cpp).
    {"step %d", "第 %d 步"},
    {"Training started: %s.", "训练开始：%s。"},
    {"Training: %s.", "训练中：%s。"},
    {"Training paused: %s.", "训练已暂停：%s。"},
    {"Training converged and paused by itself: %s.", "训练已收敛，自动暂停：%s。"},
    {"the drop: step %d", "骤降：第 %d 步"},
    {"Training paused by itself at the steps the lesson's weights were trained for: %s.",
     "训练到了本课权重当初训练的步数，自动暂停：%s。"},
    {"The loss fell steeply at step %d.", "损失在第 %d 步骤降。"},
    {"Paused by itself at step %d: the lesson's weights were trained for as many. Train goes "
     "on from here.",
     "已在第 %d 步自动暂停：本课的权重当初就训练了这么多步。再按“训练”会从这里继续。"},
    // Training (panel_controls.cpp).
    {"Train", "训练"},
    {"%d of %d", "第 %d 个，共 %d 个"},
    {"Step##train", "单步##train"},
    {"Reset##train", "重置##train"},
    {"smaller##loss_plot", "缩小##loss_plot"},
    {"(Written for untransposed matrices: its rows are the columns here.)",
     "（按未转置的矩阵写：它说的行，这里是列。）"},
    {"The mean squared error of the %d predictions is %.3f (σ = %.3g).",
     "这 %d 个预测的均方误差是 %.3f（σ = %.3g）。"},
    {"the points", "数据点"},
    {"the true function", "真实函数"},
    {"the estimate from all the points", "用全部数据点的估计"},
    {"each point predicted from the others", "每个点由其余点预测"},
    {"It waits for the question on step %d: %s", "它在等第 %d 步的问题：%s"},
    {"This question is about head %d, and there are %d heads now.",
     "这道题问的是第 %d 个头，现在只有 %d 个头。"},
    {"This question is about example %d, and there are %d examples now.",
     "这道题问的是第 %d 个样例，现在只有 %d 个样例。"},
    {"This question is about row %d, the decoder's word %d, and its translation has %d words "
     "now.",
     "这道题问的是第 %d 行，即解码器写出的第 %d 个词，而它现在的译文只有 %d 个词。"},
    {"This question is about row %d, and there are %d rows now.",
     "这道题问的是第 %d 行，现在只有 %d 行。"},
    {"This question is about column %d, which is not there now.",
     "这道题问的是第 %d 列，现在没有这一列。"},
    {"Train on until the decoder writes it, or Reset the lesson, to answer it.",
     "继续训练到解码器写出这个词，或者重置本课，就能作答。"},
    {"It comes back with its cell; Reset brings the lesson back.",
     "那个格子回来，这道题就回来；重置可恢复本课。"},
    {"large loss plot", "放大损失曲线"},
    {"Draws the loss plot across the middle of the screen and taller, to read off its steps or "
     "to show a class.",
     "把损失曲线画在屏幕中间，更宽更高，便于读出步数，也便于给全班看。"},
    {"The loss plot is drawn large in the middle.", "损失曲线已放大，画在中间。"},
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
    {"Type one number, such as 0.25 or -1.5.", "请输入一个数，例如 0.25 或 -1.5。"},
    {"You answered this one right before.", "你之前答对过这一题。"},
    {"You tried this one before.", "你之前做过这一题。"},
    {"The largest weight is on \"%s\" (%.2f).", "最大的权重落在“%s”上（%.2f）。"},
    {"The answer is %.3f; you said %.3g.", "答案是 %.3f；你的答案是 %.3g。"},
    {"The answer is %.3f.", "答案是 %.3f。"},
    {" You chose \"%s\": its weight is %.2f, number %d of %d from the top.",
     "你选的是“%s”：它的权重是 %.2f，从大到小排第 %d（共 %d 个）。"},
    {" You chose \"%s\": its weight is %.2f, tied with %d other keys at number %d of %d from "
     "the top.",
     "你选的是“%s”：它的权重是 %.2f，和另外 %d 个键并列，从大到小排第 %d（共 %d 个）。"},
    {" You chose \"%s\": it is masked for this query, so its weight is 0.",
     "你选的是“%s”：它对这个查询是被掩蔽的，所以权重为 0。"},
    {"%s (position %d)", "%s（位置 %d）"},
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
    {"Skip to the settings", "跳到设置"},
    {"rows: %s, columns: %s", "行：%s，列：%s"},
    {"The first %d of %d rows and %d of %d columns.",
     "只列出前 %d 行（共 %d 行）、前 %d 列（共 %d 列）。"},
    {"features", "特征"},
    {"animate step changes", "步骤切换时播放动画"},
    {"numbers in the cells", "格子里显示数值"},
    {"Off: only the colours, for guessing before looking (pointing at a cell still shows "
     "its number and arithmetic).",
     "关掉后只看颜色，先猜再看（鼠标指向格子时仍会显示它的数值和计算过程）。"},
    // The transpose view option (the column convention: S = KᵀQ, O = V·A) and its formulas.
    {"transpose matrices", "转置矩阵"},
    {"Draws every matrix of the step view transposed, tokens along the columns, with the same "
     "numbers, and writes the formulas in the column convention (S = K\xe1\xb5\x80Q, O = "
     "V\xc2\xb7"
     "A), as some courses teach them. Exports stay in the row convention.",
     "把逐步演示中的每个矩阵转置后画出（词元排成列），数值不变，公式也改用列的写法（S = "
     "K\xe1\xb5\x80Q，O = V\xc2\xb7"
     "A），和一些课程的写法一致。导出的数据仍按行的写法。"},
    {"X: one column per token", "X：每个词元一列"},
    {"X: one column per token (drag a cell to change it)", "X：每个词元一列（拖动格子来修改）"},
    {",   head h takes rows (h\xe2\x88\x92"
     "1)%sd/%d + 1 to h%sd/%d",
     "，   第 h 个头取第 (h\xe2\x88\x92"
     "1)%sd/%d + 1 到第 h%sd/%d 行"},
    {", else S'[j,i]", "，否则为 S'[j,i]"},
    {",   softmax over each column", "，   对每一列做 softmax"},
    {"Each column is one token's vector. Positional encoding adds a different pattern of sines "
     "and cosines to every position, so equal tokens at different places become different "
     "vectors.",
     "每一列是一个词元的向量。位置编码给每个位置加上一组不同的正弦和余弦，所以相同的词元放在不同位"
     "置就成了不同的向量。"},
    {"Each column is one token's vector. Attention will compare every query column with every "
     "key column, then mix the value columns.",
     "每一列是一个词元的向量。注意力会把每个查询列和每个键列做比较，再把值的各列混合起来。"},
    {"The softmax turns each column of scores (one query's) into weights that are positive and "
     "sum to 1. A masked cell gets exactly 0, unless every key of its column is masked.",
     "softmax 把每一列分数（一个查询的）变成为正且和为 1 的权重。被掩蔽的格子恰好为 "
     "0，除非这一列的所有键都被掩蔽。"},
    {"Each output column is a weighted sum of the value columns: the weights of a query (its "
     "column of A) say how much of each value it takes.",
     "每一输出列都是值各列的加权和：一个查询的权重（A 中它的那一列）决定它从每个值中取多少。"},
    {"Learned matrices turn each input column into a query (what it looks for), a key (what it "
     "offers) and a value (what it passes on). With several heads, each head takes its own block "
     "of rows.",
     "学到的矩阵把每个输入列变成一个查询（它要找什么）、一个键（它提供什么）和一个值（它传递什么）"
     "。"
     "有多个头时，每个头取自己的一段行。"},
    {"The heads' outputs are stacked one above another, and the output matrix, drawn as "
     "W_o\xe1\xb5\x80, mixes them into the final output.",
     "各个头的输出上下叠在一起，再由输出矩阵（画作 W_o\xe1\xb5\x80）混合成最终输出。"},
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
    {"with Gumbel noise", "加上 Gumbel 噪声"},
    {"kernel width \xcf\x83", "核宽度 \xcf\x83"},
    {"Each key's weight falls with its distance from the query as a bell curve of this width: "
     "small \xcf\x83, only the nearest keys count (a wiggly fit); large, many keys share the "
     "weight (a smooth one).",
     "每个键的权重随它与查询的距离按这个宽度的钟形曲线下降：\xcf\x83 "
     "小，只有最近的几个键起作用（拟合曲线弯弯曲曲）；"
     "\xcf\x83 大，许多键分享权重（拟合曲线平滑）。"},
    // The Curve tab (a regression).
    {"Curve", "曲线"},
    {"Each key is a point: its first number across, its value up. Each query predicts a value "
     "at its own first number: the weighted average of the points' values, with the weights "
     "its scores give (the bars below the points). The rings are those predictions; the "
     "orange line is the same average at every x, from all the points.",
     "每个键是一个点：横坐标是它的第一个数，纵坐标是它的值。每个查询在它自己的第一个数处预测一个值"
     "："
     "各点的值按它的分数给出的权重求加权平均（点下方的竖条就是权重）。圆环就是这些预测；"
     "橙线是在每个 x 处用全部数据点求的同样的平均。"},
    {"The predictions and weights show here once the lesson's questions up to here are "
     "answered.",
     "回答完到这里为止的问题后，这里会显示预测和权重。"},
    {"Query %s (x = %.2f) predicts %.2f; its largest weight, %.2f, is on the point at x = %.2f.",
     "查询 %s（x = %.2f）预测 %.2f；它最大的权重 %.2f 落在 x = %.2f 的点上。"},
    {"Gumbel \xcf\x84", "Gumbel \xcf\x84"},
    {"soft (no argmax)", "软的（不取 argmax）"},
    {"Gumbel-softmax: random noise, drawn from the seed, is added to the scores before the "
     "argmax, so a key that is nearly the best is sometimes picked and learns too. The "
     "backward takes the gradient of softmax((scores + noise) / \xcf\x84). Each training "
     "step draws new noise.",
     "Gumbel-softmax：在取 argmax "
     "之前，把由种子生成的随机噪声加到分数上，这样几乎最好的键有时也会被选中，"
     "也能学到东西。反向传播取 softmax((分数 + 噪声) / \xcf\x84) "
     "的梯度。每一步训练都抽取新的噪声。"},
    {"Divides the noisy scores in the backward's softmax (and in the forward when soft): "
     "small \xcf\x84, close to the argmax; large, close to uniform.",
     "在反向传播的 softmax 中（软的时候也在前向中）除带噪声的分数：\xcf\x84 小，接近 argmax；"
     "\xcf\x84 大，接近均匀。"},
    {"The forward's weights are softmax((scores + noise) / \xcf\x84) themselves, not their "
     "argmax: what the noise does without the one-hot.",
     "前向的权重就是 softmax((分数 + 噪声) / \xcf\x84) 本身，而不是它的 "
     "argmax：看看没有独热时噪声起什么作用。"},
    {"Gumbel-softmax: random noise, the same for a given seed, is added to every score a "
     "query may see, and the softmax of the noisy scores divided by \xcf\x84 gives the "
     "weights. Small \xcf\x84 makes them nearly one-hot; each training step draws new noise.",
     "Gumbel-softmax：给查询能看到的每个分数加上随机噪声（种子相同，噪声就相同），带噪声的分数除以 "
     "\xcf\x84 "
     "再做 softmax，得到权重。\xcf\x84 越小，权重越接近独热；每一步训练都抽取新的噪声。"},
    {"Hard attention with Gumbel noise: random noise, the same for a given seed, is added to "
     "every score a query may see, and all the weight goes to the best noisy score, so a key "
     "that is nearly the best is sometimes picked. Training passes the gradient of the softmax "
     "of the noisy scores divided by \xcf\x84 through the one-hot rows, with new noise each "
     "step.",
     "加 Gumbel "
     "噪声的硬注意力：给查询能看到的每个分数加上随机噪声（种子相同，噪声就相同），全部权重给带噪声"
     "分数最高的键，"
     "所以几乎最好的键有时也会被选中。训练时，带噪声的分数除以 \xcf\x84 后的 softmax "
     "的梯度穿过独热的行，"
     "每一步都用新的噪声。"},
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
    {"This page was opened as a course, but no course platform answered: your answers are kept "
     "in this browser only.",
     "这个页面是作为课程打开的，但没有课程平台应答：你的答案只保存在这个浏览器里。"},
    {"The course platform did not open a record of this session: what you answer here is not "
     "in its gradebook, and lasts until this page is closed.",
     "课程平台没有为这次学习建立记录：你在这里的回答不会进入它的成绩册，关闭页面后就不再保留。"},
    {"The course platform stopped taking this page's reports: what you answer now may not "
     "reach its gradebook.",
     "课程平台不再接收这个页面的报告：你现在的回答可能不会进入它的成绩册。"},
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
    // Export → the course package dialog (web/js/coursepack.js).
    {"Course package\xe2\x80\xa6", "课程包…"},
    {"Right-click any matrix to export it alone.", "右键点击任意矩阵可单独导出它。"},

    // All heads.
    {"Each head has its own queries and keys, so each can attend to different tokens. Click a head "
     "to focus it.",
     "每个头有自己的查询和键，所以各自可以关注不同的词元。点击一个头来聚焦它。"},
    {"This scenario is too large to keep every head's matrices: only the focused head is computed "
     "in full. Click another head to compute it.",
     "这个场景太大，无法同时保存每个头的矩阵：只完整计算聚焦的头。点击其他头即可计算它。"},

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
    // A scenario read from the learner's NumPy file (api.cpp, open_arrays).
    {"Your data: %s", "你的数据：%s"},
    {"Read from %s: %s.", "读自 %s：%s。"},
    {" The rest is as in the lesson before.", "其余的沿用上一课。"},
    {" The rest is as in the lesson before, but for its token labels, lengths and masked cells, "
     "which do not fit.",
     "其余的沿用上一课，但词元标签、有效长度和单独掩蔽的格子与新的大小不符，未保留。"},
    {" The scoring, temperature and masks are as in the lesson before.",
     "评分函数、温度和掩蔽沿用上一课。"},
};

}  // namespace

std::vector<std::pair<const char*, const char*>> translations() {
  std::vector<std::pair<const char*, const char*>> all(std::begin(kZh), std::end(kZh));
  all.insert(all.end(), detail::kZhTeaching, detail::kZhTeaching + detail::kZhTeachingCount);
  return all;
}

void set_language(Lang lang) {
  g_lang = lang;
}
Lang language() {
  return g_lang;
}
const char* language_code() {
  return g_lang == Lang::kZh ? "zh" : "en";
}

const char* T(const char* english) {
  return T(g_lang, english);
}

const char* T(Lang lang, const char* english) {
  if (lang == Lang::kEn) return english;
  static const std::unordered_map<std::string_view, const char*> table = [] {
    std::unordered_map<std::string_view, const char*> t;
    for (const auto& [en, zh] : translations()) t.emplace(en, zh);
    return t;
  }();
  const auto it = table.find(english);
  return it == table.end() ? english : it->second;
}

}  // namespace ui
