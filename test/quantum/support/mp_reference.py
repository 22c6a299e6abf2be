"""High-precision reference for the quantum-tools tests: statevectors and unitaries at 200 bits with mpmath.

Input (argv[1]): a JSON file {"jobs": [...]}, each {"id", "kind": "statevector" | "unitary", "circuit"} where
"circuit" is a pks circuit, or {"id", "kind": "reduce", "values": [...]} for each value's residue modulo 2π in
(−π, π] (computed with 1 300 bits, enough for any double). A "circuit" is a pks circuit (CONTRACT §17.2: qubit 0 is the most significant bit). Every angle is the exact binary value of the
double in the JSON (Python reads the shortest round-trip decimal back to the same double; mpf(float) is exact), so
the only rounding left is mpmath's, at 200 bits. Output (stdout): {"results": [{"id", "data": ["re", "im", ...]}]}
with decimal strings of 30 significant digits (interleaved complex; unitaries column by column, like pks).
"""
import json
import sys

import mpmath
from mpmath import mp, mpc, mpf

mp.prec = 200


def angle(params, key):
    # float() first: JSON writes a large double such as 3.621020525634252e17 as the integer 362102052563425200,
    # which Python would read as that exact integer rather than the double it denotes.
    return mpf(float(params[key]))


def one_qubit_matrix(name, params):
    half = lambda: angle(params, "theta") / 2  # noqa: E731
    e = lambda a: mpmath.expj(a)  # noqa: E731
    s2 = 1 / mpmath.sqrt(2)
    table = {
        "I": lambda: [[1, 0], [0, 1]],
        "H": lambda: [[s2, s2], [s2, -s2]],
        "X": lambda: [[0, 1], [1, 0]],
        "CNOT": lambda: [[0, 1], [1, 0]],
        "CCX": lambda: [[0, 1], [1, 0]],
        "Y": lambda: [[0, mpc(0, -1)], [mpc(0, 1), 0]],
        "Z": lambda: [[1, 0], [0, -1]],
        "CZ": lambda: [[1, 0], [0, -1]],
        "S": lambda: [[1, 0], [0, mpc(0, 1)]],
        "SDG": lambda: [[1, 0], [0, mpc(0, -1)]],
        "T": lambda: [[1, 0], [0, e(mp.pi / 4)]],
        "TDG": lambda: [[1, 0], [0, e(-mp.pi / 4)]],
        "SX": lambda: [[mpc(0.5, 0.5), mpc(0.5, -0.5)], [mpc(0.5, -0.5), mpc(0.5, 0.5)]],
        "RX": lambda: [[mpmath.cos(half()), mpc(0, -1) * mpmath.sin(half())], [mpc(0, -1) * mpmath.sin(half()), mpmath.cos(half())]],
        "RY": lambda: [[mpmath.cos(half()), -mpmath.sin(half())], [mpmath.sin(half()), mpmath.cos(half())]],
        "RZ": lambda: [[e(-half()), 0], [0, e(half())]],
        "P": lambda: [[1, 0], [0, e(angle(params, "theta"))]],
        "U": lambda: u_matrix(angle(params, "theta"), angle(params, "phi"), angle(params, "lambda")),
    }
    return [[mpc(x) for x in row] for row in table[name]()]


def u_matrix(theta, phi, lam):
    c, s = mpmath.cos(theta / 2), mpmath.sin(theta / 2)
    # e^{i(φ+λ)} as a product, so no sum of angles is rounded even at 200 bits.
    return [[c, -mpmath.expj(lam) * s], [mpmath.expj(phi) * s, mpmath.expj(phi) * mpmath.expj(lam) * c]]


def apply_gate(state, n, gate):
    name = gate["name"]
    if name in ("BARRIER", "MEASURE"):
        return
    bit = lambda q: 1 << (n - 1 - q)  # noqa: E731
    ctrl = sum(bit(q) for q in gate.get("control_qubits", []))
    if name == "SWAP":
        a, b = (bit(q) for q in gate["target_qubits"])
        for i in range(len(state)):
            if i & ctrl == ctrl and i & a and not i & b:
                j = i ^ a ^ b
                state[i], state[j] = state[j], state[i]
        return
    m = one_qubit_matrix(name, gate.get("params", {}))
    t = bit(gate["target_qubits"][0])
    for i in range(len(state)):
        if i & ctrl == ctrl and not i & t:
            x, y = state[i], state[i | t]
            state[i] = m[0][0] * x + m[0][1] * y
            state[i | t] = m[1][0] * x + m[1][1] * y


def run_circuit(circuit, initial_index):
    n = circuit["num_qubits"]
    state = [mpc(0)] * (2**n)
    state[initial_index] = mpc(1)
    for gate in circuit["gates"]:
        apply_gate(state, n, gate)
    return state


def encode(values):
    out = []
    for v in values:
        out += [mpmath.nstr(v.real, 30), mpmath.nstr(v.imag, 30)]
    return out


def reduce_mod_2pi(x):
    with mp.workprec(1300):
        x = mpf(float(x))
        two_pi = 2 * mp.pi
        r = x - two_pi * mpmath.nint(x / two_pi)
        return mpmath.nstr(r, 30)


def run(job):
    if job["kind"] == "reduce":
        return [reduce_mod_2pi(x) for x in job["values"]]
    circuit = job["circuit"]
    if job["kind"] == "statevector":
        return encode(run_circuit(circuit, 0))
    columns = []
    for k in range(2 ** circuit["num_qubits"]):
        columns += run_circuit(circuit, k)
    return encode(columns)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)["jobs"]
    json.dump({"results": [{"id": job["id"], "data": run(job)} for job in jobs]}, sys.stdout)


if __name__ == "__main__":
    main()
