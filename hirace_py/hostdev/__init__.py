"""Host and device together: the happens-before model of a whole program's CUDA
calls (docs/semantics.md section 6) and the findings stated in it
(docs/findings.md).

Data flows one way: the program's recorded host events (`events`) are replayed
through the order of host threads and streams (`order`) and the byte-range
state of memory (`ranges`, `memory`), and `findings` turns what they see into
report entries. Everything here is a pure function of the event list.
"""
