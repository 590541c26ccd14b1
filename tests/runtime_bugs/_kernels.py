"""A 'native kernel' wrapper imported by kv_cache_block_pointer.py: not a bug script."""
import ctypes


def copy_block(block):
    """Reads block.numel() floats starting at data_ptr(), as a C kernel would."""
    address = block.data_ptr()  # bug-line: CTG106
    return list((ctypes.c_float * block.numel()).from_address(address))
