"""Write instances/koibuchi2012-clos-traffic.toml and its networks, Koibuchi et al.'s Myrinet-Clos with random links.

Run from the repository root:  python scripts/make_koibuchi2012_clos.py

Each network (Sect. V-A, Fig. 26: 80 switches, 256 hosts; both cabling plans, every variant, structure seed 1; see
:mod:`hopbench.harness.graphs.myrinet_clos`) is written as a host-switch result document to
``instances/networks/myrinet-clos/<wiring>-<variant>-s1.json``: the traffic kind puts 8 hosts on every leaf from
it (``endpoints = "hosts"``), and ``hopbench verify`` re-checks it.  The suite simulates each under uniform traffic
with koibuchi2012-traffic's router and routing for irregular networks (minimal adaptive with an up*/down* escape).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# named from the project root (the suite file's parent folder), where `hopbench verify` finds them too
FOLDER = Path("instances") / "networks" / "myrinet-clos"
SEED = 1

HEADER = '''# Written by scripts/make_koibuchi2012_clos.py; edit that script, not this file.
name = "koibuchi2012-clos-traffic"
description = "Koibuchi et al. 2012, Sect. V-A (Fig. 26): the 256-host, 80-switch Myrinet-Clos and its random variants (swapped leaf-midspine links; links added per switch or per 64-host group), under both cabling plans the paper allows, simulated under uniform traffic."
# One seed: a simulation's seed only draws packet arrivals (the networks' random links are fixed by their files).
seeds = 1
# a cell takes well under a minute; the limit only guards against a hang
time_limit = 600

# The router and routing are koibuchi2012-traffic's for irregular networks: virtual cut-through, 2 VCs, 33-flit
# packets, 10-cycle pipeline stages, 8-cycle channels; minimal adaptive routing with an up*/down* escape (its root
# the switch of least eccentricity: a spine).  Hosts: 8 on every leaf, from the network file.  The stated load,
# 0.05 flits/cycle/host, is one every variant carries.
[defaults]
kind = "traffic"
router = { num_vcs = 2, packet_size = 33, vc_buf_size = 33, flow_control = "vct", routing_delay = 10, vc_alloc_delay = 10, sw_alloc_delay = 10, st_final_delay = 10, channel_latency = 8, latency_thres = 2000 }
routing = "adaptive-updown"
traffic = "uniform"
endpoints = "hosts"
load = 0.05
zero_load_packets = 5000
'''


def document(wiring: str, variant: str, seed: int) -> dict[str, Any]:
    """A variant as a host-switch result document (``hopbench.hostswitch/1``): the traffic kind reads its hosts
    (``endpoints = "hosts"``), and ``hopbench verify`` re-checks it.  The radix is the most ports a switch uses
    (16 for the original and the swaps; the added links take 17 or 18)."""
    import numpy as np

    from hopbench.harness.graphs.myrinet_clos import HOSTS, myrinet_clos
    from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem
    from hopbench.harness.problems.hostswitch.solution import HostSwitchGraph

    graph, hosts = myrinet_clos(wiring, variant, seed)
    radix = int((graph.degree.astype(np.int64) + hosts).max())
    problem = HostSwitchProblem(hosts=HOSTS, radix=radix, objective="h_aspl")
    out = HostSwitchGraph(problem=problem, host_counts=hosts, links=graph.edges, solver="myrinet-clos",
                          params={"wiring": wiring, "variant": variant}, seed=seed)
    return out.to_dict()


def main() -> int:
    from hopbench.harness.graphs.myrinet_clos import VARIANTS, WIRINGS, file_stem

    (ROOT / FOLDER).mkdir(parents=True, exist_ok=True)
    text = HEADER
    for wiring in WIRINGS:
        text += f"\n# ---- cabling plan '{wiring}'\n"
        for variant in VARIANTS:
            name = FOLDER / f"{file_stem(wiring, variant, SEED)}.json"
            doc = document(wiring, variant, SEED)
            (ROOT / name).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
            text += (f'[[instances]]\nnetwork = "{name.as_posix()}"\n'
                     f'group = "Myrinet-Clos, {wiring} cabling"\n')
    (ROOT / "instances" / "koibuchi2012-clos-traffic.toml").write_text(text)
    print(f"wrote {len(WIRINGS) * len(VARIANTS)} networks to {FOLDER} and "
          f"instances/koibuchi2012-clos-traffic.toml")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
