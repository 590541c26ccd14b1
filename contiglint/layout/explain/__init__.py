"""Showing the layout the flow pass infers: `contiglint explain`, editor hovers, inlay hints."""
