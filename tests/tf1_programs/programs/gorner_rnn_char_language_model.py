# Modeled on martin-gorner/tensorflow-rnn-shakespeare/rnn_train.py (a character language model: uint8 characters one-hot over a [None, None] placeholder, GRU cells with input dropout stacked by a MultiRNNCell with state_is_tuple=False and run by dynamic_rnn from a fed state Hin, a linear readout shared by every step, Adam; text then generated one character at a time, the last state fed back); written for symgrad's tests, not copied.
# Data: text made by a fixed grammar stands in for Shakespeare; 2 layers of 64 units; every batch has its own sequence length (10 to 30 characters); tf.layers.dense for contrib.layers.linear; the mean loss of the flattened batch (the tutorial reshapes it by a fed batch size).
import numpy as np

import symgrad as tf

rng = np.random.RandomState(0)
SUBJECTS = ["the cat", "a dog", "my friend", "the king", "old tom"]
VERBS = ["sees", "likes", "finds", "takes", "calls"]
OBJECTS = ["the ball", "a tree", "the moon", "a song", "her hat"]


def sentence():
    return (
        " ".join([SUBJECTS[rng.randint(5)], VERBS[rng.randint(5)], OBJECTS[rng.randint(5)]]) + ". "
    )


ALPHABET = sorted(set("".join(SUBJECTS + VERBS + OBJECTS) + ". "))
ALPHASIZE = len(ALPHABET)
codes = {c: i for i, c in enumerate(ALPHABET)}
text = np.array([codes[c] for c in "".join(sentence() for _ in range(3000))], dtype=np.uint8)
split_at = len(text) * 9 // 10
train_text, valid_text = text[:split_at], text[split_at:]

BATCHSIZE = 32
INTERNALSIZE = 64
NLAYERS = 2
learning_rate = 0.01
dropout_pkeep = 0.9
training_steps = 250

lr = tf.placeholder(tf.float32, name="lr")
pkeep = tf.placeholder(tf.float32, name="pkeep")
X = tf.placeholder(tf.uint8, [None, None], name="X")
Xo = tf.one_hot(X, ALPHASIZE, 1.0, 0.0)
Y_ = tf.placeholder(tf.uint8, [None, None], name="Y_")
Yo_ = tf.one_hot(Y_, ALPHASIZE, 1.0, 0.0)
Hin = tf.placeholder(tf.float32, [None, INTERNALSIZE * NLAYERS], name="Hin")

cells = [tf.nn.rnn_cell.GRUCell(INTERNALSIZE) for _ in range(NLAYERS)]
dropcells = [tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=pkeep) for cell in cells]
multicell = tf.nn.rnn_cell.MultiRNNCell(dropcells, state_is_tuple=False)
Yr, H = tf.nn.dynamic_rnn(multicell, Xo, dtype=tf.float32, initial_state=Hin)
H = tf.identity(H, name="H")

Yflat = tf.reshape(Yr, [-1, INTERNALSIZE])
Ylogits = tf.layers.dense(Yflat, ALPHASIZE)
Yflat_ = tf.reshape(Yo_, [-1, ALPHASIZE])
loss = tf.nn.softmax_cross_entropy_with_logits(logits=Ylogits, labels=Yflat_)
Yo = tf.nn.softmax(Ylogits, name="Yo")
Y = tf.argmax(Yo, 1)
batchloss = tf.reduce_mean(loss)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.reshape(tf.cast(Y_, tf.int64), [-1]), Y), tf.float32))
train_step = tf.train.AdamOptimizer(lr).minimize(loss)


def minibatch(data, batch_size, seq_len, offset):
    """batch_size rows of seq_len characters and the same shifted by one, from offset on."""
    starts = (offset + np.arange(batch_size) * (len(data) // batch_size)) % (
        len(data) - seq_len - 1
    )
    x = np.stack([data[s : s + seq_len] for s in starts])
    y = np.stack([data[s + 1 : s + seq_len + 1] for s in starts])
    return x, y


sess = tf.Session()
sess.run(tf.global_variables_initializer())
lengths_seen = set()
for step in range(training_steps):
    seq_len = 10 + rng.randint(21)  # another sequence length each batch
    lengths_seen.add(seq_len)
    x, y_ = minibatch(train_text, BATCHSIZE, seq_len, step * 7)
    istate = np.zeros([BATCHSIZE, INTERNALSIZE * NLAYERS], dtype=np.float32)
    feed = {X: x, Y_: y_, Hin: istate, lr: learning_rate, pkeep: dropout_pkeep}
    _, bl = sess.run([train_step, batchloss], feed_dict=feed)
    if step % 50 == 0:
        print(f"step {step}: batch loss {bl:.4f} (sequences of {seq_len})")

vx, vy = minibatch(valid_text, 64, 40, 0)
vstate = np.zeros([64, INTERNALSIZE * NLAYERS], dtype=np.float32)
valid_loss, valid_accuracy = sess.run(
    [batchloss, accuracy], feed_dict={X: vx, Y_: vy, Hin: vstate, pkeep: 1.0}
)
print(f"Validation loss: {valid_loss:.4f}, accuracy: {valid_accuracy:.4f}")

# Generate text one character at a time, feeding the last state back.
ry = np.array([[codes["t"]]], dtype=np.uint8)
rh = np.zeros([1, INTERNALSIZE * NLAYERS], dtype=np.float32)
generated = []
for _ in range(300):
    ryo, rh = sess.run([Yo, H], feed_dict={X: ry, pkeep: 1.0, Hin: rh})
    probabilities = np.asarray(ryo[0], dtype=np.float64)
    top = np.argsort(probabilities)[-2:]  # the two likeliest, as the tutorial samples late
    chosen = rng.choice(top, p=probabilities[top] / probabilities[top].sum())
    generated.append(ALPHABET[chosen])
    ry = np.array([[chosen]], dtype=np.uint8)
sample = "".join(generated)
print("Generated:", sample)
vocabulary = set(" ".join(SUBJECTS + VERBS + OBJECTS).split())
words = [w for w in sample.replace(".", " ").split()][1:-1]  # the first and last may be cut
known_words = sum(w in vocabulary for w in words) / max(len(words), 1)
print(f"Known words: {known_words:.3f}")
varied_lengths = float(len(lengths_seen))
