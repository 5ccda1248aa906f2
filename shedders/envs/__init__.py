"""PettingZoo AEC environments, one versioned module per ruleset (``core_v0``, ``south_african_v0``, ...)."""
