"""Search over the engine: copy a game, resample what a seat cannot see, roll out, choose.

``palace_policies`` / ``omg_policies`` hold the one implementation of the ``greedy`` and ``expert`` strategies
(numba kernels over what the deciding seat may see); the agent classes in ``agents/`` are thin batched wrappers
over them, and the rollouts call them directly. ``palace_search`` / ``omg_search`` hold the determinized Monte
Carlo search. This is the only part of the engine that ``agents`` imports.
"""
