"""Qiskit oracle for the quantum-tools tests: one process checks a whole batch of generated programs.

Input (argv[1]): a JSON file with {"jobs": [...]}; each job is one of
  {"id", "kind": "statevector", "program"}                  exec a generated Qiskit program, Statevector of create_circuit()
  {"id", "kind": "qasm2" | "qasm3" | "qiskit-op", "program"} parse/exec the program, Operator of the circuit
  {"id", "kind": "qasm2-strict", "program"}                 the same with qiskit.qasm2.loads(strict=True), no legacy
                                                            custom instructions (the OpenQASM 2.0 grammar as written)
  {"id", "kind": "equiv", "a", "b", "atol"}                  Operator.equiv of two Qiskit programs
Programs are measured-free or have their final measurements removed. States and operators come back as base64 of
little-endian complex128 arrays in Qiskit's own ordering (row-major for operators). Output: JSON on stdout.
"""
import base64
import json
import sys

import numpy as np
import qiskit.qasm2
from qiskit.quantum_info import Operator, Statevector
from qiskit_qasm3_import import parse as parse_qasm3


def circuit_from_qiskit_program(text):
    scope = {"__name__": "pks_generated_program"}
    exec(compile(text, "<generated>", "exec"), scope)
    return scope["create_circuit"]()


def without_measurements(circuit):
    circuit = circuit.copy()
    circuit.remove_final_measurements(inplace=True)
    return circuit


def encode(array):
    return base64.b64encode(np.ascontiguousarray(array, dtype="<c16").tobytes()).decode("ascii")


def circuit_for(kind, program):
    if kind == "qasm2":
        return qiskit.qasm2.loads(program, custom_instructions=qiskit.qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    if kind == "qasm2-strict":
        return qiskit.qasm2.loads(program, strict=True)
    if kind == "qasm3":
        return parse_qasm3(program)
    return circuit_from_qiskit_program(program)


def run(job):
    kind = job["kind"]
    if kind == "statevector":
        circuit = without_measurements(circuit_from_qiskit_program(job["program"]))
        return {"data": encode(Statevector(circuit).data)}
    if kind in ("qasm2", "qasm2-strict", "qasm3", "qiskit-op"):
        circuit = without_measurements(circuit_for(kind, job["program"]))
        return {"data": encode(Operator(circuit).data), "num_qubits": circuit.num_qubits}
    if kind == "equiv":
        a = Operator(without_measurements(circuit_from_qiskit_program(job["a"])))
        b = Operator(without_measurements(circuit_from_qiskit_program(job["b"])))
        return {"equiv": bool(a.equiv(b, rtol=0, atol=job["atol"]))}
    raise ValueError("unknown job kind " + kind)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)["jobs"]
    results = []
    for job in jobs:
        try:
            results.append({"id": job["id"], **run(job)})
        except Exception as exc:  # reported per job, so one bad program does not hide the others
            results.append({"id": job["id"], "error": f"{type(exc).__name__}: {exc}"})
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
