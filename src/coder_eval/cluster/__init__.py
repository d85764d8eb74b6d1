"""Running units on a Ray cluster: the `ray` executor, its per-node gateways and record transfer.

Ray is an optional extra (`pip install 'coder-eval[ray]'`); nothing here imports it at module
load, so `plan` and the registry can name the executor on machines without it.
"""
