# Modeled on aymericdamien/TensorFlow-Examples/examples/2_BasicModels/word2vec.py (skip-gram with random_normal embeddings and NCE weights of one shape, nce_loss, plain gradient descent, no graph seed); written for symgrad's tests, not copied.
# Data: a made-up corpus of 56 words drawn from a small word grammar in place of text8; 600 steps,
# not 3 million; 16 negative samples, not 64 (the vocabulary is smaller than 64).
# The program sets no seed, as the tutorial does: the embeddings and the NCE weights must start
# as two independent draws, and nce_loss must sample its negatives afresh.
import collections

import numpy as np

import symgrad as tf

learning_rate = 0.1
batch_size = 128
num_steps = 600
embedding_size = 200
skip_window = 3
num_skips = 2
num_sampled = 16

# Sentences from topics of related words, so that neighbours in the text share a topic.
topics = [
    "king queen prince crown throne castle royal palace",
    "dog cat mouse horse cow sheep goat pig",
    "red green blue yellow white black orange purple",
    "one two three four five six seven eight",
    "run walk jump swim climb ride drive fly",
    "bread cheese apple milk rice fish meat soup",
]
topics = [t.split() for t in topics]
glue = ["the", "a", "of", "and", "to", "in", "is", "was"]
draw = np.random.RandomState(5)
text_words = []
for _ in range(3000):
    topic = topics[draw.randint(len(topics))]
    for _ in range(6):
        text_words.append(topic[draw.randint(len(topic))])
        if draw.rand() < 0.3:
            text_words.append(glue[draw.randint(len(glue))])

count = [("UNK", -1)] + collections.Counter(text_words).most_common()
word2id = {word: i for i, (word, _) in enumerate(count)}
vocabulary_size = len(count)
data = [word2id[w] for w in text_words]

data_index = 0
pick = np.random.RandomState(9)


def next_batch():
    global data_index
    span = 2 * skip_window + 1
    batch = np.zeros(batch_size, dtype=np.int32)
    labels = np.zeros((batch_size, 1), dtype=np.int32)
    for i in range(batch_size // num_skips):
        if data_index + span > len(data):
            data_index = 0
        window = data[data_index : data_index + span]
        others = [w for w in range(span) if w != skip_window]
        for j, k in enumerate(pick.choice(others, num_skips, replace=False)):
            batch[i * num_skips + j] = window[skip_window]
            labels[i * num_skips + j, 0] = window[k]
        data_index += 1
    return batch, labels


X = tf.placeholder(tf.int32, shape=[None])
Y = tf.placeholder(tf.int32, shape=[None, 1])

embedding = tf.Variable(tf.random_normal([vocabulary_size, embedding_size]))
X_embed = tf.nn.embedding_lookup(embedding, X)
nce_weights = tf.Variable(tf.random_normal([vocabulary_size, embedding_size]))
nce_biases = tf.Variable(tf.zeros([vocabulary_size]))

loss_op = tf.reduce_mean(
    tf.nn.nce_loss(
        weights=nce_weights,
        biases=nce_biases,
        labels=Y,
        inputs=X_embed,
        num_sampled=num_sampled,
        num_classes=vocabulary_size,
    )
)
train_op = tf.train.GradientDescentOptimizer(learning_rate).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    start_embedding, start_weights = sess.run([embedding, nce_weights])
    losses = []
    for step in range(1, num_steps + 1):
        batch_x, batch_y = next_batch()
        _, loss = sess.run([train_op, loss_op], feed_dict={X: batch_x, Y: batch_y})
        losses.append(loss)
        if step % 200 == 0 or step == 1:
            print("Step", step, "Loss=", f"{loss:.4f}")

first_loss = float(losses[0])
final_loss = float(np.mean(losses[-50:]))
# Two draws of one shape: independent standard normals correlate by about 0.
start_correlation = float(np.corrcoef(start_embedding.ravel(), start_weights.ravel())[0, 1])
print("first loss", first_loss, "final loss", final_loss, "correlation", start_correlation)
