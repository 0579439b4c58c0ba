# Modeled on udacity/deep-learning/seq2seq/sequence_to_sequence_implementation.ipynb (a sequence-to-sequence model that learns to sort the letters of a word: an LSTM encoder run by dynamic_rnn over embedded letters, an LSTM decoder trained through contrib.seq2seq's TrainingHelper, BasicDecoder and dynamic_decode, inference by a GreedyEmbeddingHelper decoder that shares its variables, sequence_loss with a sequence_mask, Adam with clipped gradients); written for symgrad's tests, not copied.
# Data: random words of 3 to 7 letters from a 10-letter alphabet instead of the notebook's letters file; one LSTM layer of 48 units and embeddings of 12 instead of two of 50 and 15; tf.nn.embedding_lookup on a variable for contrib.layers.embed_sequence; 400 steps.
import numpy as np

import symgrad as tf

rng = np.random.RandomState(0)
LETTERS = list("abcdefghij")
PAD, EOS, GO = 0, 1, 2
letter_to_int = {c: i + 3 for i, c in enumerate(LETTERS)}
vocab_size = len(LETTERS) + 3


def random_words(count):
    return ["".join(rng.choice(LETTERS, size=rng.randint(3, 8))) for _ in range(count)]


def pad(batch):
    longest = max(len(s) for s in batch)
    return np.array([s + [PAD] * (longest - len(s)) for s in batch], dtype=np.int32)


def make_batch(words):
    sources = [[letter_to_int[c] for c in w] for w in words]
    targets = [[letter_to_int[c] for c in sorted(w)] + [EOS] for w in words]
    return (
        pad(sources),
        pad(targets),
        np.array([len(s) for s in sources], dtype=np.int32),
        np.array([len(t) for t in targets], dtype=np.int32),
    )


rnn_size = 48
encoding_embedding_size = decoding_embedding_size = 12
batch_size = 64
learning_rate = 0.01
steps = 400

input_data = tf.placeholder(tf.int32, [None, None], name="input")
targets = tf.placeholder(tf.int32, [None, None], name="targets")
target_sequence_length = tf.placeholder(tf.int32, (None,), name="target_sequence_length")
max_target_sequence_length = tf.reduce_max(target_sequence_length, name="max_target_len")
source_sequence_length = tf.placeholder(tf.int32, (None,), name="source_sequence_length")

# Encoder.
encoder_embeddings = tf.Variable(
    tf.random_uniform([vocab_size, encoding_embedding_size], -1.0, 1.0)
)
enc_embed_input = tf.nn.embedding_lookup(encoder_embeddings, input_data)
enc_cell = tf.nn.rnn_cell.LSTMCell(
    rnn_size, initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=2)
)
enc_output, enc_state = tf.nn.dynamic_rnn(
    enc_cell, enc_embed_input, sequence_length=source_sequence_length, dtype=tf.float32
)

# Decoder input: the targets without their last id, after a GO.
ending = tf.strided_slice(targets, [0, 0], [batch_size, -1], [1, 1])
dec_input = tf.concat([tf.fill([batch_size, 1], GO), ending], 1)
decoder_embeddings = tf.Variable(tf.random_uniform([vocab_size, decoding_embedding_size]))
dec_embed_input = tf.nn.embedding_lookup(decoder_embeddings, dec_input)
dec_cell = tf.nn.rnn_cell.LSTMCell(
    rnn_size, initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=2)
)
output_layer = tf.layers.Dense(
    vocab_size, kernel_initializer=tf.truncated_normal_initializer(mean=0.0, stddev=0.1)
)

with tf.variable_scope("decode"):
    training_helper = tf.contrib.seq2seq.TrainingHelper(
        inputs=dec_embed_input, sequence_length=target_sequence_length, time_major=False
    )
    training_decoder = tf.contrib.seq2seq.BasicDecoder(
        dec_cell, training_helper, enc_state, output_layer
    )
    training_decoder_output = tf.contrib.seq2seq.dynamic_decode(
        training_decoder, impute_finished=True, maximum_iterations=max_target_sequence_length
    )[0]

with tf.variable_scope("decode", reuse=True):
    start_tokens = tf.tile(tf.constant([GO], dtype=tf.int32), [batch_size], name="start_tokens")
    inference_helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(
        decoder_embeddings, start_tokens, EOS
    )
    inference_decoder = tf.contrib.seq2seq.BasicDecoder(
        dec_cell, inference_helper, enc_state, output_layer
    )
    inference_decoder_output = tf.contrib.seq2seq.dynamic_decode(
        inference_decoder, impute_finished=True, maximum_iterations=max_target_sequence_length
    )[0]

training_logits = tf.identity(training_decoder_output.rnn_output, "logits")
inference_ids = tf.identity(inference_decoder_output.sample_id, name="predictions")
masks = tf.sequence_mask(target_sequence_length, max_target_sequence_length, dtype=tf.float32)
cost = tf.contrib.seq2seq.sequence_loss(training_logits, targets, masks)
optimizer = tf.train.AdamOptimizer(learning_rate)
gradients = optimizer.compute_gradients(cost)
capped = [(tf.clip_by_value(grad, -5.0, 5.0), var) for grad, var in gradients if grad is not None]
train_op = optimizer.apply_gradients(capped)

valid = make_batch(random_words(batch_size))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(steps):
        sources, target_ids, source_lengths, target_lengths = make_batch(random_words(batch_size))
        _, loss = sess.run(
            [train_op, cost],
            {
                input_data: sources,
                targets: target_ids,
                target_sequence_length: target_lengths,
                source_sequence_length: source_lengths,
            },
        )
        if step % 100 == 0:
            print(f"step {step}: training loss {loss:.3f}")
    validation_loss = sess.run(
        cost,
        {
            input_data: valid[0],
            targets: valid[1],
            target_sequence_length: valid[3],
            source_sequence_length: valid[2],
        },
    )
    predicted = sess.run(
        inference_ids,
        {input_data: valid[0], target_sequence_length: valid[3], source_sequence_length: valid[2]},
    )

# A word is sorted right when every predicted id up to its EOS is the target's.
correct = 0
for row, target, length in zip(predicted, valid[1], valid[3], strict=True):
    correct += int(len(row) >= length and list(row[:length]) == list(target[:length]))
sorted_words = correct / batch_size
print(f"Validation loss: {validation_loss:.4f}")
print(f"Sorted correctly: {sorted_words:.3f}")
