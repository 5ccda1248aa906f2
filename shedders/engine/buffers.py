"""What every family's batched entry points share: the arrays a step writes (``Buffers``) and how a batch is split
into chunks over numba's threads (``chunk``).

``VectorGame`` allocates one ``Buffers`` per batch and hands it to the kernels whole, so a kernel takes the batch's
outputs as one argument; their fields are the ``VectorGame`` attributes of the same meaning (``obs`` is
``observation``, ``mask`` ``action_mask``, ``cur`` ``current_player``, ``nlegal`` ``num_legal``, ``ids``
``legal_ids``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np


class Buffers(NamedTuple):
    """The batch-first arrays the entry points write in place (see ``VectorGame``)."""

    obs: np.ndarray  # int8 (B, obs): the acting seat's observation
    mask: np.ndarray  # int8 (B, A)
    cur: np.ndarray  # int8 (B,): the acting seat, -1 in a game that is over
    nlegal: np.ndarray  # int16 (B,)
    ids: np.ndarray  # int16 (B, A): the legal ids in ids[g, :nlegal[g]]
    rewards: np.ndarray  # float32 (B, P): the last step's rewards
    terminated: np.ndarray  # bool (B,)
    truncated: np.ndarray  # bool (B,)
    final_placing: np.ndarray  # int8 (B, P): the finishing order of a game that ended in the last step
    final_plies: np.ndarray  # int16 (B,): its length in decisions


def alloc_buffers(num_envs: int, num_players: int, observation_size: int, num_actions: int) -> Buffers:
    b, n = num_envs, num_players
    return Buffers(np.zeros((b, observation_size), np.int8), np.zeros((b, num_actions), np.int8),
                   np.zeros(b, np.int8), np.zeros(b, np.int16), np.zeros((b, num_actions), np.int16),
                   np.zeros((b, n), np.float32), np.zeros(b, np.bool_), np.zeros(b, np.bool_),
                   np.full((b, n), -1, np.int8), np.zeros(b, np.int16))


@nb.njit(cache=True, inline="always")
def chunks_nb(nchunks, b):
    """How many chunks a batch of ``b`` games is split into for ``nchunks`` threads, and each chunk's size."""
    nt = max(1, min(nchunks, b))
    return nt, (b + nt - 1) // nt


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def first_illegal_nb(mask, actions):
    """Index of the first game whose action is not an id or is masked (-1 skips a game), or -1 when all are
    legal."""
    for g in range(actions.shape[0]):
        a = actions[g]
        if a == -1:
            continue
        if a < 0 or a >= mask.shape[1] or mask[g, a] == 0:
            return g
    return -1
