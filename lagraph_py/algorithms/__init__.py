"""The algorithms, each written once over the executor step vocabulary."""
