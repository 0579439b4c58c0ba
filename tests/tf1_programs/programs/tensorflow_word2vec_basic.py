# Modeled on tensorflow/tensorflow/tensorflow/examples/tutorials/word2vec/word2vec_basic.py (skip-gram: build_dataset with UNK, a deque window batch generator with random.sample of the context words, random_uniform(-1, 1) embeddings, truncated_normal(stddev=1/sqrt(dim)) NCE weights, nce_loss, SGD at 1.0, a summary per step, cosine nearest neighbours); written for symgrad's tests, not copied.
# Data: a made-up corpus generated here in place of text8 (43 topics of 12 made-up words, Zipfian
# within a topic, with function words between them); a vocabulary of 300 of its 516 words
# (the rest are UNK); 3001 steps, not 100001; the average loss printed every 500 steps, not 2000.
import collections
import math
import os
import random
import tempfile

import numpy as np

import symgrad as tf

data_index = 0

# Step 1: the text. 43 topics of 12 words; a sentence is 8 words of one topic, the frequent
# ones more often, with a function word after about a third of them.
corpus_draw = np.random.RandomState(2017)
syllables = ["ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "di"]
topics = [
    [syllables[t % 12] + syllables[(t // 12 + w) % 12] + str(t) + "w" + str(w) for w in range(12)]
    for t in range(43)
]
function_words = ["the", "a", "of", "and", "to", "in", "is", "it", "that", "for"]
within_topic = 1.0 / np.arange(1, 13)
within_topic /= within_topic.sum()
topic_weight = 1.0 / np.arange(1, len(topics) + 1) ** 0.7
topic_weight /= topic_weight.sum()
vocabulary = []
for _ in range(4500):
    topic = topics[corpus_draw.choice(len(topics), p=topic_weight)]
    for _ in range(8):
        vocabulary.append(topic[corpus_draw.choice(12, p=within_topic)])
        if corpus_draw.rand() < 0.35:
            vocabulary.append(function_words[corpus_draw.randint(len(function_words))])
print("Data size", len(vocabulary))

# Step 2: the dictionary; the rare words become UNK.
vocabulary_size = 300


def build_dataset(words, n_words):
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = {word: index for index, (word, _) in enumerate(count)}
    data = [dictionary.get(word, 0) for word in words]
    count[0][1] = data.count(0)
    reversed_dictionary = {index: word for word, index in dictionary.items()}
    return data, count, dictionary, reversed_dictionary


data, count, dictionary, reverse_dictionary = build_dataset(vocabulary, vocabulary_size)
del vocabulary
print("Most common words (+UNK)", count[:5])
print("Sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])


# Step 3: a skip-gram batch: each centre word of a sliding window, num_skips times, with
# context words picked at random from the window.
def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index : data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        for j, context_word in enumerate(random.sample(context_words, num_skips)):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    # step back, so that the words at the end of this batch start the next one
    data_index = (data_index + len(data) - span) % len(data)
    return batch, labels


batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(8):
    print(
        batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0], reverse_dictionary[labels[i, 0]]
    )

# Step 4: the skip-gram model.
batch_size = 128
embedding_size = 128
skip_window = 1
num_skips = 2
num_sampled = 64

valid_size = 16
valid_window = 100
valid_examples = np.random.choice(valid_window, valid_size, replace=False)

graph = tf.Graph()
with graph.as_default():
    with tf.name_scope("inputs"):
        train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
        train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
        valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

    with tf.device("/cpu:0"):
        with tf.name_scope("embeddings"):
            embeddings = tf.Variable(
                tf.random_uniform([vocabulary_size, embedding_size], -1.0, 1.0)
            )
            embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        with tf.name_scope("weights"):
            nce_weights = tf.Variable(
                tf.truncated_normal(
                    [vocabulary_size, embedding_size], stddev=1.0 / math.sqrt(embedding_size)
                )
            )
        with tf.name_scope("biases"):
            nce_biases = tf.Variable(tf.zeros([vocabulary_size]))

    # nce_loss draws new negative words each time the loss is evaluated
    with tf.name_scope("loss"):
        loss = tf.reduce_mean(
            tf.nn.nce_loss(
                weights=nce_weights,
                biases=nce_biases,
                labels=train_labels,
                inputs=embed,
                num_sampled=num_sampled,
                num_classes=vocabulary_size,
            )
        )
    tf.summary.scalar("loss", loss)

    with tf.name_scope("optimizer"):
        optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    # cosine similarity between the validation words and every word
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)

    merged = tf.summary.merge_all()
    init = tf.global_variables_initializer()

# Step 5: training.
num_steps = 3001
log_dir = tempfile.mkdtemp(prefix="word2vec_basic-")
losses = []
with tf.Session(graph=graph) as session:
    writer = tf.summary.FileWriter(log_dir, session.graph)
    init.run()
    print("Initialized")
    average_loss = 0
    for step in range(num_steps):
        batch_inputs, batch_labels = generate_batch(batch_size, num_skips, skip_window)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        run_metadata = tf.RunMetadata()
        _, summary, loss_val = session.run(
            [optimizer, merged, loss], feed_dict=feed_dict, run_metadata=run_metadata
        )
        average_loss += loss_val
        losses.append(loss_val)
        writer.add_summary(summary, step)
        if step % 500 == 0:
            if step > 0:
                average_loss /= 500
            print("Average loss at step ", step, ": ", average_loss)
            average_loss = 0
        if step % 1500 == 0:
            sim = similarity.eval()
            for i in range(valid_size):
                nearest = (-sim[i, :]).argsort()[1:9]
                print(
                    f"Nearest to {reverse_dictionary[valid_examples[i]]}:",
                    ", ".join(reverse_dictionary[k] for k in nearest),
                )
    final_embeddings = normalized_embeddings.eval()
    writer.close()

with open(os.path.join(log_dir, "metadata.tsv"), "w") as f:
    for i in range(vocabulary_size):
        f.write(reverse_dictionary[i] + "\n")

first_loss = float(losses[0])
final_loss = float(np.mean(losses[-500:]))


# How well the embeddings learnt the topics: of each frequent content word's 5 nearest
# neighbours (by cosine), the share from its own topic.
topic_of = {word: t for t, topic in enumerate(topics) for word in topic}
content = [i for i in range(1, 100) if reverse_dictionary[i] in topic_of]
similar = final_embeddings[content] @ final_embeddings.T
same_topic = []
for row, i in enumerate(content):
    nearest = [k for k in (-similar[row]).argsort() if k != i][:5]
    mine = topic_of[reverse_dictionary[i]]
    same_topic += [topic_of.get(reverse_dictionary[k]) == mine for k in nearest]
neighbour_accuracy = float(np.mean(same_topic))
print("first loss", first_loss, "final loss", final_loss, "neighbours", neighbour_accuracy)
