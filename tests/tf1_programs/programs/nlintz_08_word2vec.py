# Modeled on nlintz/TensorFlow-Tutorials/08_word2vec.py (skip-gram embeddings: random_uniform table, embedding_lookup, nce_loss, Adam); written for symgrad's tests, not copied.
# Data: a tiny made-up corpus of short sentences, as in the original.
from collections import Counter

import numpy as np

import symgrad as tf

tf.set_random_seed(777)

corpus = [
    "the cat sat on the mat",
    "the dog sat on the rug",
    "a cat chased a mouse",
    "a dog chased a cat",
    "the mouse ate the cheese",
    "cats and dogs are pets",
    "the queen and the king rule",
    "a king wears a crown",
    "the queen wears a crown",
    "dogs like bones and cats like fish",
]
words = " ".join(corpus).split()
vocabulary = [w for w, _ in Counter(words).most_common()]
index = {w: i for i, w in enumerate(vocabulary)}
vocab_size = len(vocabulary)

# (centre word, neighbour) pairs from a window of one word on each side, within each sentence.
pairs = []
for sentence in corpus:
    ids = [index[w] for w in sentence.split()]
    for pos, centre in enumerate(ids):
        for near in (pos - 1, pos + 1):
            if 0 <= near < len(ids):
                pairs.append((centre, ids[near]))
pairs = np.array(pairs, dtype=np.int32)

batch_size = 20
embedding_size = 8
num_sampled = 6

train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])

embeddings = tf.Variable(tf.random_uniform([vocab_size, embedding_size], -1.0, 1.0))
embed = tf.nn.embedding_lookup(embeddings, train_inputs)
nce_weights = tf.Variable(tf.random_uniform([vocab_size, embedding_size], -1.0, 1.0))
nce_biases = tf.Variable(tf.zeros([vocab_size]))

loss = tf.reduce_mean(
    tf.nn.nce_loss(nce_weights, nce_biases, train_labels, embed, num_sampled, vocab_size)
)
train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

rng = np.random.RandomState(1)
losses = []
with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for step in range(300):
        chosen = pairs[rng.choice(len(pairs), batch_size, replace=False)]
        feed = {train_inputs: chosen[:, 0], train_labels: chosen[:, 1:]}
        _, loss_val = sess.run([train_op, loss], feed_dict=feed)
        losses.append(loss_val)
        if step % 100 == 0:
            print("Loss at", step, loss_val)
    trained = sess.run(embeddings)
# The last 50 batches' mean: nce_loss draws new negative words every step, so one batch is noisy.
mean_loss = float(np.mean(losses[-50:]))
print("mean loss of the last 50 steps:", mean_loss)
