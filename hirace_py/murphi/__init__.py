"""The Murphi model of the FSM and its check with Rumur (`hirace verify`).

`model` renders the model from a transition table, `table` reads tables in
the CSV export format, `rumur` builds and runs the verifier and parses its
result, `check` runs the model for a verdict and, when it fails, for a
trace, and `counterexample` turns a Rumur error trace into the trace syntax
of ``hirace fsm --trace`` and checks it against the Python oracle.
"""
