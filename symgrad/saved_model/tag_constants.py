"""The tags of SavedModel meta graphs, as TF1 names them."""

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
