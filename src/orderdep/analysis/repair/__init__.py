"""Repair of order-dependent tests: ODRepair's debugger and generator, iFixFlakies' patcher."""

from __future__ import annotations
