"""Threading defaults applied before numba is first imported.

The reference machines have two cores.  OpenMP's default spin-wait keeps idle
worker threads busy after every parallel region, which steals the second core
from the other process (or from the next region) and makes small kernels slower
than serial code.  A passive wait policy avoids that.  Users can still override
any of these variables from their environment.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("KMP_BLOCKTIME", "0")
# tbb is rarely installed; prefer OpenMP (with the passive policy above), then
# numba's own work queue.
os.environ.setdefault("NUMBA_THREADING_LAYER_PRIORITY", "omp tbb workqueue")
