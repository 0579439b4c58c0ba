"""TensorFlow checkpoints ("tensor bundles") that TensorFlow wrote, the arrays they hold
(``cases.py``), and the script that recorded them (``record_bundles.py``)."""
