"""The keys of SavedModel signatures, as TF1 names them."""

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
