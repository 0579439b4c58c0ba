# Seed program 3: gradients with respect to an intermediate tensor.
# The tutorial's code exactly, with only the import line changed.
import symgrad as tf

a = tf.constant(0.0)
b = 2 * a
c = a + b
g = tf.gradients(c, [a, b])

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    print(sess.run(g))

# 输出[3.0, 1.0]
