// The English → Chinese table of the teaching texts: the glossary, the steps, their
// explanations and formulas, the arithmetic behind a cell, positional encoding. The
// interface's table is i18n.cpp's; T() looks both up.
#include <cstddef>
#include <iterator>
#include <utility>

namespace ui::detail {

// English text (the key, exactly as written in the code) → simplified Chinese.
extern const std::pair<const char*, const char*> kZhTeaching[] = {
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
    // Attention over a picture.
    {"Picture", "图片"},
    {"Query:", "查询："},
    {"Click the patch you predict (or its button in the lesson). The weights show over the "
     "picture once the lesson's questions up to here are answered.",
     "点击你预测的小块（或课程里它的按钮）。回答完到这里为止的问题后，权重就会画在图片上。"},
    {"A picture of %d \xc3\x97 %d pixels in %d patches: the keys are its patches, set in its "
     "JSON.",
     "一张 %d \xc3\x97 %d 像素的图片，分成 %d 个小块：键就是这些小块，由它的 JSON 设定。"},
    {"red", "红"},
    {"green", "绿"},
    {"blue", "蓝"},
    {"edges", "边缘"},
    {"; weight %.3f", "；权重 %.3f"},
    {"Each patch of the picture is a key, described by four numbers: how red, green and blue "
     "it is and how many edges it has (writing, windows and lane marks have many). A query "
     "says what to look for in the same four numbers. Its attention weights are drawn over "
     "the picture: the patches it looks at stay bright, the others are dimmed.",
     "图片的每一小块都是一个键，用四个数描述：它有多红、多绿、多蓝，以及边缘有多少（文字、窗户和车"
     "道线的边缘都很多）。"
     "查询用同样四个数说明要找什么。它的注意力权重画在图片上：它关注的小块保持明亮，其余的变暗。"},
    {"The weights show over the picture once the lesson's questions up to here are answered.",
     "回答完到这里为止的问题后，权重就会画在图片上。"},
    {"\"%s\" looks most at %s (row and column of patches).",
     "“%s”最关注的是 %s（r 为小块的行，c 为列）。"},
    {"Picture's query", "图片的查询"},
    {"Curve's query", "曲线的查询"},
    {"2-D view's query", "二维视图的查询"},
    // Stacked layers.
    {"Layer", "层"},
    {"Layers", "各层"},
    {"Layer %d", "第 %d 层"},
    {"Show layer %d", "显示第 %d 层"},
    {"A question on this step waits on layer %d.", "这一步还有一个问题在第 %d 层等你。"},
    {"%d questions on this step wait on layer %d.", "这一步还有 %d 个问题在第 %d 层等你。"},
    {"Layer %d of %d", "第 %d 层（共 %d 层）"},
    {"Layer %d adds", "第 %d 层加上的"},
    {"The stream h\xe2\x82\x80: the inputs (with their positions)",
     "残差流 h\xe2\x82\x80：输入（含位置信息）"},
    {"next token", "下一个词元"},
    // The table view's descriptions of the views (model/views.cpp).
    {"(the first %d of %d features)", "（前 %d 个特征，共 %d 个）"},
    // All heads, the positional-encoding explorer and the 2-D view (model/views_matrices.cpp).
    {"Each head's %s.", "每个头的%s。"},
    {"Head %d", "第 %d 个头"},
    {"Head %d is focused: the step by step view shows it.",
     "第 %d 个头是焦点：逐步演示视图显示的就是它。"},
    {"Head %d: %s", "第 %d 个头：%s"},
    {"Plotted over the positions: %s.", "曲线画出的是：%s。"},
    {"Each query and each key is an arrow from the origin: its first number across, its "
     "second up. The more weight the chosen query gives a key, the thicker the key's arrow.",
     "每个查询和每个键都是从原点出发的箭头：第一个数是横坐标，第二个数是纵坐标。"
     "选中的查询给某个键的权重越大，这个键的箭头就越粗。"},
    {"The weights show here once the lesson's questions about weights up to here are "
     "answered.",
     "回答完本课到这里为止关于权重的问题后，权重才会显示在这里。"},
    {"%s gives the most weight to %s (%.3f).", "%s 给 %s 的权重最大（%.3f）。"},
    {"The queries (arrows)", "各个查询（箭头）"},
    {"The keys (arrows) and the weights of query %s", "各个键（箭头）和查询 %s 给它们的权重"},
    {"The output of %s (the blue dot): ?", "%s 的输出（蓝色圆点）：?"},
    {"The output of %s (the blue dot): (%.2f, %.2f).", "%s 的输出（蓝色圆点）：(%.2f, %.2f)。"},
    {"Layer %d, head %d: attention weights (rows queries, columns keys)",
     "第 %d 层，第 %d 个头：注意力权重（行是查询，列是键）"},
    {"The alignment: each written word's attention weights over the source words",
     "对齐：每个写出的词对各个源词的注意力权重"},
    {"The heads' weights show once the lesson's questions about weights up to here are "
     "answered.",
     "回答完本课到这里为止关于权重的问题后，各个头的权重才会显示。"},
    {"The next token", "下一个词元"},
    {"The patches (row and column): their colour, their edges and the query's weight",
     "各个小块（行和列）：它们的颜色、边缘数量和查询给它们的权重"},
    {"The points (keys) and the weights of query %s", "各个点（键）和查询 %s 给它们的权重"},
    {"The predictions: each query's x and the value it predicts",
     "预测：每个查询的 x 和它预测的值"},
    {"The stream h%s = h%s + what layer %d adds", "残差流 h%s = h%s + 第 %d 层加上的"},
    {"The two most likely next tokens at each position", "每个位置上最可能的两个下一个词元"},
    {"most likely", "最可能"},
    {"next most likely", "其次可能"},
    {"patch", "小块"},
    {"prediction", "预测值"},
    {"probability", "概率"},
    {"sentence", "句子"},
    {"sentence weight b", "句子权重 b"},
    {"weight", "权重"},
    {"words and their weights a", "各个词和它们的权重 a"},
    {"(How the keys read the layers below is shown for dot-product scoring, whose scores split "
     "into a sum.)",
     "（键如何读取下面各层写下的内容，只对点积评分显示：它的分数可以拆成两项之和。）"},
    {"How layer %d reads what the layers below wrote: each head's scaled scores split in two. "
     "A key is h%s \xc2\xb7 W_k and h%s = h\xe2\x82\x80 + what the layers below added, so "
     "each score is a sum: the part from the inputs' own rows (left) and the part from what the "
     "layers below added (right).",
     "第 %d 层如何读取下面各层写下的内容：把每个头缩放后的分数拆成两部分。键是 h%s \xc2\xb7 W_k，"
     "而 h%s = h\xe2\x82\x80 + "
     "下面各层加上的内容，所以每个分数都是两项之和：来自输入本身各行的部分（左），"
     "和来自下面各层所加内容的部分（右）。"},
    {"head %d: scores from h\xe2\x82\x80", "头 %d：来自 h\xe2\x82\x80 的分数"},
    {"head %d: scores from layers below", "头 %d：来自下面各层的分数"},
    {"The next token: each position's probabilities (softmax of h_L \xc2\xb7 unembed).",
     "下一个词元：每个位置给出的概率（h_L \xc2\xb7 unembed 的 softmax）。"},
    {"Each layer reads the stream, attends, and adds what it found to the stream: the next "
     "layer reads the sum. Rows are layers, one heatmap per head (its attention weights); "
     "click a head to open it step by step.",
     "每一层读取残差流、做注意力，再把找到的内容加回残差流：下一层读到的是这个和。每一行是一层，"
     "每个头一张热图（它的注意力权重）；点击一个头，可在逐步视图中打开它。"},
    {"A stack adds each layer's output to the stream it read: layer l reads the inputs plus "
     "what layers 1 to l\xe2\x88\x92"
     "1 wrote. The steps show one layer at a time.",
     "堆叠时，每一层把自己的输出加回它读到的残差流：第 l 层读到的是输入，加上第 1 到 l−1 层写进去的"
     "内容。逐步视图一次显示一层。"},
    {"A stack of %d layers: its tokens, sizes and inputs are set in its JSON.",
     "这是 %d 层的堆叠：它的词元、尺寸和输入都写在它的 JSON 里。"},
    {"A stack's inputs are not edited here: change x in its JSON.",
     "堆叠的输入不在这里修改：请在它的 JSON 里改 x。"},
    {"A layer's inputs are what the layers below wrote: they change when the layers below do.",
     "一层的输入是下面各层写出的结果：下面的层变了，它才会变。"},
    {"This experiment runs on one layer: open a scenario without \"layers\".",
     "这个实验只针对单层：请打开一个没有 \"layers\" 的场景。"},
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
    {"A Gaussian kernel scores each pair by distance: minus the squared distance between query "
     "and key over 2σ², 0 when they are equal and lower the farther apart they are. The width σ "
     "says how far a query reaches, and training learns it; with the softmax this is "
     "Nadaraya-Watson kernel regression.",
     "高斯核按距离给每一对打分：查询与键之间距离的平方除以 2σ² 再取负，两者相同时为 "
     "0，相距越远越低。宽度 σ 决定一个查询能看多远，训练会学到它；再经过 softmax，这就是 "
     "Nadaraya-Watson 核回归。"},
    {"Gaussian kernel", "高斯核"},
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

};
extern const size_t kZhTeachingCount = std::size(kZhTeaching);

}  // namespace ui::detail
