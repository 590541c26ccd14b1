"""Runtime side of contiglint: observe what torch really does, to check the static model.

`tracer.Tracer` records, for calls made from chosen source files, the layouts that reached each
torch op. The fixture verifier and `contiglint run` are both built on it.
"""
