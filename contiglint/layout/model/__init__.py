"""What torch does to a tensor's layout: abstract values, geometry, sizes and the op table."""
